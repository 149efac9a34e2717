import Foundation
import KeychainCrypto
import KeychainCryptoOpenSSL
import KeychainStorageAgent
import KeychainStorageSQLite
import KeychainTPM
import Security

/// Security's backend on Linux: the SQLite storage, the OpenSSL key engine, the backup envelope and
/// OpenSSL's certificate parser and digests (see `SecurityBackend` for why Security does not
/// import them).
struct SQLiteOpenSSLBackend: SecurityBackend {
  func openStore(directory: URL, passphrase: String?, sealingToTPM: Bool) throws(KeychainStoreError)
    -> any ItemStorage
  {
    try SQLiteStorageEntry.open(
      directory: directory, passphrase: passphrase,
      sealing: KeyFileSealing(sealer: TPMKeyFileSealer(), sealsNewStores: sealingToTPM))
  }

  func connectAgent(socketPath: String, startingOnDemand: Bool) throws(SecStatus)
    -> (storage: any ItemStorage, session: StorageSession)
  {
    let storage = try AgentItemStorage(socketPath: socketPath, startingOnDemand: startingOnDemand)
    return (storage, storage.session)
  }

  var keyEngine: any KeyEngine { OpenSSLKeyEngine.shared }

  var secureEnclave: any SecureEnclaveEngine { TPMSecureEnclave() }

  func sealBackup(_ plaintext: Data, passphrase: String) throws(SecStatus) -> Data {
    var secret = Array(passphrase.utf8)
    defer { SecureBytes.wipe(&secret) }
    return Data(try BackupEnvelope.seal(Array(plaintext), passphrase: secret))
  }

  func openBackup(_ sealed: Data, passphrase: String) throws(SecStatus) -> Data {
    var secret = Array(passphrase.utf8)
    defer { SecureBytes.wipe(&secret) }
    var plaintext = try BackupEnvelope.open(Array(sealed), passphrase: secret)
    // The plaintext holds every exported secret: the copy handed on is the only one left.
    defer { SecureBytes.wipe(&plaintext) }
    return Data(plaintext)
  }

  func sealWithApplicationPassword(_ secret: Data, password: [UInt8]) throws(SecStatus) -> Data {
    Data(try BackupEnvelope.seal(Array(secret), passphrase: password, kind: .itemSecret))
  }

  func openWithApplicationPassword(_ sealed: Data, password: [UInt8]) throws(SecStatus) -> Data {
    var secret = try BackupEnvelope.open(Array(sealed), passphrase: password, kind: .itemSecret)
    defer { SecureBytes.wipe(&secret) }
    return Data(secret)
  }

  func certificateContents(_ bytes: Data) -> CertificateContents? {
    guard let fields = X509Certificate.fields(of: Array(bytes)) else { return nil }
    return CertificateContents(
      der: Data(fields.der), version: fields.version, serialNumber: Data(fields.serialNumber),
      issuer: Data(fields.issuer), subject: Data(fields.subject), subjectAttributes: fields.subjectAttributes,
      subjectKeyIdentifier: fields.subjectKeyIdentifier.map { Data($0) }, alternativeEmails: fields.alternativeEmails,
      alternativeDNSNames: fields.alternativeDNSNames, publicKeyAlgorithm: fields.publicKeyAlgorithm,
      publicKeyParameters: fields.publicKeyParameters, publicKeyBits: Data(fields.publicKeyBits),
      notBefore: fields.notBefore.map { Date(timeIntervalSince1970: TimeInterval($0)) },
      notAfter: fields.notAfter.map { Date(timeIntervalSince1970: TimeInterval($0)) })
  }

  func sha1(_ bytes: [UInt8]) throws(SecStatus) -> Data {
    do {
      return Data(try Insecure.SHA1.hash(data: bytes))
    } catch {
      throw SecStatus(errSecInternalComponent, detail: error.description)
    }
  }
}

/// Installs the backend in the Security module. CKeychainBackendInstaller's constructor calls it
/// when the program loads, before `main`, so the first SecItem call finds it; the call is by C
/// symbol because only C can run code at load time.
@c(KeychainBridge_installBackend)
func installBackend() {
  SecurityBackends.install(SQLiteOpenSSLBackend())
}
