import Foundation

/// What the storage target gives the API layer: stores to open, and the two libcrypto services the
/// Apple API itself needs (random bytes, certificate parsing).
package protocol StoreBackend {
  /// Opens (creating if needed) the store in `directory`.
  static func openStore(directory: URL, passphrase: String?) throws(KeychainStoreError) -> any ItemStore

  /// Fills `buffer` from a cryptographically secure generator; false when the generator fails.
  static func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) -> Bool

  /// Whether `bytes` are exactly one DER-encoded X.509 certificate.
  static func isSingleDERCertificate(_ bytes: Data) -> Bool
}

/// The backend linked into the `Security` product, defined by the KeychainStoreSQLite target.
///
/// Why a link-time seam instead of `import KeychainStoreSQLite`: Swift makes every importer of a
/// module load that module's imports, and the store's imports include C modules (SQLite through
/// GRDB, OpenSSL) whose module maps only targets that declare them can find. Packages that test
/// `#if canImport(Security)` and then import it without declaring it (swift-certificates does)
/// would fail to compile. With this seam the Security module depends on Foundation alone.
@_silgen_name("KeychainBridge_linkedStoreBackend")
package func linkedStoreBackend() -> any StoreBackend.Type
