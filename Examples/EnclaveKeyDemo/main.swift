// A program written for iOS, exactly as an app makes a Secure Enclave signing key: it creates a
// P-256 key in the enclave with an access control, stores it permanently, finds it again by its
// application tag, signs a message, checks that the private key cannot be exported, and sends the
// public key away (prints it). It compiles unchanged against KeychainBridge's `Security`, where the
// enclave is the machine's TPM 2.0 (KEYCHAIN_BRIDGE_TCTI, else /dev/tpmrm0).
import Foundation
import Security

let tag = "com.example.enclave.signing".data(using: .utf8)!
let message = CommandLine.arguments.dropFirst().first.map { Data($0.utf8) } ?? Data("hello from the enclave".utf8)

func fail(_ step: String, _ error: Unmanaged<CFError>?) -> Never {
  print("\(step) failed: \(error.map { String(describing: $0.takeRetainedValue()) } ?? "no error")")
  exit(1)
}

func hex(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }

SecItemDelete([kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag] as CFDictionary)

var error: Unmanaged<CFError>?
guard
  let access = SecAccessControlCreateWithFlags(
    kCFAllocatorDefault, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, .privateKeyUsage, &error)
else { fail("SecAccessControlCreateWithFlags", error) }

let attributes: [String: Any] = [
  kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
  kSecAttrKeySizeInBits as String: 256,
  kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave,
  kSecPrivateKeyAttrs as String: [
    kSecAttrIsPermanent as String: true,
    kSecAttrApplicationTag as String: tag,
    kSecAttrAccessControl as String: access,
  ],
]
guard SecKeyCreateRandomKey(attributes as CFDictionary, &error) != nil else { fail("SecKeyCreateRandomKey", error) }
print("created a Secure Enclave key")

let query: [String: Any] = [
  kSecClass as String: kSecClassKey,
  kSecAttrApplicationTag as String: tag,
  kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
  kSecReturnRef as String: true,
]
var item: CFTypeRef?
let found = SecItemCopyMatching(query as CFDictionary, &item)
guard found == errSecSuccess, let item else {
  print("finding the key failed: \(found)")
  exit(1)
}
let privateKey = item as! SecKey
print("found it by its tag")

guard SecKeyIsAlgorithmSupported(privateKey, .sign, .ecdsaSignatureMessageX962SHA256) else {
  print("the key cannot sign")
  exit(1)
}
guard let signature = SecKeyCreateSignature(privateKey, .ecdsaSignatureMessageX962SHA256, message as CFData, &error)
else { fail("SecKeyCreateSignature", error) }
print("signature: \(hex(signature as Data))")

if SecKeyCopyExternalRepresentation(privateKey, &error) != nil {
  print("the private key was exported")
  exit(1)
}
print("the private key cannot be exported")

guard let publicKey = SecKeyCopyPublicKey(privateKey),
  let publicData = SecKeyCopyExternalRepresentation(publicKey, &error)
else { fail("exporting the public key", error) }
guard SecKeyVerifySignature(publicKey, .ecdsaSignatureMessageX962SHA256, message as CFData, signature, &error) else {
  fail("SecKeyVerifySignature", error)
}
print("public key: \(hex(publicData as Data))")
