import Foundation
import Security

/// The same task with Apple's raw API, as an iOS app loads a client certificate for TLS.
extension ClientIdentityExample {
  public static let rawSource = #filePath

  public static func raw(_ environment: ExampleEnvironment) -> [String] {
    var items: CFArray?
    let wrong = SecPKCS12Import(file as CFData, [kSecImportExportPassphrase as String: "guess"] as CFDictionary, &items)
    var log = ["import with a wrong passphrase: \(describe(wrong))"]
    let status = SecPKCS12Import(
      file as CFData, [kSecImportExportPassphrase as String: "example"] as CFDictionary, &items)
    guard status == errSecSuccess, let first = (items as? [[String: Any]])?.first,
      let identity = first[kSecImportItemIdentity as String].map({ $0 as AnyObject }) as? SecIdentity
    else { return log + ["import: failed"] }
    log.append(
      "import: \((items as? [Any])?.count ?? 0) identity, label \(first[kSecImportItemLabel as String] as? String ?? "none")"
    )
    // Written as Apple's code writes it: the status unread, which compiles without a warning (Swift
    // imports C functions as discardable, and so are these).
    var certificate: SecCertificate?
    SecIdentityCopyCertificate(identity, &certificate)
    var privateKey: SecKey?
    SecIdentityCopyPrivateKey(identity, &privateKey)
    guard privateKey != nil else { return log + ["private key: missing"] }
    log.append(
      "certificate: \(certificate.flatMap { SecCertificateCopySubjectSummary($0) as String? } ?? "no summary")")
    let add = [kSecValueRef as String: identity] as CFDictionary
    log.append("store: \(describe(SecItemAdd(add, nil)))")
    log.append("store again: \(describe(SecItemAdd(add, nil)))")
    let query: [String: Any] = [
      kSecClass as String: kSecClassIdentity, kSecAttrLabel as String: "Example Client",
      kSecReturnRef as String: true, kSecMatchLimit as String: kSecMatchLimitOne,
    ]
    var result: CFTypeRef?
    guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess, let found = result as? SecIdentity
    else {
      return log + ["find: failed"]
    }
    log.append("found the same identity: \(found == identity)")
    return log
  }
}
