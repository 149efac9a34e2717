// swift-tools-version: 6.1
// Packages that depend on KeychainBridge as a user's would, in one package so that the check builds
// KeychainBridge once. The check script places it beside a link named keychain-bridge that points
// at the project, and builds it where no pkg-config file for libclang exists: the build must need
// nothing beyond the Swift toolchain and Debian's libsqlite3-dev and libssl-dev.
//
// - KeychainConsumer uses the typed API (the Keychain product, whose build runs secgen).
// - CertificatesConsumer also depends on swift-certificates: X509 compiles its
//   `#if canImport(Security)` code against KeychainBridge's Security module, and swift-crypto's keys
//   and signatures interoperate with SecKey's.
import PackageDescription

let package = Package(
  name: "Consumer",
  dependencies: [
    .package(path: "../keychain-bridge"),
    .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
    // swift-certificates depends on it already: the interop checks use the same copy.
    .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
  ],
  targets: [
    .executableTarget(
      name: "KeychainConsumer",
      dependencies: [.product(name: "Keychain", package: "keychain-bridge")]
    ),
    .executableTarget(
      name: "CertificatesConsumer",
      dependencies: [
        .product(name: "Security", package: "keychain-bridge"),
        .product(name: "Keychain", package: "keychain-bridge"),
        .product(name: "X509", package: "swift-certificates"),
        .product(name: "Crypto", package: "swift-crypto"),
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)
