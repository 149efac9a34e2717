// swift-tools-version: 6.1
// A package that depends on KeychainBridge as a user's would. The check script places it beside a
// link named keychain-bridge that points at the project, and builds it where no pkg-config file for
// libclang exists: the build must need nothing beyond the Swift toolchain and Debian's
// libsqlite3-dev and libssl-dev. KeychainConsumer uses the typed API (the Keychain product, whose
// build runs secgen through the plugin). swift-certificates' and swift-crypto's interplay with
// Security is checked in the project's own build (Tests/InteropTests), which builds swift-crypto
// already: here it would cost a second BoringSSL build.
import PackageDescription

let package = Package(
  name: "Consumer",
  dependencies: [
    .package(path: "../keychain-bridge")
  ],
  targets: [
    .executableTarget(
      name: "KeychainConsumer",
      dependencies: [.product(name: "Keychain", package: "keychain-bridge")]
    )
  ],
  swiftLanguageModes: [.v6]
)
