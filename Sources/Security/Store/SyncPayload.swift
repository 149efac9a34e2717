import Foundation

/// The plaintext of a live sync record: one item in the form a backup keeps it (every attribute
/// with its stored type, the access control and the secret), as a binary property list.
///
/// Decoding applies the rules a restore applies (the class's attributes only, a valid
/// accessibility, an access control matching it, the size limits), and the sync rules: the item
/// must be synchronizable and may not be ThisDeviceOnly. Dates travel with the item, so every store
/// of a group holds the same values.
package enum SyncPayload {
  private struct Envelope: Codable {
    var version: Int
    var item: BackupPayload.Item
  }

  private static let currentVersion = 1

  /// The bytes a record seals for `item`, which must have been read with attributes and data.
  package static func encode(_ item: StoredItem) throws(SecStatus) -> Data {
    let encoder = PropertyListEncoder()
    encoder.outputFormat = .binary
    do {
      return try encoder.encode(Envelope(version: currentVersion, item: BackupPayload.Item(item)))
    } catch {
      throw SecStatus(errSecInternalComponent, detail: "Sync: an item could not be encoded")
    }
  }

  /// The item a record's plaintext holds, checked and completed as the store adds it.
  package static func decode(_ plaintext: Data) throws(SecStatus) -> NewItem {
    let envelope: Envelope
    do {
      envelope = try PropertyListDecoder().decode(Envelope.self, from: plaintext)
    } catch {
      throw SecStatus(errSecDecode, detail: "the record's contents are not an item this version can read")
    }
    guard envelope.version == currentVersion else {
      throw SecStatus(errSecDecode, detail: "the record's contents are format \(envelope.version)")
    }
    let item = try envelope.item.newItem(nil)
    guard item.index.synchronizable == 1 else {
      throw SecStatus(errSecDecode, detail: "the record holds an item that is not synchronizable")
    }
    return item
  }

  /// Whether items with this accessibility may leave the store (never the ThisDeviceOnly ones).
  package static func mayLeaveDevice(protection: String) -> Bool {
    !BackupPayload.deviceOnlyProtections.contains(protection)
  }
}
