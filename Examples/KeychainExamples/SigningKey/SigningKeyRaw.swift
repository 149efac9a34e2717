import Foundation
import Security

/// The same task with Apple's raw API, as an iOS app signs requests with a key it keeps.
extension SigningKeyExample {
  public static let rawSource = #filePath

  static let tag = Data("com.example.signing".utf8)

  public static func raw(_ environment: ExampleEnvironment) -> [String] {
    var error: Unmanaged<CFError>?
    let parameters: [String: Any] = [
      kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
    ]
    guard let key = SecKeyCreateRandomKey(parameters as CFDictionary, &error), let publicKey = SecKeyCopyPublicKey(key)
    else { return ["generate: failed"] }
    var log = ["generate: ok"]
    let attributes: [String: Any] = [
      kSecValueRef as String: key, kSecAttrApplicationTag as String: tag, kSecAttrLabel as String: "API signing key",
    ]
    log.append("store: \(describe(SecItemAdd(attributes as CFDictionary, nil)))")
    log.append("store again: \(describe(SecItemAdd(attributes as CFDictionary, nil)))")

    let query: [String: Any] = [
      kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag, kSecReturnRef as String: true,
      kSecMatchLimit as String: kSecMatchLimitOne,
    ]
    var result: CFTypeRef?
    guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess, let found = result as? SecKey else {
      return log + ["find: failed"]
    }
    log.append("found the same key: \(found == key)")
    guard
      let signature = SecKeyCreateSignature(found, .ecdsaSignatureMessageX962SHA256, message as CFData, &error)
        as Data?
    else {
      return log + ["sign: error \(error.map { CFErrorGetCode($0.takeRetainedValue()) } ?? 0)"]
    }
    log.append("sign: ok, \(signature.count > 64 ? "DER" : "short") signature")
    log.append("verify: \(verify(publicKey, message, signature))")
    log.append("verify another message: \(verify(publicKey, Data("POST /v1/refunds".utf8), signature))")
    return log
  }

  /// "ok", or "error <code>" from the CFError, as `describe` words a status.
  static func verify(_ publicKey: SecKey, _ data: Data, _ signature: Data) -> String {
    var error: Unmanaged<CFError>?
    if SecKeyVerifySignature(publicKey, .ecdsaSignatureMessageX962SHA256, data as CFData, signature as CFData, &error) {
      return "ok"
    }
    return "error \(error.map { CFErrorGetCode($0.takeRetainedValue()) } ?? 0)"
  }
}
