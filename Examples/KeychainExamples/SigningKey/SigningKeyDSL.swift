import Foundation
import Keychain

/// Example 8: generate a signing key, keep it in the keychain, find it later and sign with it.
public enum SigningKeyExample: KeychainExample {
  public static let name = "signing-key"
  public static let title = "Store a signing key (P-256) and sign with it after finding it by its tag"
  public static let dslSource = #filePath

  static let stored = KeyQuery().applicationTag(Data("com.example.signing".utf8))
  static let message = Data("POST /v1/orders".utf8)

  public static func dsl(_ environment: ExampleEnvironment) -> [String] {
    guard case .success(let key) = PrivateKey.generate(.p256), let publicKey = key.publicKey else {
      return ["generate: failed"]
    }
    var log = ["generate: ok"]
    log.append("store: \(describe(stored.label("API signing key").add(key)))")
    log.append("store again: \(describe(stored.label("API signing key").add(key)))")
    guard case .success(let found?) = stored.privateKey() else { return log + ["find: failed"] }
    log.append("found the same key: \(found == key)")
    let signed = found.signature(for: message, algorithm: .ecdsaSignatureMessageX962SHA256)
    guard case .success(let signature) = signed else { return log + ["sign: \(describe(signed))"] }
    log.append("sign: ok, \(signature.count > 64 ? "DER" : "short") signature")
    let verdict = publicKey.isValidSignature(signature, for: message, algorithm: .ecdsaSignatureMessageX962SHA256)
    log.append("verify: \(describe(verdict))")
    let forged = publicKey.isValidSignature(
      signature, for: Data("POST /v1/refunds".utf8), algorithm: .ecdsaSignatureMessageX962SHA256)
    log.append("verify another message: \(describe(forged))")
    return log
  }
}
