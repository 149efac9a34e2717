// swift-tools-version: 6.1
// A package that depends on KeychainBridge's typed API as a new user's would. The check script
// places it beside a link named keychain-bridge that points at the project, and builds it where no
// pkg-config file for libclang exists: the build must need nothing beyond the Swift toolchain and
// Debian's libsqlite3-dev and libssl-dev.
import PackageDescription

let package = Package(
  name: "KeychainConsumer",
  dependencies: [.package(path: "../keychain-bridge")],
  targets: [
    .executableTarget(
      name: "KeychainConsumer",
      dependencies: [.product(name: "Keychain", package: "keychain-bridge")]
    )
  ],
  swiftLanguageModes: [.v6]
)
