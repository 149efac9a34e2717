// A program that links the Security target without its store, as a package would that depends on
// the target instead of the Security product. It must build, and its first keychain call must fail
// with a status and a sentence saying what is missing. SecurityTests runs it.
import Foundation
import Security

setenv("KEYCHAIN_BRIDGE_HOME", CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "/nonexistent", 1)
setenv("KEYCHAIN_BRIDGE_ACCESS_GROUPS", "alone.group", 1)
let status = SecItemAdd(
  [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "a", kSecValueData as String: Data([1])]
    as CFDictionary, nil)
print("add \(status)")
print("message \((SecCopyErrorMessageString(status, nil) as String?) ?? "none")")
var bytes = [UInt8](repeating: 0, count: 32)
print("random \(SecRandomCopyBytes(kSecRandomDefault, bytes.count, &bytes))")
print("certificate \(SecCertificateCreateWithData(nil, Data([0x30, 0x00]) as CFData) == nil ? "nil" : "made")")
var keyError: Unmanaged<CFError>?
let key = SecKeyCreateRandomKey(
  [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256] as CFDictionary,
  &keyError)
print("key \(key == nil ? "nil" : "made") \(keyError.map { CFErrorGetCode($0.takeRetainedValue()) } ?? 0)")
