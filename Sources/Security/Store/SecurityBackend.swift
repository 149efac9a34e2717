import Foundation
import Synchronization

// Why Security has a backend it does not import. Security's backend (the SQLite store, the OpenSSL
// key engine, the backup cipher, the certificate parser) imports C modules: SQLite's and OpenSSL's.
// A Swift module built without library evolution makes every importer load its imports, even
// `internal import`s, and a C module's map is only found by targets that declare the module. So
// if Security imported its backend, a package that compiles against Security under
// `#if canImport(Security)` without declaring it (swift-certificates does) would fail with
// "missing required module 'COpenSSL'" (tried: Architecture.md, "The backend seam").
// `@_implementationOnly` hides the import but warns that it is unsafe without library evolution.
//
// So the dependency is inverted: the backend module depends on Security, and Security finds the
// backend by its type's name the first time an edge asks for it (`SecurityBackends.linked`). Nothing
// runs when the program loads (no constructor, no registration): the Swift runtime's type metadata
// of every linked module is searchable by mangled name (`_typeByName`, which swift-corelibs-foundation's
// `NSClassFromString` also uses), in an executable whose symbols are not exported and in a release
// build's stripped link alike, provided the type is not internal (a release build emits an
// internal type's metadata only where it is used; SQLiteOpenSSLBackend says so). A program that links Security alone has no backend, and its first
// call that needs one fails with a sentence saying what to add.
//
// Only this file reads it, as the default of a call's context (`KeychainContext.resolvedBackend`):
// Apple's functions, whose signatures take no context (SecKeyCreateRandomKey,
// SecCertificateCreateWithData, SecPKCS12Import, the SecItem functions), take the backend of their
// task's context, which is the one `withKeychainBackend` gives, else the one that opened the
// context's store, else the linked one. What those edges make carries the backend it was made with
// (a SecCertificate, a SecTrust, a SecKey, a store, an engine), so later calls on it read no global.

/// What the Security module needs from the code that links C libraries: one value with the entry
/// points of storage, keys, backups, application passwords, certificates and trust.
package protocol SecurityBackend: Sendable {
  /// Opens (creating it if needed) the store in `directory`; see `KeychainStore.init`. A new store's
  /// key file is sealed to the machine's TPM when `sealingToTPM`; an existing sealed one is
  /// unsealed whatever it says.
  func openStore(directory: URL, passphrase: String?, sealingToTPM: Bool) throws(KeychainStoreError)
    -> any ItemStorage

  /// The store `keychaind` serves at `socketPath` (KEYCHAIN_BRIDGE_AGENT): errSecNotAvailable,
  /// saying how to start the agent, when nothing answers there. With `startingOnDemand`
  /// (KEYCHAIN_BRIDGE_AGENT=auto) an agent that does not answer is started first. The link says
  /// what the agent decided about this program (its groups, its idle lock).
  func connectAgent(socketPath: String, startingOnDemand: Bool) throws(SecStatus) -> any KeychainAgentLink

  /// The engine SecKey performs its primitives with.
  var keyEngine: any KeyEngine { get }

  /// The token behind kSecAttrTokenIDSecureEnclave (a TPM 2.0, issue 33).
  var secureEnclave: any SecureEnclaveEngine { get }

  /// A backup file holding `plaintext`, sealed under `passphrase` (scrypt and AES-256-GCM).
  func sealBackup(_ plaintext: Data, passphrase: String) throws(SecStatus) -> Data

  /// The plaintext of a backup file: errSecDecode when the bytes are no backup or are cut short,
  /// errSecAuthFailed for a wrong passphrase or an altered file.
  func openBackup(_ sealed: Data, passphrase: String) throws(SecStatus) -> Data

  /// `secret` (an item's data) sealed under a key scrypt derives from the item's application
  /// password, with AES-256-GCM: the password is needed to read it, not only checked.
  func sealWithApplicationPassword(_ secret: Data, password: [UInt8]) throws(SecStatus) -> Data

  /// What `sealWithApplicationPassword` sealed: errSecAuthFailed for a wrong password or altered
  /// bytes, errSecDecode for bytes that are no such envelope.
  func openWithApplicationPassword(_ sealed: Data, password: [UInt8]) throws(SecStatus) -> Data

  /// The fields of the first X.509 certificate in `bytes` (DER), as OpenSSL's parser reads them;
  /// nil when it does not parse.
  func certificateContents(_ bytes: Data) -> CertificateContents?

  /// Apple's normalization of a DER Name (keys rule 7.11): its content and its whole SEQUENCE;
  /// nil when the bytes are not exactly one Name.
  func normalizedName(_ der: Data) -> (content: Data, sequence: Data)?

  /// Validates a certificate chain for SecTrust (OpenSSL's X509_verify_cert in the backend).
  func evaluateTrust(_ request: TrustRequest) -> TrustOutcome

  /// SHA-1 of `bytes`, for Apple's fingerprint attributes (the `sha1` attribute, a key's
  /// application label, a certificate's public-key hash): never a security boundary.
  func sha1(_ bytes: [UInt8]) throws(SecStatus) -> Data
}

/// The backend a program links, which its edges build their default context from.
package protocol LinkedSecurityBackend: SecurityBackend {
  /// The backend with its defaults (the machine's TPM, OpenSSL's providers).
  init()
}

/// The backend linked into this program.
package enum SecurityBackends {
  /// The mangled name of KeychainBackend's `SQLiteOpenSSLBackend` (a struct: the trailing `V`).
  /// `SecurityBackendInstallation.theLinkedBackendIsFoundByNameAndOpensTheStore` fails if the type is renamed or moved.
  package static let linkedTypeName = "15KeychainBackend20SQLiteOpenSSLBackendV"

  /// The backend KeychainBackend provides, made once on first use; nil when the program links
  /// Security alone. Read in this file only, as a context's default (see the comment at the top).
  fileprivate static let linked: (any SecurityBackend)? =
    (_typeByName(linkedTypeName) as? any LinkedSecurityBackend.Type)?.init()

  /// What a call that needs the backend answers when there is none.
  package static let notLinkedMessage =
    "No keychain store is linked into this program: depend on the Security product of KeychainBridge, which brings "
    + "the SQLite store and the OpenSSL key engine, not on the Security target alone."

  /// The linked backend, or errSecNotAvailable saying what to add. For tests, which check the
  /// lookup and build engines of their own; the product's code reads a context's
  /// (`KeychainContext.resolvedBackend`), and `ContextBackendTests` holds that.
  package static func required() throws(SecStatus) -> any SecurityBackend {
    guard let backend = linked else { throw SecStatus(errSecNotAvailable, detail: notLinkedMessage) }
    return backend
  }
}

extension KeychainContext {
  /// The backend a call in this context runs with: the context's own (`withKeychainBackend`), else
  /// the one that opened `store` (the context's store when not given), else the linked one.
  func resolvedBackend(for store: KeychainStore? = nil) throws(SecStatus) -> any SecurityBackend {
    if let backend { return backend }
    if let backend = (store ?? self.store)?.backend { return backend }
    guard let linked = SecurityBackends.linked else {
      throw SecStatus(errSecNotAvailable, detail: SecurityBackends.notLinkedMessage)
    }
    return linked
  }

  /// `resolvedBackend`, failing as a store's opening fails.
  func storeBackend() throws(KeychainStoreError) -> any SecurityBackend {
    do {
      return try resolvedBackend()
    } catch {
      throw KeychainStoreError(status: error.code, message: error.detail ?? SecurityBackends.notLinkedMessage)
    }
  }

  /// `resolvedBackend`, failing as a key function fails.
  func keyBackend() throws(KeyOperationFailure) -> any SecurityBackend {
    do {
      return try resolvedBackend()
    } catch {
      throw KeyOperationFailure(error.code, error.detail ?? SecurityBackends.notLinkedMessage)
    }
  }
}

/// Runs `body` with Apple's functions in it (on this task) running with `backend`: the keys,
/// certificates and stores they make, and the SecItem calls on a store it opens. Two contexts side
/// by side use two backends; nothing is installed.
package func withKeychainBackend<T>(_ backend: any SecurityBackend, _ body: () throws -> T) rethrows -> T {
  var context = KeychainContext.current
  context.backend = backend
  return try KeychainContext.$current.withValue(context, operation: body)
}
