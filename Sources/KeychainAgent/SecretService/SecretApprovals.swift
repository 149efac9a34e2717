import Foundation
@_spi(KeychainBridge) import Security

/// The user's answers to "may this program read this item?" (the policy's
/// `confirm-first-access`), remembered in the store: one generic password per program in the
/// Secret Service's own group (service `approval`, account the executable's path), whose secret
/// lists the item paths the user allowed. Kept sealed like any secret, so a program cannot add
/// itself by writing a file; read only while the store is unlocked, which is when it matters.
/// An item's path holds a random UUID never given again, so a deleted item's approvals name nothing.
final class SecretApprovals {
  /// The most items one program is remembered for: the list is read whole on its first use.
  static let maximumCount = 10_000
  private let engine: SecItemEngine
  /// Approvals read so far, by executable.
  private var known: [String: Set<String>] = [:]

  init(agent: AgentService) {
    engine = agent.engine(groups: [SecretCollections.registryGroup])
  }

  private static func query(_ executable: String) -> [String: Any] {
    [
      SecConstantValue.`class`: SecConstantValue.classGenericPassword,
      SecConstantValue.attrAccessGroup: SecretCollections.registryGroup,
      SecConstantValue.attrService: "approval", SecConstantValue.attrAccount: executable,
    ]
  }

  /// Whether the user allowed `executable` to read the item at `path`.
  func allows(_ executable: String, _ path: String) -> Bool {
    (try? approved(for: executable).contains(path)) ?? false
  }

  /// Remembers that `executable` may read the items at `paths`.
  func allow(_ executable: String, _ paths: [String]) throws(BusError) {
    var approved = try approved(for: executable)
    let before = approved.count
    approved.formUnion(paths)
    guard approved.count != before else { return }
    guard approved.count <= Self.maximumCount else {
      throw .failed("This program has been allowed too many items to remember more.")
    }
    let data = (try? JSONEncoder().encode(approved.sorted())) ?? Data("[]".utf8)
    do throws(SecStatus) {
      let stored = before > 0 ? true : try exists(executable)
      if !stored {
        var add = Self.query(executable)
        add[SecConstantValue.valueData] = data
        add[SecConstantValue.attrLabel] = "Items \(executable) may read"
        _ = try engine.add(try ItemRequest.reading(add as NSDictionary))
      } else {
        try engine.update(
          try ItemRequest.reading(Self.query(executable) as NSDictionary),
          changes: [(SecConstantValue.valueData, .data(data))]
        )
      }
    } catch {
      throw SecretItems.busError(error)
    }
    known[executable] = approved
  }

  private func exists(_ executable: String) throws(SecStatus) -> Bool {
    do {
      _ = try engine.matchingItems(try ItemRequest.reading(Self.query(executable) as NSDictionary))
      return true
    } catch  where error.code == errSecItemNotFound {
      return false
    }
  }

  private func approved(for executable: String) throws(BusError) -> Set<String> {
    if let approved = known[executable] { return approved }
    var query = Self.query(executable)
    query[SecConstantValue.returnData] = true
    let approved: Set<String>
    do {
      let data = try engine.searchedItems(try ItemRequest.reading(query as NSDictionary)).first?.data
      approved = Set(
        data.flatMap { try? JSONDecoder().decode([String].self, from: $0) }?.prefix(Self.maximumCount) ?? [])
    } catch {
      throw SecretItems.busError(error)
    }
    known[executable] = approved
    return approved
  }
}
