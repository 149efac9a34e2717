import Foundation
import KeychainTPM
import Security
import SoftwareTPM

/// Secure Enclave keys on a software TPM (issue 33): sign and key agreement run inside swtpm,
/// each a round trip over loopback to the TPM process. Informational: a real TPM chip is slower
/// still (a few to tens of milliseconds an operation), and no target is set.
func printEnclaveRows() {
  guard FileManager.default.isExecutableFile(atPath: "/usr/bin/swtpm") else {
    print("\nSecure Enclave on swtpm: skipped (no /usr/bin/swtpm; make installs it)")
    return
  }
  do {
    let tpm = try SoftwareTPM()
    defer { tpm.stop() }
    let figures = try TPMConnections.$chosenTCTI.withValue(tpm.tcti) { () throws -> [(String, Double)] in
      var error: Unmanaged<CFError>?
      guard
        let key = SecKeyCreateRandomKey(
          [
            kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
            kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave,
          ] as CFDictionary, &error),
        let peer = SecKeyCreateRandomKey(
          [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256]
            as CFDictionary, nil),
        let peerPublic = SecKeyCopyPublicKey(peer)
      else {
        throw BenchError("no enclave key: \(String(describing: error?.takeRetainedValue()))")
      }
      let message = Data(repeating: 0x42, count: 64) as CFData
      let bodies: [(String, () -> Bool)] = [
        (
          "sign ECDSA P-256 in the TPM",
          { SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, message, nil) != nil }
        ),
        (
          "ECDH P-256 in the TPM",
          {
            SecKeyCopyKeyExchangeResult(key, .ecdhKeyExchangeStandard, peerPublic, [:] as CFDictionary, nil) != nil
          }
        ),
      ]
      return try bodies.map { name, body in
        var perRound: [Double] = []
        for _ in 0..<rounds {
          let start = now()
          for _ in 0..<100 where !body() { throw BenchError("\(name) failed") }
          perRound.append(100 / (Double(now() - start) / 1e9))
        }
        return (name, perRound.sorted()[perRound.count / 2])
      }
    }
    print("\nSecure Enclave on swtpm (informational; median of \(rounds) rounds of 100)")
    for (name, rate) in figures {
      print(
        "\(name.padding(toLength: 28, withPad: " ", startingAt: 0))  \(format(rate)) ops/s  (\(String(format: "%.2f", 1000 / rate)) ms each)"
      )
    }
  } catch {
    print("\nSecure Enclave on swtpm: not measured (\(error))")
  }
}
