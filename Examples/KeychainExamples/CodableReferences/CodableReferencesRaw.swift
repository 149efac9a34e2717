import Foundation
import Security

/// Codable objects stored as JSON and handled by persistent reference, with the raw Security API.
struct RawNoteStore {
  let service = "com.example.notes"

  func add(_ note: Note, id: String) -> (status: OSStatus, reference: Data?) {
    let attributes: [String: Any] = [
      kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
      kSecAttrAccount as String: id, kSecValueData as String: note.json,
      kSecReturnPersistentRef as String: true,
    ]
    var result: CFTypeRef?
    let status = SecItemAdd(attributes as CFDictionary, &result)
    return (status, result as? Data)
  }

  func all() -> [(reference: Data, note: Note)] {
    let query: [String: Any] = [
      kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
      kSecReturnAttributes as String: true, kSecReturnPersistentRef as String: true, kSecReturnData as String: true,
      kSecMatchLimit as String: kSecMatchLimitAll,
    ]
    var result: CFTypeRef?
    guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess, let items = result as? [[String: Any]]
    else { return [] }
    return items.compactMap { item in
      guard let reference = item[kSecValuePersistentRef as String] as? Data,
        let data = item[kSecValueData as String] as? Data, let note = try? JSONDecoder().decode(Note.self, from: data)
      else { return nil }
      return (reference, note)
    }
  }

  func find(_ reference: Data) -> Note? {
    let query: [String: Any] = [
      kSecClass as String: kSecClassGenericPassword, kSecValuePersistentRef as String: reference,
      kSecReturnData as String: true, kSecMatchLimit as String: kSecMatchLimitOne,
    ]
    var result: CFTypeRef?
    guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess, let data = result as? Data else {
      return nil
    }
    return try? JSONDecoder().decode(Note.self, from: data)
  }

  func update(_ reference: Data, to note: Note) -> OSStatus {
    let query: [String: Any] = [
      kSecClass as String: kSecClassGenericPassword, kSecValuePersistentRef as String: reference,
    ]
    let changes: [String: Any] = [kSecValueData as String: note.json]
    return SecItemUpdate(query as CFDictionary, changes as CFDictionary)
  }

  func delete(_ reference: Data) -> OSStatus {
    SecItemDelete(
      [kSecClass as String: kSecClassGenericPassword, kSecValuePersistentRef as String: reference] as CFDictionary)
  }

  func deleteAll() -> OSStatus {
    SecItemDelete([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service] as CFDictionary)
  }
}

extension CodableReferencesExample {
  public static let rawSource = #filePath

  public static func raw(_ environment: ExampleEnvironment) -> [String] {
    let store = RawNoteStore()
    var log: [String] = []
    var references: [Data] = []
    for (index, note) in notes.enumerated() {
      let (status, reference) = store.add(note, id: "note-\(index)")
      log.append("add \(note.title): \(describe(status)), reference of \(reference?.count ?? 0) bytes")
      if let reference { references.append(reference) }
    }
    log.append("all: " + store.all().map(\.note.title).joined(separator: ", "))
    log.append("all references match: \(store.all().map(\.reference) == references)")
    log.append("find second: \(store.find(references[1])?.title ?? "absent")")
    log.append("update second: \(describe(store.update(references[1], to: Note(title: "Groceries", body: "eggs"))))")
    log.append("find second: \(store.find(references[1]).map { "\($0.title): \($0.body)" } ?? "absent")")
    log.append("delete first: \(describe(store.delete(references[0])))")
    log.append("find first: \(store.find(references[0])?.title ?? "absent")")
    log.append("delete all: \(describe(store.deleteAll()))")
    log.append("all: \(store.all().count) notes")
    return log
  }
}
