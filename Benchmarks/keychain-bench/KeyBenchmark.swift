// Key operations (P-256 generate, sign, verify) through C, the raw API and the DSL.
import CKeychainBaseline
import Foundation
import Keychain
import Security

/// P-256 generate, sign and verify (ECDSA with SHA-256 of a 64-byte message): the C baseline
/// calls OpenSSL's EVP interface directly, raw calls SecKey, DSL calls PrivateKey / PublicKey.
enum KeyOperation: String, CaseIterable {
  case generate = "generate P-256", sign = "sign ECDSA P-256", verify = "verify ECDSA P-256"

  var count: Int { self == .generate ? 500 : 2000 }
}

func measureKeys() -> [KeyOperation: [String: Double]] {
  print("measuring key operations (\(rounds) rounds)...")
  let message = Data(repeating: 0x42, count: 64)
  let messageBytes = Array(message)
  let cKey = kb_baseline_ec_generate()!
  defer { kb_baseline_key_free(cKey) }
  var cSignature = [UInt8](repeating: 0, count: 72)
  let cLength = kb_baseline_ec_sign(cKey, messageBytes, messageBytes.count, &cSignature)
  let rawKey = SecKeyCreateRandomKey(
    [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256] as CFDictionary,
    nil)!
  let rawPublic = SecKeyCopyPublicKey(rawKey)!
  let rawSignature = SecKeyCreateSignature(rawKey, .ecdsaSignatureMessageX962SHA256, message as CFData, nil)!
  let dslKey = try! PrivateKey.generate(.p256).get()
  let dslPublic = dslKey.publicKey!
  let dslSignature = try! dslKey.signature(for: message, algorithm: .ecdsaSignatureMessageX962SHA256).get()
  let bodies: [KeyOperation: [String: () -> Bool]] = [
    .generate: [
      "C": {
        guard let key = kb_baseline_ec_generate() else { return false }
        kb_baseline_key_free(key)
        return true
      },
      "raw": {
        SecKeyCreateRandomKey(
          [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256]
            as CFDictionary, nil) != nil
      },
      "DSL": { (try? PrivateKey.generate(.p256).get()) != nil },
    ],
    .sign: [
      "C": {
        var signature = [UInt8](repeating: 0, count: 72)
        return kb_baseline_ec_sign(cKey, messageBytes, messageBytes.count, &signature) > 0
      },
      "raw": { SecKeyCreateSignature(rawKey, .ecdsaSignatureMessageX962SHA256, message as CFData, nil) != nil },
      "DSL": { (try? dslKey.signature(for: message, algorithm: .ecdsaSignatureMessageX962SHA256).get()) != nil },
    ],
    .verify: [
      "C": { kb_baseline_ec_verify(cKey, messageBytes, messageBytes.count, cSignature, Int(cLength)) == 1 },
      "raw": {
        SecKeyVerifySignature(rawPublic, .ecdsaSignatureMessageX962SHA256, message as CFData, rawSignature, nil)
      },
      "DSL": {
        (try? dslPublic.isValidSignature(dslSignature, for: message, algorithm: .ecdsaSignatureMessageX962SHA256).get())
          != nil
      },
    ],
  ]
  var figures: [KeyOperation: [String: Double]] = [:]
  for operation in KeyOperation.allCases {
    for name in ["C", "raw", "DSL"] {
      let body = bodies[operation]![name]!
      var perRound: [Double] = []
      for _ in 0..<rounds {
        let start = now()
        for _ in 0..<operation.count where !body() { fatalError("\(name) \(operation.rawValue) failed") }
        perRound.append(Double(operation.count) / (Double(now() - start) / 1e9))
      }
      figures[operation, default: [:]][name] = perRound.sorted()[perRound.count / 2]
    }
  }
  return figures
}

/// Measures the key operations, prints their table and returns their figures for the JSON.
func printKeyRows() -> [[String: Any]] {
  let keyFigures = measureKeys()
  print("\nkeys (median of \(rounds) rounds)")
  var keyJSON: [[String: Any]] = []
  var keyRows = [["operation", "C ops/s", "raw ops/s", "DSL ops/s", "raw/C", "DSL/raw"]]
  for operation in KeyOperation.allCases {
    let figures = keyFigures[operation]!
    keyRows.append([
      operation.rawValue, format(figures["C"]!), format(figures["raw"]!), format(figures["DSL"]!),
      String(format: "%.2f", figures["raw"]! / figures["C"]!),
      String(format: "%.2f", figures["DSL"]! / figures["raw"]!),
    ])
    for name in ["C", "raw", "DSL"] {
      keyJSON.append(["operation": operation.rawValue, "implementation": name, "opsPerSecond": figures[name]!])
    }
  }
  printTable(keyRows)
  return keyJSON
}
