// swift-tools-version: 6.1
import PackageDescription

let package = Package(
  name: "KeychainBridge",
  products: [
    // The API module and the store it reaches through a link-time seam (see StoreBackend.swift).
    .library(name: "Security", targets: ["Security", "KeychainStoreSQLite"]),
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
    // Apple's SecItem API: dictionaries, rules and results. Depends on Foundation alone, so any
    // target can import it (swift-certificates does, under `#if canImport(Security)`).
    .target(name: "Security"),
    // The store under the API: SQLite through GRDB, every row sealed with OpenSSL.
    .target(
      name: "KeychainStoreSQLite",
      dependencies: [
        "Security",
        "COpenSSL",
        .product(name: "GRDB", package: "GRDB.swift"),
      ]
    ),
    // A program written for Apple's keychain, compiled unchanged against this runtime.
    .executableTarget(
      name: "AppleStyleDemo",
      dependencies: ["Security", "KeychainStoreSQLite"],
      path: "Examples/AppleStyleDemo"
    ),
    // A child process for tests that cannot run in the test process (file-size limits, kills).
    .executableTarget(
      name: "keychain-store-helper",
      dependencies: ["Security", "KeychainStoreSQLite"],
      path: "Tests/StoreHelper"
    ),
    .testTarget(
      name: "SecurityTests",
      dependencies: [
        "Security",
        "KeychainStoreSQLite",
        "keychain-store-helper",
        .product(name: "GRDB", package: "GRDB.swift"),
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)
