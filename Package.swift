// swift-tools-version: 6.1
import PackageDescription

let package = Package(
  name: "KeychainBridge",
  products: [
    .library(name: "Security", targets: ["Security"]),
    .executable(name: "apple-style-demo", targets: ["AppleStyleDemo"]),
  ],
  dependencies: [
    .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0")
  ],
  targets: [
    // libcrypto (AES-256-GCM, HMAC, scrypt, RAND_bytes) through Debian's libssl-dev.
    .systemLibrary(
      name: "COpenSSL",
      path: "Sources/COpenSSL",
      pkgConfig: "libcrypto",
      providers: [.apt(["libssl-dev"])]
    ),
    // Apple's SecItem API over an encrypted SQLite store.
    .target(
      name: "Security",
      dependencies: [
        "COpenSSL",
        .product(name: "GRDB", package: "GRDB.swift"),
      ]
    ),
    // A program written for Apple's keychain, compiled unchanged against this runtime.
    .executableTarget(
      name: "AppleStyleDemo",
      dependencies: ["Security"],
      path: "Examples/AppleStyleDemo"
    ),
    .testTarget(
      name: "SecurityTests",
      dependencies: [
        "Security",
        .product(name: "GRDB", package: "GRDB.swift"),
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)
