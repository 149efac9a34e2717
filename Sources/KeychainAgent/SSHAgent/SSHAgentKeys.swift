import Foundation
import KeychainCrypto
@_spi(KeychainBridge) import Security

/// The ssh-agent's keys, kept in the keychain the agent holds: one generic password each in the
/// access group `org.openssh.agent` (service `ssh-agent`, account the key's SHA-256 fingerprint,
/// label its comment, the public key blob in the generic attribute, and the private key, as
/// OpenSSH's protocol carried it, as the secret, sealed like any). So keys outlive the agent and
/// the files they were added from, lock with the keychain, and are backed up and synced as items.
/// No policy grants that group but `*`: programs reach the keys through the agent's socket only.
///
/// A key's constraints are kept with it: `confirm` in the item's kind (each use is confirmed by
/// the user), a lifetime as the moment it lapses in its comment attribute (a lapsed key is deleted
/// when next listed or used).
struct SSHAgentKeys {
  static let group = "org.openssh.agent"
  static let service = "ssh-agent"
  /// At most this many keys: each one listed is read on every `ssh-add -l` and every login.
  static let maximumCount = 256

  let engine: SecItemEngine

  /// One stored key, without its private part.
  struct Listed {
    let publicBlob: [UInt8]
    let comment: String
    let confirm: Bool
  }

  private static func request(_ pairs: [String: Any]) throws(SecStatus) -> ItemRequest {
    try ItemRequest.reading(entries: pairs.map { ($0.key, RequestValue($0.value)) })
  }

  private static func query(account: String? = nil) -> [String: Any] {
    var query: [String: Any] = [
      SecConstantValue.`class`: SecConstantValue.classGenericPassword, SecConstantValue.attrAccessGroup: group,
      SecConstantValue.attrService: service,
    ]
    if let account { query[SecConstantValue.attrAccount] = account }
    return query
  }

  /// Stores `key` (replacing a key with the same public key), with its comment and constraints.
  func add(_ key: SSHAgentKey, comment: String, confirm: Bool, lifetime: UInt32?) throws(SecStatus) {
    let fingerprint = SSHAgentKey.fingerprint(key.publicBlob)
    let existing = try list(deletingLapsed: true)
    guard existing.count < Self.maximumCount || existing.contains(where: { $0.publicBlob == key.publicBlob }) else {
      throw SecStatus(errSecDuplicateItem, detail: "The agent holds \(Self.maximumCount) keys already.")
    }
    let attributes: [String: Any] = [
      SecConstantValue.attrLabel: comment, SecConstantValue.attrGeneric: Data(key.publicBlob),
      SecConstantValue.attrDescription: confirm ? "confirm" : "",
      SecConstantValue.attrComment: lifetime.map { String(Int(Date().timeIntervalSince1970) + Int($0)) } ?? "",
    ]
    var add = Self.query(account: fingerprint)
    attributes.forEach { add[$0.key] = $0.value }
    add[SecConstantValue.valueData] = Data(key.encoded)
    add[SecConstantValue.attrAccessible] = SecConstantValue.attrAccessibleWhenUnlocked
    do {
      _ = try engine.add(try Self.request(add))
    } catch  where error.code == errSecDuplicateItem {
      var changes: RequestEntries = attributes.map { ($0.key, RequestValue($0.value)) }
      changes.append((SecConstantValue.valueData, .data(Data(key.encoded))))
      try engine.update(try Self.request(Self.query(account: fingerprint)), changes: changes)
    }
  }

  /// Every key, in the order they were added; lapsed ones are deleted first when `deletingLapsed`.
  func list(deletingLapsed: Bool = true) throws(SecStatus) -> [Listed] {
    var query = Self.query()
    query[SecConstantValue.matchLimit] = SecConstantValue.matchLimitAll
    query[SecConstantValue.returnAttributes] = true
    let rows = try engine.searchedItems(try Self.request(query))
    let now = Int(Date().timeIntervalSince1970)
    var listed: [Listed] = []
    for row in rows {
      guard let blob = row.data(SecConstantValue.attrGeneric) else { continue }
      if let lapse = row.string(SecConstantValue.attrComment).flatMap(Int.init), lapse <= now {
        if deletingLapsed, let account = row.string(SecConstantValue.attrAccount) {
          try? engine.delete(try Self.request(Self.query(account: account)))
        }
        continue
      }
      listed.append(
        Listed(
          publicBlob: Array(blob), comment: row.string(SecConstantValue.attrLabel) ?? "",
          confirm: row.string(SecConstantValue.attrDescription) == "confirm"))
    }
    return listed
  }

  /// The key whose public blob is `publicBlob`, with its private part, or nil when the agent holds
  /// none (or it lapsed).
  func key(for publicBlob: [UInt8]) throws(SecStatus) -> (key: SSHAgentKey, listed: Listed)? {
    guard let listed = try list().first(where: { $0.publicBlob == publicBlob }) else { return nil }
    var query = Self.query(account: SSHAgentKey.fingerprint(publicBlob))
    query[SecConstantValue.returnData] = true
    query[SecConstantValue.returnAttributes] = true
    let found = try engine.searchedItems(try Self.request(query)).first
    guard var stored = found?.data.map({ [UInt8]($0) }) else { return nil }
    defer { Secrets.wipe(&stored) }
    do throws(SSHWireError) {
      let key = try SSHAgentKey(stored: stored)
      guard key.publicBlob == publicBlob else { return nil }
      return (key, listed)
    } catch {
      throw SecStatus(errSecDecode, detail: "A stored ssh key does not parse: \(error.reason)")
    }
  }

  /// Deletes the key whose public blob is `publicBlob`; false when there is none.
  func remove(_ publicBlob: [UInt8]) throws(SecStatus) -> Bool {
    do {
      try engine.delete(try Self.request(Self.query(account: SSHAgentKey.fingerprint(publicBlob))))
      return true
    } catch  where error.code == errSecItemNotFound {
      return false
    }
  }

  /// Deletes every key.
  func removeAll() throws(SecStatus) {
    do {
      try engine.delete(try Self.request(Self.query()))
    } catch  where error.code == errSecItemNotFound {}
  }
}
