// swift-tools-version: 6.1
// A package that depends on both KeychainBridge and swift-certificates: swift-certificates compiles
// its `#if canImport(Security)` code against KeychainBridge's Security module, and swift-crypto's
// keys and signatures interoperate with SecKey's. The check script
// places this package beside a link named keychain-bridge that points at the project.
import PackageDescription

let package = Package(
  name: "CertificatesConsumer",
  dependencies: [
    .package(path: "../keychain-bridge"),
    .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
    // swift-certificates depends on it already: the interop checks use the same copy.
    .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
  ],
  targets: [
    .executableTarget(
      name: "CertificatesConsumer",
      dependencies: [
        .product(name: "Security", package: "keychain-bridge"),
        .product(name: "Keychain", package: "keychain-bridge"),
        .product(name: "X509", package: "swift-certificates"),
        .product(name: "Crypto", package: "swift-crypto"),
      ]
    )
  ],
  swiftLanguageModes: [.v6]
)
