import Foundation
import KeychainCrypto
import Security

/// The change feed's table (ChangeFeed.swift in Security) and how its entries are sealed.
///
/// One row per synchronizable item the store has written: its key (the item table's unique key),
/// its sequence, its deletion flag and time in the clear (the queries select by them), and the rest
/// (identity, protection, source, the replicator's mark) sealed under the metadata key with every
/// plain column as associated data, so an entry changed on disk fails to open and is reported as
/// damaged, never used. The replicator's namespace values are sealed the same way, bound to their
/// names.
enum ChangeFeedTable {
  static let schema = """
    CREATE TABLE IF NOT EXISTS item_change (
      class TEXT NOT NULL,
      pk BLOB NOT NULL,
      spi BLOB NOT NULL,
      seq INTEGER NOT NULL UNIQUE,
      deleted INTEGER NOT NULL,
      changed INTEGER NOT NULL,
      sealed BLOB NOT NULL,
      PRIMARY KEY (class, pk, spi)
    ) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS replication_value (name TEXT PRIMARY KEY NOT NULL, value BLOB NOT NULL) WITHOUT ROWID;
    """

  /// `store_info.journal_format` of a store whose journal is this feed. Formats 1 and 2 were the
  /// sync journal (`sync_state`) that LegacyJournalMigration converts.
  static let journalFormat = Data([3])

  static let selectColumns = "class, pk, spi, seq, deleted, changed, sealed"

  static let upsertSQL = """
    INSERT INTO item_change (class, pk, spi, seq, deleted, changed, sealed) VALUES (?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (class, pk, spi) DO UPDATE SET seq = excluded.seq, deleted = excluded.deleted,
      changed = excluded.changed, sealed = excluded.sealed
    """

  private static let formatVersion: UInt8 = 1

  /// The associated data of an entry's sealed part: its key and every plain column.
  static func associatedData(_ key: LocalItemKey, sequence: Int64, deleted: Bool, changedAt: Int64) -> [UInt8] {
    var bytes = Array("keychain-bridge/item-change/v1".utf8)
    for field in [Array(key.itemClass.rawValue.utf8), Array(key.primaryKey), Array(key.spiKey)] {
      withUnsafeBytes(of: UInt32(truncatingIfNeeded: field.count).littleEndian) { bytes += $0 }
      bytes += field
    }
    withUnsafeBytes(of: sequence.littleEndian) { bytes += $0 }
    withUnsafeBytes(of: changedAt.littleEndian) { bytes += $0 }
    bytes.append(deleted ? 1 : 0)
    return bytes
  }

  /// The arguments of `upsertSQL` for `change` under `key`.
  static func row(_ change: FeedChange, _ key: LocalItemKey, _ ring: KeyRing) throws(SecStatus) -> [SQLArgument] {
    guard let metadataKey = ring.metadataKey else { throw .interactionNotAllowed }
    var plaintext: [UInt8] = [formatVersion]
    plaintext += change.identity.encoded()
    if let protection = change.protection, let persistentID = change.persistentID {
      plaintext.append(1)
      TaggedBinaryForm.appendBytes(Array(protection.utf8), to: &plaintext)
      TaggedBinaryForm.appendBytes(Array(persistentID), to: &plaintext)
    } else {
      plaintext.append(0)
    }
    plaintext.append(change.source.rawValue)
    if let mark = change.mark {
      plaintext.append(1)
      TaggedBinaryForm.appendUInt64(UInt64(bitPattern: mark.version), to: &plaintext)
      TaggedBinaryForm.appendBytes(Array(mark.origin), to: &plaintext)
      plaintext.append(mark.deleted ? 1 : 0)
      if let versioned = mark.versionedSequence {
        plaintext.append(1)
        TaggedBinaryForm.appendUInt64(UInt64(bitPattern: versioned), to: &plaintext)
      } else {
        plaintext.append(0)
      }
      plaintext.append(mark.settled ? 1 : 0)
    } else {
      plaintext.append(0)
    }
    let sealed: [UInt8]
    do {
      sealed = try AES.GCM.seal(
        plaintext, using: metadataKey,
        authenticating: associatedData(
          key, sequence: change.sequence, deleted: change.deleted, changedAt: change.changedAt))
    } catch {
      throw error.status
    }
    return key.arguments + [
      .integer(change.sequence), .integer(change.deleted ? 1 : 0), .integer(change.changedAt), .blob(Data(sealed)),
    ]
  }

  /// The entry in a row of `selectColumns`: `.damaged` when it fails authentication or holds what
  /// no store writes.
  static func entry(_ row: StatementRow, _ ring: KeyRing) throws(SecStatus) -> (LocalItemKey?, ChangeFeedEntry) {
    let sequence = try row.integer(3)
    guard let metadataKey = ring.metadataKey else { throw .interactionNotAllowed }
    guard let itemClass = ItemClass(rawValue: (try? row.text(0)) ?? ""),
      let primaryKey = try? row.blob(1), let spiKey = try? row.blob(2),
      let deletedFlag = try? row.integer(4), deletedFlag == 0 || deletedFlag == 1,
      let changedAt = try? row.integer(5), let sealed = try? row.bytes(6)
    else { return (nil, .damaged(sequence: sequence)) }
    let key = LocalItemKey(itemClass: itemClass, primaryKey: primaryKey, spiKey: spiKey)
    let deleted = deletedFlag == 1
    do throws(SecStatus) {
      let plaintext: [UInt8]
      do {
        plaintext = try AES.GCM.open(
          combined: sealed, using: metadataKey,
          authenticating: associatedData(key, sequence: sequence, deleted: deleted, changedAt: changedAt))
      } catch {
        throw .decode
      }
      var reader = TaggedBinaryForm.Reader(plaintext)
      guard try reader.byte() == formatVersion else { throw .decode }
      let identity = try ItemIdentity.decoded(from: &reader, wholeInput: false)
      var protection: String?
      var persistentID: Data?
      if try reader.flag() {
        protection = try reader.string()
        persistentID = Data(try reader.block())
      }
      guard let source = ChangeSource(rawValue: try reader.byte()) else { throw .decode }
      var mark: ReplicaMark?
      if try reader.flag() {
        let version = Int64(bitPattern: try reader.uint64())
        let origin = Data(try reader.block())
        let markDeleted = try reader.flag()
        let versioned = try reader.flag() ? Int64(bitPattern: try reader.uint64()) : nil
        mark = ReplicaMark(
          version: version, origin: origin, deleted: markDeleted, versionedSequence: versioned,
          settled: try reader.flag())
      }
      guard reader.isAtEnd, (protection == nil) == deleted, identity.itemClass == itemClass else { throw .decode }
      return (
        key,
        .change(
          FeedChange(
            sequence: sequence, identity: identity, persistentID: persistentID, protection: protection,
            changedAt: changedAt, source: source, mark: mark))
      )
    } catch {
      return (key, .damaged(sequence: sequence))
    }
  }

  /// A namespace value sealed under the metadata key, bound to its name.
  static func sealValue(_ value: Data, name: String, _ ring: KeyRing) throws(SecStatus) -> Data {
    guard let metadataKey = ring.metadataKey else { throw .interactionNotAllowed }
    do {
      return Data(try AES.GCM.seal([UInt8](value), using: metadataKey, authenticating: valueLabel(name)))
    } catch {
      throw error.status
    }
  }

  /// A namespace value as `sealValue` sealed it: errSecDecode when it was changed or moved.
  static func openValue(_ sealed: Data, name: String, _ ring: KeyRing) throws(SecStatus) -> Data {
    guard let metadataKey = ring.metadataKey else { throw .interactionNotAllowed }
    do {
      return Data(try AES.GCM.open(combined: [UInt8](sealed), using: metadataKey, authenticating: valueLabel(name)))
    } catch {
      throw SecStatus(errSecDecode, detail: "the replication value \(name) failed authentication")
    }
  }

  private static func valueLabel(_ name: String) -> [UInt8] {
    Array("keychain-bridge/replication-value/v1\u{0}".utf8) + Array(name.utf8)
  }

  /// Microseconds since 1970, the feed's clock.
  static func microseconds(_ date: Date) -> Int64 {
    Int64((date.timeIntervalSince1970 * 1_000_000).rounded(.down))
  }
}

/// What makes an item row unique in the store (the item table's UNIQUE constraint), and the key of
/// its change feed entry.
struct LocalItemKey: Hashable {
  var itemClass: ItemClass
  var primaryKey: Data
  var spiKey: Data

  var arguments: [SQLArgument] { [.text(itemClass.rawValue), .blob(primaryKey), .blob(spiKey)] }
}

extension LocalItemKey {
  init(_ identity: RowIdentity) {
    self.init(itemClass: identity.itemClass, primaryKey: identity.primaryKey.data, spiKey: identity.spiKey.data)
  }
}
