import Foundation
import Keychain

/// Codable objects stored as JSON and handled by persistent reference, with the DSL.
struct NoteStore {
  let notes = GenericPassword().service("com.example.notes")

  func add(_ note: Note, id: String) -> Result<PersistentReference, KeychainError> {
    notes.account(id).addReturningReference(note.json)
  }

  func all() -> [(reference: PersistentReference, note: Note)] {
    let items = (try? notes.all(includingData: true).get()) ?? []
    return items.compactMap { item in
      guard let reference = item.persistentReference, let data = item.data,
        let note = try? JSONDecoder().decode(Note.self, from: data)
      else { return nil }
      return (reference, note)
    }
  }

  func find(_ reference: PersistentReference) -> Note? {
    try? GenericPassword(reference: reference).decode(Note.self).get()
  }

  func update(_ reference: PersistentReference, to note: Note) -> Result<Bool, KeychainError> {
    GenericPassword(reference: reference).update(data: note.json)
  }

  func delete(_ reference: PersistentReference) -> Result<Bool, KeychainError> {
    GenericPassword(reference: reference).delete()
  }

  func deleteAll() -> Result<Bool, KeychainError> { notes.delete() }
}

/// Example 3: Codable objects with persistent references.
public enum CodableReferencesExample: KeychainExample {
  public static let name = "codable-references"
  public static let title = "Codable objects as JSON with persistent refs: add, list, find/update/delete by ref"
  public static let dslSource = #filePath

  static let notes = [Note(title: "Shopping", body: "milk"), Note(title: "Errands", body: "post office")]

  public static func dsl(_ environment: ExampleEnvironment) -> [String] {
    let store = NoteStore()
    var log: [String] = []
    var references: [PersistentReference] = []
    for (index, note) in notes.enumerated() {
      let result = store.add(note, id: "note-\(index)")
      let size = (try? result.get())?.data.count ?? 0
      log.append("add \(note.title): \(describe(result)), reference of \(size) bytes")
      if let reference = try? result.get() { references.append(reference) }
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
