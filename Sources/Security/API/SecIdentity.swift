import Foundation

/// Apple's `SecIdentity`: a certificate and the private key that matches it (keys rule 8).
///
/// Two identities are equal when their certificates and their keys are (keys rule 8.11).
public final class SecIdentity: Hashable, Sendable, CustomStringConvertible {
  let certificate: SecCertificate
  let privateKey: SecKey

  init(certificate: SecCertificate, privateKey: SecKey) {
    self.certificate = certificate
    self.privateKey = privateKey
  }

  /// Identities are equal when certificates and keys are.
  public static func == (lhs: SecIdentity, rhs: SecIdentity) -> Bool {
    lhs.certificate == rhs.certificate && lhs.privateKey == rhs.privateKey
  }

  /// Hashes the certificate and the key.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(certificate)
    hasher.combine(privateKey)
  }

  /// The certificate's description and the key's, without key material.
  public var description: String { "<SecIdentity \(certificate) \(privateKey)>" }
}

/// Makes an identity from a certificate and its private key, as Apple's `SecIdentityCreate`
/// does: nil when the key is not private or its public key is not the certificate's (keys rule 8.10).
@discardableResult
public func SecIdentityCreate(_ allocator: CFAllocator?, _ certificate: SecCertificate, _ privateKey: SecKey)
  -> SecIdentity?
{
  guard privateKey.isPrivate, let certificateKey = SecCertificateCopyKey(certificate),
    certificateKey.publicBytes == privateKey.publicBytes
  else { return nil }
  return SecIdentity(certificate: certificate, privateKey: privateKey)
}

/// The identity's certificate (keys rule 8.9).
@discardableResult
public func SecIdentityCopyCertificate(
  _ identityRef: SecIdentity, _ certificateRef: UnsafeMutablePointer<SecCertificate?>
) -> OSStatus {
  certificateRef.pointee = identityRef.certificate
  return errSecSuccess
}

/// The identity's private key (keys rule 8.9).
@discardableResult
public func SecIdentityCopyPrivateKey(_ identityRef: SecIdentity, _ privateKeyRef: UnsafeMutablePointer<SecKey?>)
  -> OSStatus
{
  privateKeyRef.pointee = identityRef.privateKey
  return errSecSuccess
}

/// Reads the identities of a PKCS#12 file, as Apple's `SecPKCS12Import` does (keys rules 9.1 to 9.7).
///
/// `options[kSecImportExportPassphrase]` is the passphrase (none means the empty one). `items`
/// receives a dictionary per identity: kSecImportItemIdentity, kSecImportItemCertChain (the
/// certificate, then the file's others), kSecImportItemTrust (a SecTrust over that chain with the
/// basic X.509 policy, evaluated when asked), and kSecImportItemLabel / kSecImportItemKeyID when the
/// file carries them (decision D8). As on
/// iOS, nothing is stored unless `options[kSecUseDataProtectionKeychain]` is true (decision D9);
/// then each identity and every certificate are added with the other options, duplicates
/// ignored, and the last failure of an add is returned.
///
/// - Returns: errSecSuccess, errSecAuthFailed for a wrong passphrase, errSecDecode for a file
///   that is not PKCS#12, has no MAC, or holds a key that is neither RSA nor EC or does not match
///   its certificate.
@discardableResult
public func SecPKCS12Import(
  _ pkcs12_data: CFData, _ options: CFDictionary, _ items: UnsafeMutablePointer<CFArray?>
) -> OSStatus {
  var settings: [String: Any] = [:]
  for (key, value) in options { if let key = key as? String { settings[key] = value } }
  var passphrase = ""
  if let given = settings[SecConstantValue.importExportPassphrase] {
    guard let text = ValueConversion.string(given) else { return errSecParam }
    passphrase = text
  }
  let identities: [PKCS12Identity]
  do {
    guard let engine = try? KeychainContext.current.resolvedBackend().keyEngine else { return errSecNotAvailable }
    identities = try engine.importPKCS12(pkcs12_data as Data, passphrase: passphrase)
  } catch {
    return error.status
  }
  var results: [NSDictionary] = []
  var toStore: [(identity: SecIdentity, chain: [SecCertificate])] = []
  for imported in identities {
    guard let certificate = SecCertificateCreateWithData(nil, imported.certificate as NSData),
      let key = try? SecKey(imported.key), let identity = SecIdentityCreate(nil, certificate, key)
    else { return errSecDecode }
    let chain = [certificate] + imported.chain.compactMap { SecCertificateCreateWithData(nil, $0 as NSData) }
    var entry: [String: Any] = [
      SecConstantValue.importItemIdentity: identity, SecConstantValue.importItemCertChain: chain as NSArray,
      SecConstantValue.importItemTrust: SecTrust(certificates: chain, policies: [SecPolicyCreateBasicX509()]),
    ]
    if let label = imported.label { entry[SecConstantValue.importItemLabel] = label as NSString }
    if let keyID = imported.keyID { entry[SecConstantValue.importItemKeyID] = keyID as NSData }
    results.append(entry as NSDictionary)
    toStore.append((identity, chain))
  }
  var status = errSecSuccess
  if let store = settings[SecConstantValue.useDataProtectionKeychain], ValueConversion.boolean(store) == true {
    var attributes = settings
    for key in [
      SecConstantValue.importExportPassphrase, SecConstantValue.importExportKeychain,
      SecConstantValue.importExportAccess, SecConstantValue.importToMemoryOnly,
      SecConstantValue.useDataProtectionKeychain,
    ] { attributes[key] = nil }
    // Stored by this call's service (the store and groups SecItemAdd would use), each item as
    // SecItemAdd's body adds it.
    do throws(SecStatus) {
      let service = try SecItemServices.forCurrentCall()
      for (identity, chain) in toStore {
        for item: AnyObject in [identity] + chain {
          var add = attributes
          add[SecConstantValue.valueRef] = item
          do throws(SecStatus) {
            if item is SecIdentity {
              _ = try service.addIdentity(try (add as NSDictionary).keychainEntries(), returningPair: false)
            } else {
              _ = try service.add(try ItemRequest(add as NSDictionary))
            }
          } catch {
            if error.code != errSecDuplicateItem { status = error.code }
          }
        }
      }
    } catch {
      status = error.code
    }
  }
  items.pointee = results as NSArray
  return status
}

/// Finds the identity of a certificate in the keychain, as macOS's `SecIdentityCreateWithCertificate`
/// does (decision D11): the private key whose application label is the certificate's public-key
/// hash, in the current store and access groups.
///
/// - Returns: errSecSuccess, errSecItemNotFound when no such key is stored, or errSecParam when
///   `keychainOrArray` is not nil (macOS's file keychains do not exist here).
@discardableResult
public func SecIdentityCreateWithCertificate(
  _ keychainOrArray: CFTypeRef?, _ certificateRef: SecCertificate, _ identityRef: UnsafeMutablePointer<SecIdentity?>
) -> OSStatus {
  guard keychainOrArray == nil else { return errSecParam }
  guard let publicKey = SecCertificateCopyKey(certificateRef) else { return errSecItemNotFound }
  let query: [String: Any] = [
    SecConstantValue.`class`: SecConstantValue.classKey, SecConstantValue.attrKeyClass: 1,
    SecConstantValue.attrApplicationLabel: publicKey.applicationLabel as NSData,
    SecConstantValue.attrSynchronizable: SecConstantValue.attrSynchronizableAny,
    SecConstantValue.returnRef: true,
  ]
  var result: CFTypeRef?
  let status = SecItemCopyMatching(query as NSDictionary, &result)
  guard status == errSecSuccess else { return status }
  guard let key = result as? SecKey, let identity = SecIdentityCreate(nil, certificateRef, key) else {
    return errSecItemNotFound
  }
  identityRef.pointee = identity
  return errSecSuccess
}
