import Foundation
import Security
import Testing

/// SecItemUpsert: the one-transaction update-or-add the typed API's `set` lowers to.
@Suite struct Upsert {
  private func upsert(_ query: [String: Any], _ attributes: [String: Any]) -> OSStatus {
    SecItemUpsert(query as CFDictionary, attributes as CFDictionary)
  }

  @Test func anAbsentItemIsAddedWithTheQueryAndTheNewAttributes() throws {
    try withFreshStore { _ in
      #expect(
        upsert(genp([kSecAttrLabel as String: "L"]), [kSecValueData as String: Data(utf8: "v1")]) == errSecSuccess)
      #expect(readData(genp()) == Data(utf8: "v1"))
      #expect(readAttributes(genp())?[kSecAttrLabel as String] as? String == "L")
    }
  }

  @Test func aPresentItemIsUpdatedKeepingItsReference() throws {
    try withFreshStore { _ in
      let ref = try #require(
        addReturning(genp([kSecReturnPersistentRef as String: true, kSecValueData as String: Data(utf8: "v1")])).1
          as? Data)
      #expect(upsert(genp(), [kSecValueData as String: Data(utf8: "v2")]) == errSecSuccess)
      #expect(readData([kSecValuePersistentRef as String: ref]) == Data(utf8: "v2"))
      #expect(count([kSecClass as String: kSecClassGenericPassword]) == 1)
    }
  }

  @Test func aFailedUpsertKeepsTheOldItem() throws {
    try withFreshStore { store in
      add(genp([kSecValueData as String: Data(utf8: "precious")]))
      store.lock()
      #expect(upsert(genp(), [kSecValueData as String: Data(utf8: "lost?")]) == errSecInteractionNotAllowed)
      store.unlock()
      #expect(readData(genp()) == Data(utf8: "precious"))
      #expect(upsert(genp(), [kSecValueData as String: "not data"]) == errSecParam)
      #expect(readData(genp()) == Data(utf8: "precious"))
    }
  }
}
