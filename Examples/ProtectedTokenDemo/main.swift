// A program written for iOS, exactly as an app protects its API token with user presence: it
// stores the token with `.userPresence` access control, authenticates the user once with an
// LAContext, reads the token through that context (twice: the second read does not ask again),
// and, after the context is invalidated, cannot read it through it any more. It compiles
// unchanged against KeychainBridge's `Security` and `LocalAuthentication` modules.
import Foundation
import LocalAuthentication
import Security

let service = "com.example.protected-token"
let account = "api"

func fail(_ step: String, _ status: OSStatus) -> Never {
  let message = SecCopyErrorMessageString(status, nil) as String? ?? "unknown"
  print("\(step): failed with \(status) (\(message))")
  exit(1)
}

func readToken(with context: LAContext) -> (OSStatus, String?) {
  let query: [String: Any] = [
    kSecClass as String: kSecClassGenericPassword,
    kSecAttrService as String: service,
    kSecAttrAccount as String: account,
    kSecReturnData as String: true,
    kSecUseAuthenticationContext as String: context,
  ]
  var result: CFTypeRef?
  let status = SecItemCopyMatching(query as CFDictionary, &result)
  return (status, (result as? Data).flatMap { String(data: $0, encoding: .utf8) })
}

// First launch: store the token, readable only after the user proves their presence.
SecItemDelete([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service] as CFDictionary)
var accessError: Unmanaged<CFError>?
guard
  let access = SecAccessControlCreateWithFlags(
    kCFAllocatorDefault, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, .userPresence, &accessError)
else {
  print("cannot create the access control: \(accessError!.takeRetainedValue())")
  exit(1)
}
let token = "tok_" + UUID().uuidString
let add: [String: Any] = [
  kSecClass as String: kSecClassGenericPassword,
  kSecAttrService as String: service,
  kSecAttrAccount as String: account,
  kSecAttrAccessControl as String: access,
  kSecValueData as String: Data(token.utf8),
]
let added = SecItemAdd(add as CFDictionary, nil)
guard added == errSecSuccess else { fail("add the token", added) }
print("stored the token with user presence")

// Later: authenticate once, then use the context for the reads.
let context = LAContext()
context.localizedCancelTitle = "Not now"
var policyError: NSError?
guard context.canEvaluatePolicy(.deviceOwnerAuthentication, error: &policyError) else {
  print("cannot authenticate: \(policyError?.localizedDescription ?? "unknown")")
  exit(1)
}
let semaphore = DispatchSemaphore(value: 0)
nonisolated(unsafe) var evaluation: (Bool, Error?) = (false, nil)
context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "Sign in to your account") { success, error in
  evaluation = (success, error)
  semaphore.signal()
}
semaphore.wait()
guard evaluation.0 else {
  if let error = evaluation.1 as? LAError {
    print("authentication failed: LAError \(error.code.rawValue) (\(error.localizedDescription))")
  } else {
    print("authentication failed: \(String(describing: evaluation.1))")
  }
  // Without the user, the token stays where it is: a read that may not prompt is refused.
  context.interactionNotAllowed = true
  let (status, value) = readToken(with: context)
  print("read without the user: \(status)\(value == nil ? "" : " READ THE TOKEN")")
  exit(2)
}
print("authenticated")

let (first, firstValue) = readToken(with: context)
guard first == errSecSuccess, firstValue == token else { fail("first read", first) }
print("first read: the token")
let (second, secondValue) = readToken(with: context)
guard second == errSecSuccess, secondValue == token else { fail("second read", second) }
print("second read: the token, without asking again")

context.invalidate()
let (afterInvalidate, leaked) = readToken(with: context)
guard afterInvalidate != errSecSuccess, leaked == nil else {
  print("read after invalidate: the token (it should have failed)")
  exit(1)
}
print("read after invalidate: refused with \(afterInvalidate)")
