import ArgumentParser
import Dispatch
import Foundation
import KeychainSync
import Security
import SecurityCommandLine

/// `security-sync` (also run as `security sync-group`): the keychain's sync group (issue 16),
/// through a PostgreSQL server. A tool of its own because it links the PostgreSQL client (SwiftNIO,
/// BoringSSL), which made `security` take minutes to build (issue 52).
@main
struct SyncGroupCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "security-sync",
    abstract: "Create, join, leave or sync the keychain's sync group (synchronizable items through PostgreSQL).",
    discussion: """
      Items added with --synchronizable (kSecAttrSynchronizable) follow the group to every store that joined it; \
      ThisDeviceOnly items never leave the store. The server (a postgres:// URL, or KEYCHAIN_BRIDGE_SYNC_SERVER) \
      keeps only ciphertext. The passphrase (-p, KEYCHAIN_BRIDGE_SYNC_PASSPHRASE, or asked for) wraps the group's \
      key on the server.
      """,
    subcommands: [
      SyncGroupCreate.self, SyncGroupJoin.self, SyncGroupLeave.self, SyncGroupStatus.self, SyncGroupSync.self,
      SyncGroupRun.self, SyncGroupExportKey.self,
    ])
}

/// `--server URL -p PASSPHRASE` of create and join.
struct SyncServerOptions: ParsableArguments {
  @Option(
    name: .customLong("server"),
    help: ArgumentHelp(
      "The PostgreSQL server, postgres://user@host:port/database (default: $KEYCHAIN_BRIDGE_SYNC_SERVER).",
      valueName: "url"))
  var server: String?

  @Option(
    name: .customShort("p"),
    help: ArgumentHelp(
      "The group's passphrase (default: $KEYCHAIN_BRIDGE_SYNC_PASSPHRASE, else asked for).", valueName: "passphrase"))
  var passphrase: String?

  func serverURL(_ operation: String) throws -> String {
    guard let url = server ?? KeychainSyncEnvironment().server else {
      throw CommandFailure(
        operation: operation, status: errSecParam, detail: "Give --server URL or set KEYCHAIN_BRIDGE_SYNC_SERVER.")
    }
    return url
  }

  /// Runs `body` with the server's URL. When the server asks for a password that none of the
  /// URL, PGPASSWORD and the password file gave, asks for it on the terminal (as psql does) and
  /// runs `body` once more with it in the URL.
  func withServer<T>(_ operation: String, _ body: (String) throws -> T) throws -> T {
    let url = try serverURL(operation)
    do {
      return try body(url)
    } catch let failure as CommandFailure
      where failure.detail?.hasSuffix(KeychainSyncError.serverPasswordSources) == true
    {
      guard var components = URLComponents(string: url), let user = components.user,
        let password = promptForPassword("password for \(user) on the sync server: ", what: "the server's password")
      else { throw failure }
      components.password = password
      guard let withPassword = components.string else { throw failure }
      return try body(withPassword)
    }
  }

  func secret(_ operation: String, confirming: Bool) throws -> String {
    if let passphrase = passphrase ?? KeychainSyncEnvironment().passphrase { return passphrase }
    return try CommandPassphrase.ask(
      confirming: confirming, operation: operation, prompt: "passphrase for the sync group: ",
      missing: "A sync group needs a passphrase: give -p, set KEYCHAIN_BRIDGE_SYNC_PASSPHRASE, or type it.")
  }
}

struct SyncGroupCreate: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "create", abstract: "Create a sync group on the server and join this keychain to it.")

  @OptionGroup var store: StoreOption
  @OptionGroup var server: SyncServerOptions

  func run() throws {
    try runReportingFailures {
      let operation = "sync-group create"
      let opened = try store.open()
      let passphrase = try server.secret(operation, confirming: true)
      let status = try server.withServer(operation) { url in
        try waitFor(operation) {
          try await KeychainSyncGroup.create(store: opened, server: url, passphrase: passphrase)
        }
      }
      print("created sync group \(status.groupID) on \(status.server)")
      let report = try waitFor(operation) { try await KeychainSyncEngine(store: opened).syncOnce() }
      printReport(report)
    }
  }
}

struct SyncGroupJoin: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "join", abstract: "Join this keychain to the server's sync group, then sync once.")

  @OptionGroup var store: StoreOption
  @OptionGroup var server: SyncServerOptions
  @Option(
    name: .customLong("key-file"),
    help: ArgumentHelp("Join with a key file export-key wrote instead of the passphrase.", valueName: "file"))
  var keyFile: String?
  @Option(
    name: .customLong("group"),
    help: ArgumentHelp("The group's identifier, when the server holds several.", valueName: "id"))
  var group: String?

  func run() throws {
    try runReportingFailures {
      let operation = "sync-group join"
      let opened = try store.open()
      let status: KeychainSyncStatus
      let environmentKey: Data?
      do throws(KeychainSyncError) {
        environmentKey = keyFile == nil && server.passphrase == nil ? try KeychainSyncEnvironment().keyFile() : nil
      } catch {
        throw CommandFailure(operation: operation, status: error.status, detail: error.message)
      }
      if let path = keyFile {
        guard let contents = FileManager.default.contents(atPath: path) else {
          throw CommandFailure(operation: operation, status: errSecIO, detail: "\(path) could not be read.")
        }
        status = try server.withServer(operation) { url in
          try waitFor(operation) { try await KeychainSyncGroup.join(store: opened, server: url, keyFile: contents) }
        }
      } else if let environmentKey {
        status = try server.withServer(operation) { url in
          try waitFor(operation) {
            try await KeychainSyncGroup.join(store: opened, server: url, keyFile: environmentKey)
          }
        }
      } else {
        let passphrase = try server.secret(operation, confirming: false)
        let group = group
        status = try server.withServer(operation) { url in
          try waitFor(operation) {
            try await KeychainSyncGroup.join(store: opened, server: url, passphrase: passphrase, groupID: group)
          }
        }
      }
      print("joined sync group \(status.groupID) on \(status.server)")
      let report = try waitFor(operation) { try await KeychainSyncEngine(store: opened).syncOnce() }
      printReport(report)
    }
  }
}

struct SyncGroupLeave: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "leave", abstract: "Take this keychain out of its sync group; its items stay and stop syncing.")

  @OptionGroup var store: StoreOption

  func run() throws {
    try runReportingFailures {
      let opened = try store.open()
      do throws(KeychainSyncError) {
        try KeychainSyncGroup.leave(store: opened)
      } catch {
        throw CommandFailure(operation: "sync-group leave", status: error.status, detail: error.message)
      }
      print("left the sync group")
    }
  }
}

struct SyncGroupStatus: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "status", abstract: "Print this keychain's sync group and its counts.")

  @OptionGroup var store: StoreOption

  func run() throws {
    try runReportingFailures {
      let opened = try store.open()
      let status: KeychainSyncStatus?
      do throws(KeychainSyncError) { status = try KeychainSyncGroup.status(store: opened) } catch {
        throw CommandFailure(operation: "sync-group status", status: error.status, detail: error.message)
      }
      guard let status else {
        print("not in a sync group")
        return
      }
      print("group: \(status.groupID)")
      print("server: \(status.server)")
      print("store: \(status.storeID)")
      print("server position: \(status.serverPosition)")
      print("synchronizable items: \(status.synchronizableItems)")
      print("tombstones: \(status.tombstones)")
      print("pending changes: \(status.pendingChanges)")
      print("rejected records: \(status.rejectedRecords)")
      print("damaged journal entries: \(status.damagedJournalEntries)")
      // The group's stores come from the server; the store's own state above does not need it.
      do {
        let members = try waitFor("sync-group status") { try await KeychainSyncGroup.members(store: opened) }
        print("stores in the group: \(members.count)")
        for member in members {
          let marker = member.storeID == status.storeID ? " (this store)" : ""
          print("  \(member.storeID) last synced \(member.lastSynced.ISO8601Format())\(marker)")
        }
      } catch let failure as CommandFailure {
        print("stores in the group: unknown (\(failure.detail ?? "the server cannot be reached"))")
      }
    }
  }
}

struct SyncGroupSync: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "sync", abstract: "One push-and-pull round with the server, then exit (for scripts).")

  @OptionGroup var store: StoreOption

  func run() throws {
    try runReportingFailures {
      let opened = try store.open()
      let report = try waitFor("sync-group sync") { try await KeychainSyncEngine(store: opened).syncOnce() }
      printReport(report)
      if report.rejected > 0 {
        throw CommandFailure(
          operation: "sync-group sync", status: errSecDecode,
          detail: "The server sent \(report.rejected) record(s) that failed authentication; none was applied.")
      }
    }
  }
}

struct SyncGroupRun: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "run",
    abstract: "Keep this keychain in sync until interrupted (a sync daemon for every process using the store).")

  @OptionGroup var store: StoreOption

  func run() throws {
    try runReportingFailures {
      let opened = try store.open()
      let engine: KeychainSyncEngine
      do throws(KeychainSyncError) { engine = try KeychainSyncEngine(store: opened) } catch {
        throw CommandFailure(operation: "sync-group run", status: error.status, detail: error.message)
      }
      guard (try? KeychainSyncGroup.status(store: opened)) ?? nil != nil else {
        throw CommandFailure(
          operation: "sync-group run", status: errSecNoSuchKeychain, detail: "The store is in no sync group.")
      }
      let task = Task { await engine.run() }
      // SIGINT and SIGTERM end the loop; the engine closes its connections on the way out.
      signal(SIGINT, SIG_IGN)
      signal(SIGTERM, SIG_IGN)
      let sources = [SIGINT, SIGTERM].map { number in
        let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
        source.setEventHandler { task.cancel() }
        source.resume()
        return source
      }
      _ = try waitFor("sync-group run") { await task.value }
      sources.forEach { $0.cancel() }
    }
  }
}

struct SyncGroupExportKey: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "export-key",
    abstract: "Write the sync group's key to a file (0600) that another keychain can join with.")

  @OptionGroup var store: StoreOption
  @Option(name: .customShort("o"), help: ArgumentHelp("The key file to write.", valueName: "file")) var output: String?
  @Flag(
    name: .customLong("base64"),
    help: "Print the key file's bytes in base64 instead (for KEYCHAIN_BRIDGE_SYNC_KEY in a secret store).")
  var base64 = false

  func validate() throws {
    if (output == nil) == !base64 { throw ValidationError("give either -o FILE or --base64") }
  }

  func run() throws {
    try runReportingFailures {
      let opened = try store.open()
      let key: Data
      do throws(KeychainSyncError) { key = try KeychainSyncGroup.exportKey(store: opened) } catch {
        throw CommandFailure(operation: "sync-group export-key", status: error.status, detail: error.message)
      }
      guard let output else {
        print(key.base64EncodedString())
        return
      }
      guard FileManager.default.createFile(atPath: output, contents: key, attributes: [.posixPermissions: 0o600])
      else {
        throw CommandFailure(
          operation: "sync-group export-key", status: errSecIO, detail: "\(output) could not be written.")
      }
      print("wrote the sync group key to \(output); keep it as secret as the passphrase")
    }
  }
}

private func printReport(_ report: KeychainSyncReport) {
  print("pushed \(report.pushed) change(s); applied \(report.applied); rejected \(report.rejected)")
  for rejection in report.rejections { FileHandle.standardError.write(Data("security: rejected \(rejection)\n".utf8)) }
  if report.waitingForUnlock { print("some records wait for the keychain to be unlocked") }
  if report.damagedJournalEntries > 0 {
    FileHandle.standardError.write(
      Data(
        "security: skipped \(report.damagedJournalEntries) sync journal entr\(report.damagedJournalEntries == 1 ? "y" : "ies") that failed authentication (changed on disk); they were not pushed\n"
          .utf8))
  }
}

/// Runs async work from a synchronous command and waits for it: the tool's commands are
/// synchronous, and this one call site is where sync's network work meets them.
private func waitFor<T: Sendable>(_ operation: String, _ body: @escaping @Sendable () async throws -> T) throws -> T {
  let outcome = ResultBox<T>()
  let done = DispatchSemaphore(value: 0)
  Task {
    do {
      outcome.set(.success(try await body()))
    } catch let error as KeychainSyncError {
      outcome.set(.failure(error))
    } catch {
      outcome.set(.failure(KeychainSyncError(status: errSecInternalComponent, message: "\(error)")))
    }
    done.signal()
  }
  done.wait()
  switch outcome.get() {
  case .success(let value): return value
  case .failure(let error): throw CommandFailure(operation: operation, status: error.status, detail: error.message)
  case nil: throw CommandFailure(operation: operation, status: errSecInternalComponent, detail: "No result.")
  }
}

private final class ResultBox<T: Sendable>: @unchecked Sendable {
  private let lock = NSLock()
  private var value: Result<T, KeychainSyncError>?
  func set(_ new: Result<T, KeychainSyncError>) { lock.withLock { value = new } }
  func get() -> Result<T, KeychainSyncError>? { lock.withLock { value } }
}
