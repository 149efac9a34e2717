import Foundation
import Synchronization

/// A keychain store on disk: the place SecItem calls read and write.
///
/// Apple code never names a store: its SecItem calls use the process's default store
/// (`KeychainStore.default`, at `KEYCHAIN_BRIDGE_HOME`, else `$XDG_DATA_HOME/keychain-bridge`, else
/// `~/.local/share/keychain-bridge`). Tests and tools open stores anywhere and route calls to them
/// with `withKeychainContext(store:accessGroups:_:)`.
public final class KeychainStore: Sendable {
  /// The store's directory (holding `keychain.db` and `keychain.key`).
  public let directory: URL
  /// Who holds the store: this process (its storage) or the agent (its client).
  package let holder: KeychainStoreHolder
  /// The keys and the lock, whoever holds them.
  package let keys: any KeyLockStorage
  /// Integrity and the read-only state, whoever holds the store.
  package let maintenance: any StorageMaintenance

  /// Opens the store in `directory`, creating it (directory 0700, files 0600) when it does not exist.
  ///
  /// - Parameters:
  ///   - directory: the store's directory; missing directories are created 0700.
  ///   - passphrase: for a new store, protects its key with this passphrase (scrypt) instead
  ///     of a plain key file; for an existing passphrase store, unlocks it. A passphrase store
  ///     opened without one is locked and sealed: every call answers errSecInteractionNotAllowed
  ///     until `unlock(passphrase:)`.
  ///   - sealedToTPM: for a new store, seals its key file to this machine's TPM 2.0 (the one
  ///     `KEYCHAIN_BRIDGE_TCTI` names, else /dev/tpmrm0), so a copy of the directory is useless on
  ///     another machine; with a passphrase, both are needed. An existing sealed store is opened
  ///     through the TPM whatever this says.
  /// - Throws: `KeychainStoreError` when the directory or a file is accessible to other users, the
  ///   database is not a keychain store, the key file is missing, damaged or not this database's,
  ///   the passphrase is wrong, or the key file is sealed to a TPM this machine does not have.
  public convenience init(directory: URL, passphrase: String? = nil, sealedToTPM: Bool = false)
    throws(KeychainStoreError)
  {
    // A NUL would end the path early where it meets the C library.
    guard !directory.path.utf8.contains(0) else {
      throw KeychainStoreError(status: errSecParam, message: "The store directory's path contains a NUL character.")
    }
    let backend = try KeychainContext.current.storeBackend()
    self.init(
      directory: directory,
      storage: try backend.openStore(directory: directory, passphrase: passphrase, sealingToTPM: sealedToTPM),
      backend: backend)
  }

  /// The authenticator of a storage this process holds: prompts as the environment says, and
  /// counts failures beside the store.
  private static func localAuthenticator(_ storage: any KeyLockStorage, directory: URL?) -> any UserAuthenticating {
    PassphraseAuthenticator(
      storage: storage, ledger: FailedAttemptLedger(directory: directory), prompt: PassphrasePrompt.fromEnvironment())
  }

  private let authentication: Mutex<any UserAuthenticating>

  /// Who proves the user's presence for this store (LAContext, and SecItem calls on items whose
  /// access control asks for it): the agent, for a store it serves (it asks, so the answer never
  /// passes through this process); else this process, through its prompt.
  package var authenticator: any UserAuthenticating {
    get { authentication.withLock { $0 } }
    set { authentication.withLock { $0 = newValue } }
  }

  /// A store over a storage this process holds: the one `init(directory:passphrase:sealedToTPM:)`
  /// opened, or another implementation of the contract (the in-memory one, in tests that run the
  /// same SecItem calls over two storages), which `directory` only names. `backend` is the one that
  /// opened it, which its CF calls run with (nil: the context's).
  package init(directory: URL, storage: any ItemStorage, backend: (any SecurityBackend)? = nil) {
    self.directory = directory
    self.backend = backend
    holder = .process(storage)
    keys = storage
    maintenance = storage
    agentSocketPath = nil
    authentication = Mutex(Self.localAuthenticator(storage, directory: directory))
  }

  /// The store `agent` serves at `socketPath`: this process holds no row and no key of it.
  /// `backend` is the one that connected to it.
  package init(socketPath: String, agent: any KeychainAgentLink, backend: (any SecurityBackend)? = nil) {
    directory = URL(fileURLWithPath: socketPath)
    self.backend = backend
    holder = .agent(agent)
    keys = agent
    maintenance = agent
    agentSocketPath = socketPath
    authentication = Mutex(agent)
  }

  /// The backend that opened the store or connected to its agent: the CF functions' calls on it run
  /// with this one. nil for a store made over a storage directly (tests), whose calls take the
  /// context's.
  package let backend: (any SecurityBackend)?

  /// The storage of a store this process opened; nil for one the agent holds.
  package var storage: (any ItemStorage)? {
    if case .process(let storage) = holder { storage } else { nil }
  }

  /// The socket of the agent that serves this store, or nil for a store this process opened.
  public let agentSocketPath: String?

  /// The seconds after which the agent that serves this store locks it when unused, or nil when
  /// nothing locks it for idleness (a store this process opened).
  package var idleLockTimeout: Int? {
    if case .agent(let agent) = holder { agent.idleLockTimeout } else { nil }
  }

  /// The socket `KEYCHAIN_BRIDGE_AGENT=auto` means: the one keychaind's systemd units make,
  /// `$XDG_RUNTIME_DIR/keychain-bridge/agent.sock`.
  package static var automaticAgentSocketPath: String {
    automaticAgentSocketPath(ProcessInfo.processInfo.environment)
  }

  /// The automatic socket for `environment`. Without a runtime directory it is in the user's home
  /// (`~/.keychain-bridge/agent.sock`, as gpg-agent's is in `~/.gnupg`), not in /tmp: another user
  /// who made `/tmp/keychain-bridge-UID` first stopped every on-demand start (issue 49, case 12).
  /// /tmp is used only when the home's path is too long for a socket address (107 bytes).
  package static func automaticAgentSocketPath(_ environment: [String: String]) -> String {
    if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
      return "\(runtime)/keychain-bridge/agent.sock"
    }
    let home = homeDirectory(environment).path
    let inHome = "\(home.hasSuffix("/") ? String(home.dropLast()) : home)/.keychain-bridge/agent.sock"
    return inHome.utf8.count < 108 ? inHome : "/tmp/keychain-bridge-\(getuid())/agent.sock"
  }

  /// The store the agent serves at `socketPath`; `directory` names the socket. With
  /// `startingOnDemand`, an agent that does not answer there is started first.
  package static func agentStore(
    socketPath: String, startingOnDemand: Bool = false
  ) throws(KeychainStoreError) -> KeychainStore {
    let backend = try KeychainContext.current.storeBackend()
    do {
      return KeychainStore(
        socketPath: socketPath,
        agent: try backend.connectAgent(socketPath: socketPath, startingOnDemand: startingOnDemand), backend: backend)
    } catch {
      throw KeychainStoreError(status: error.code, message: error.detail ?? error.description)
    }
  }

  /// Whether the store is locked (its WhenUnlocked key material is not in memory).
  public var isLocked: Bool { keys.isLocked }

  /// Whether the store was opened read-only, because its file system or directory cannot be
  /// written by this process: searches work and every change answers errSecReadOnly.
  public var isReadOnly: Bool { maintenance.isReadOnly }

  /// Whether the store key is protected by a passphrase (Apple's "passcode is set").
  public var hasPassphrase: Bool { keys.hasPassphrase }

  /// Locks the store: the key material of WhenUnlocked items is dropped from memory, so their data
  /// can be neither read nor written (errSecInteractionNotAllowed) until `unlock`.
  public func lock() { keys.lock() }

  /// Unlocks the store, with its passphrase for a passphrase store.
  ///
  /// - Returns: errSecSuccess, errSecAuthFailed for a wrong passphrase, or
  ///   errSecInteractionNotAllowed when a passphrase is needed and none was given.
  @discardableResult
  public func unlock(passphrase: String? = nil) -> OSStatus {
    do {
      try keys.unlock(passphrase: passphrase)
      return errSecSuccess
    } catch {
      return error.code
    }
  }

  /// Authenticates every item in the store: its searchable columns, its attributes and, where the
  /// lock state allows, its secret.
  ///
  /// Searches skip items that fail authentication (rule 3.8) instead of failing as a whole, so a
  /// damaged item shows only here and in the count of skipped items.
  ///
  /// - Throws: `KeychainStoreError` when the store is sealed (a passphrase store not unlocked) or
  ///   cannot be read.
  public func checkIntegrity() throws(KeychainStoreError) -> KeychainIntegrityReport {
    do {
      return try maintenance.checkIntegrity()
    } catch {
      throw KeychainStoreError(
        status: error.code, message: "Cannot check the items of \(directory.path) (\(error.description)).")
    }
  }

  /// The store a SecItem call made here would use: the one `withKeychainContext` names, else the
  /// default store (LocalAuthentication's contexts act on it).
  package static func forCurrentCall() throws(KeychainStoreError) -> KeychainStore {
    if let store = KeychainContext.current.store { return store }
    return try KeychainStore.default()
  }

  /// The directory of the default store, from the environment (see the type's documentation).
  public static var defaultDirectory: URL {
    let environment = ProcessInfo.processInfo.environment
    if let home = environment["KEYCHAIN_BRIDGE_HOME"], !home.isEmpty {
      return URL(fileURLWithPath: home, isDirectory: true)
    }
    if let dataHome = environment["XDG_DATA_HOME"], dataHome.hasPrefix("/") {
      return URL(fileURLWithPath: dataHome, isDirectory: true).appendingPathComponent(
        "keychain-bridge", isDirectory: true)
    }
    return homeDirectory(environment).appendingPathComponent(".local/share/keychain-bridge", isDirectory: true)
  }

  /// The user's home: `HOME` when it is an absolute path (as every other program reads it, so a
  /// service started with another HOME serves that home's store), else the password database's.
  package static func homeDirectory(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
    if let home = environment["HOME"], home.hasPrefix("/") { return URL(fileURLWithPath: home, isDirectory: true) }
    return FileManager.default.homeDirectoryForCurrentUser
  }

  private static let defaultState = Mutex<(directory: URL?, store: KeychainStore?, failure: KeychainStoreError?)>(
    (nil, nil, nil))

  /// Why the default store could not be opened the last time a call tried, or nil when it opened.
  ///
  /// Apple-style code only sees the status of its SecItem calls; `SecCopyErrorMessageString` (and so
  /// `KeychainError.message`) adds this reason to that status's sentence.
  public static var defaultStoreFailure: KeychainStoreError? { defaultState.withLock { $0.failure } }

  /// Makes the store at `directory` the default of this process (instead of the environment's).
  public static func setDefaultDirectory(_ directory: URL) {
    defaultState.withLock { $0 = (directory, nil, nil) }
  }

  /// The default store of this process, opened on first use.
  ///
  /// When `KEYCHAIN_BRIDGE_PASSPHRASE` is set, the default store is opened (or created) with that
  /// passphrase: a passphrase store is a device with a passcode set, so WhenPasscodeSet items
  /// work. This is meant for test suites and CI written for a simulator with a passcode, which then
  /// run unchanged; a passphrase in the environment is readable by the process's children and by
  /// anyone who can read its environment, so applications should call `unlock(passphrase:)`.
  ///
  /// When `KEYCHAIN_BRIDGE_AGENT` names a socket (and no directory was set with
  /// `setDefaultDirectory`), the default store is the one the agent `keychaind` serves there: this
  /// process opens no store file and no key, and locks and unlocks act on the agent, for every
  /// process it serves. An agent that does not answer is errSecNotAvailable, saying how to start
  /// it; there is no fallback to a store in this process. `KEYCHAIN_BRIDGE_AGENT=auto` names the
  /// agent's usual socket (`$XDG_RUNTIME_DIR/keychain-bridge/agent.sock`, the one its systemd
  /// units make) and starts `keychaind` there when nothing answers, as gpg starts gpg-agent.
  public static func `default`() throws(KeychainStoreError) -> KeychainStore {
    let existing = defaultState.withLock { $0.store }
    if let existing { return existing }
    let chosen = defaultState.withLock { $0.directory }
    let environment = ProcessInfo.processInfo.environment
    let opened: KeychainStore
    do {
      if chosen == nil, let socket = environment["KEYCHAIN_BRIDGE_AGENT"], !socket.isEmpty {
        opened =
          socket == "auto"
          ? try agentStore(socketPath: automaticAgentSocketPath, startingOnDemand: true)
          : try agentStore(socketPath: socket)
      } else {
        let passphrase = environment["KEYCHAIN_BRIDGE_PASSPHRASE"].flatMap { $0.isEmpty ? nil : $0 }
        opened = try KeychainStore(directory: chosen ?? defaultDirectory, passphrase: passphrase)
      }
    } catch {
      defaultState.withLock { $0.failure = error }
      throw error
    }
    return defaultState.withLock { state in
      state.failure = nil
      if let winner = state.store { return winner }
      state.store = opened
      return opened
    }
  }
}

/// What `KeychainStore.checkIntegrity()` found.
public struct KeychainIntegrityReport: Sendable, Equatable {
  /// How many items the store holds.
  public var checkedItems: Int
  /// How many of them failed authentication: altered, swapped or damaged on disk.
  public var damagedItems: Int
  /// How many damaged rows SecItem calls on this store skipped since it was opened in this process.
  public var skippedSinceOpen: Int

  /// Creates a report from its counts.
  package init(checkedItems: Int, damagedItems: Int, skippedSinceOpen: Int) {
    self.checkedItems = checkedItems
    self.damagedItems = damagedItems
    self.skippedSinceOpen = skippedSinceOpen
  }
}

/// The access groups of this process, in order; the first is the default group of new items
/// (rule 11, SpecificationDecisions "Access groups").
///
/// They come from `setAccessGroups(_:)`, else from `KEYCHAIN_BRIDGE_ACCESS_GROUPS`
/// (comma-separated, read once, at the first call that needs it), else they are
/// `[defaultAccessGroup]`. The group "*" grants every group.
public enum KeychainAccessGroups {
  /// The group of a process that configured none: "keychain-bridge.default".
  public static let defaultAccessGroup = "keychain-bridge.default"

  private static let configured = Mutex<[String]?>(nil)

  /// Sets this process's access groups (an empty list makes every call errSecMissingEntitlement).
  public static func setAccessGroups(_ groups: [String]) {
    configured.withLock { $0 = groups }
  }

  /// The groups of the environment, read once: building ProcessInfo's environment costs about 19 µs,
  /// a third of a lookup, and every SecItem call of Apple-style code would pay it.
  private static let environmentGroups: [String] = {
    guard let value = ProcessInfo.processInfo.environment["KEYCHAIN_BRIDGE_ACCESS_GROUPS"] else {
      return [defaultAccessGroup]
    }
    return value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
  }()

  /// This process's access groups.
  public static var current: [String] {
    configured.withLock { $0 } ?? environmentGroups
  }

  /// Whether this process chose its groups (`setAccessGroups(_:)` or the environment).
  static let environmentNamesGroups = ProcessInfo.processInfo.environment["KEYCHAIN_BRIDGE_ACCESS_GROUPS"] != nil
  static var isConfigured: Bool { configured.withLock { $0 != nil } || environmentNamesGroups }

  /// The groups a call runs with when its store grants `granted` (an agent's policy): what the
  /// caller asks for within what is granted, in the caller's order; everything granted when the
  /// caller asks for "*" or chose nothing (as an app's entitlements are its groups). A caller
  /// granted every group that chose none searches them all and adds to its default group, as
  /// macOS's `security` reaches every item of the user's keychain.
  static func narrowed(_ requested: [String], to granted: [String], callerChose: Bool) -> [String] {
    if granted.contains("*") { return callerChose || requested.contains("*") ? requested : requested + ["*"] }
    if !callerChose || requested.contains("*") { return granted }
    return requested.filter(granted.contains)
  }
}

/// The store and access groups one SecItem call runs with.
struct KeychainContext: Sendable {
  var store: KeychainStore?
  var accessGroups: [String]?
  /// The backend the CF functions run with in this context (`withKeychainBackend`); nil: the
  /// store's, else the linked one (`resolvedBackend`).
  var backend: (any SecurityBackend)?

  @TaskLocal static var current = KeychainContext()

  func resolvedStore() throws(SecStatus) -> KeychainStore {
    if let store { return store }
    do {
      return try KeychainStore.default()
    } catch {
      throw SecStatus(error.status)
    }
  }

  var resolvedAccessGroups: [String] { accessGroups ?? KeychainAccessGroups.current }
}

/// Runs `body` with every SecItem call in it (on this task) going to `store`, as a caller with
/// `accessGroups` (nil keeps the process's groups). Lets tests and tools use several stores at once.
public func withKeychainContext<T>(
  store: KeychainStore, accessGroups: [String]? = nil, _ body: () throws -> T
) rethrows -> T {
  var context = KeychainContext.current
  context.store = store
  context.accessGroups = accessGroups
  return try KeychainContext.$current.withValue(context, operation: body)
}

/// The async form of `withKeychainContext(store:accessGroups:_:)`.
public func withKeychainContext<T>(
  store: KeychainStore, accessGroups: [String]? = nil, _ body: () async throws -> T
) async rethrows -> T {
  var context = KeychainContext.current
  context.store = store
  context.accessGroups = accessGroups
  return try await KeychainContext.$current.withValue(context, operation: body)
}
