import Foundation
import Keychain

// A token stored, changed and read back through the typed API, in the store KEYCHAIN_BRIDGE_HOME
// names. Exits non-zero on any unexpected result.
let token = GenericPassword().service("com.example.consumer").account("alice")
func check(_ condition: Bool, _ message: String) {
  guard condition else {
    FileHandle.standardError.write(Data("KeychainConsumer: \(message)\n".utf8))
    exit(1)
  }
}

check((try? token.set("first").get()) != nil, "set failed")
check((try? token.string().get()) == "first", "the first value did not read back")
check((try? token.set("second").get()) != nil, "a second set failed")
check((try? token.string().get()) == "second", "the second value did not read back")
check((try? token.delete().get()) == true, "delete did not find the item")
check((try? token.string().get()) == .some(nil), "the item is still there after delete")
print("KeychainConsumer: passed")
