import Foundation
import Logging
import Security
import Synchronization

/// A caller the agent identified: the process, the file it runs, what the policy grants it, and
/// what the user proved to the agent for it.
package struct AgentCaller: Sendable {
  /// The calling process.
  package let pid: Int32
  /// The file it ran when identified: each request checks it still does.
  package let file: RunningFile
  /// Its executable's path as the policy and the prompts name it.
  package let executable: String
  /// Its executable's file name, as the engine's prompts name the program: made once, as every
  /// request of the caller's (each D-Bus call) names it.
  package let programName: String
  /// The groups the policy grants it.
  package let grant: AccessGrant
  /// What the user proved for it, and its authenticator.
  package let session: CallerSession

  /// The caller `pid`, running `file` at `executable`, granted `grant`, with its `session`.
  package init(pid: Int32, file: RunningFile, executable: String, grant: AccessGrant, session: CallerSession) {
    self.pid = pid
    self.file = file
    self.executable = executable
    programName = Self.programName(of: executable)
    self.grant = grant
    self.session = session
  }

  /// The file name of `executable`, as prompts name a program (the whole path when it has none).
  package static func programName(of executable: String) -> String {
    let name = executable.split(separator: "/").last.map(String.init) ?? executable
    return name.isEmpty ? executable : name
  }
}

/// The agent's core, with no socket or bus in it (issue 50): the store it alone holds, the policy
/// that decides who gets which groups, the idle lock, the count of wrong passphrases, and the
/// callers it serves. A front end identifies a caller by its process (`identify`), then runs its
/// requests here: the agent socket's requests through `answer`, and every front end's SecItem calls
/// through the caller's own engine (`engine(for:)`).
package final class AgentService: Sendable {
  /// The store the agent holds; its storage is every caller's.
  package let store: KeychainStore
  /// The store's rows, keys, feed and maintenance.
  package let storage: any ItemStorage
  /// The backend the engines and the row checks use.
  package let backend: any SecurityBackend
  /// Which groups each program gets.
  package let policy: AgentPolicy
  /// Locks a passphrase store when no request comes for a while.
  package let idleLock: IdleLock
  /// The count of wrong passphrases, the one the store's prompts keep: `unlock` requests count too.
  package let ledger: FailedAttemptLedger
  /// Operational events (callers refused, connections ended), never values.
  package let logger: Logger
  /// Why callers were refused or connections ended other than by their client closing them, by
  /// reason: the figures the attack tests and an operator read (`events`).
  private let counts = Mutex<[String: Int]>([:])
  /// The executables already told to have no rule (logged once each, not on every connection).
  private let unnamedLogged = Mutex<Set<String>>([])

  /// The service over `store`.
  package init(
    store: KeychainStore, storage: any ItemStorage, backend: any SecurityBackend, policy: AgentPolicy,
    idleLock: IdleLock, ledger: FailedAttemptLedger, logger: Logger
  ) {
    self.store = store
    self.storage = storage
    self.backend = backend
    self.policy = policy
    self.idleLock = idleLock
    self.ledger = ledger
    self.logger = logger
  }

  /// Who is calling, which decides the groups as entitlements do: the executable behind `pid`,
  /// read as of `acceptedAt` (ticks since boot, when the caller connected) and checked to be the
  /// file the process runs before and after (ProcessInspection). A program in another mount or
  /// user namespace, or a program a rule names that was started altered (a loader variable, a
  /// tracer), gets a group of its own only. nil, with the reason counted, when the executable
  /// cannot be known.
  package func identify(pid: Int32, acceptedAt: UInt64) -> AgentCaller? {
    guard let file = ProcessInspection.runningFile(of: pid),
      let path = ProcessInspection.executable(of: pid, acceptedAt: acceptedAt),
      ProcessInspection.runningFile(of: pid) == file
    else {
      count("an executable that cannot be known")
      logger.warning("refused a caller", metadata: ["pid": .stringConvertible(pid)])
      return nil
    }
    var executable = path
    var grant: AccessGrant
    if let namespace = ProcessInspection.foreignNamespace(of: pid) {
      // Its path names nothing the agent can trust (a bind mount may put any file there): no rule
      // applies, and its own group is told apart from that path's own group here.
      executable = "\(executable) (in another \(namespace == "mnt" ? "mount" : "user") namespace)"
      count("a program in another namespace: its own group only")
      grant = .ownGroup(of: executable)
    } else {
      grant = policy.grant(for: executable) { ProcessInspection.sha256(of: pid, acceptedAt: acceptedAt) }
    }
    if !grant.namedByRule, !policy.rules.isEmpty,
      unnamedLogged.withLock({ logged in
        // Bounded: past 1,024 programs the record starts again, so none goes unlogged.
        if logged.count >= 1024 { logged.removeAll() }
        return logged.insert(executable).inserted
      })
    {
      // Said once per program, with the path the agent saw: a rule must name exactly that file.
      logger.info(
        """
        no rule of the agent's policy names this program: on the agent's socket it gets a group of its own, \
        on the Secret Service the collections no rule confines
        """,
        metadata: ["executable": .string(executable)])
    }
    if grant.namedByRule, let alteration = ProcessInspection.alteration(of: pid) {
      // The rule trusts the program, not code put into it: its own group only, as a program no
      // rule names.
      count("a program the policy names, altered: its own group only")
      logger.warning(
        "gave a program the policy names its own group only, because \(alteration)",
        metadata: ["executable": .string(executable), "pid": .stringConvertible(pid)])
      grant = .ownGroup(of: executable)
    }
    return AgentCaller(
      pid: pid, file: file, executable: executable, grant: grant,
      session: CallerSession(authenticator: store.authenticator, executable: executable))
  }

  /// Whether `caller`'s process still runs the file it was identified with (not another program
  /// since an exec, nor gone).
  package func isStillRunning(_ caller: AgentCaller) -> Bool {
    ProcessInspection.runningFile(of: caller.pid) == caller.file
  }

  /// The SecItem engine of `caller`: the agent's store, the groups the policy grants it (all of
  /// them for "*"), its session as the authenticator. Everything Apple's rules decide is decided
  /// here, in the agent, for what this caller asks.
  package func engine(for caller: AgentCaller) -> SecItemEngine {
    engine(groups: caller.grant.groups ?? ["*"], authenticator: caller.session, programName: caller.programName)
  }

  /// An engine over the agent's store for `groups`, asking the user through `authenticator` (the
  /// store's own prompt when nil) and naming the caller `programName` in its prompts.
  package func engine(
    groups: [String], authenticator: (any UserAuthenticating)? = nil, programName: String = "keychaind"
  ) -> SecItemEngine {
    SecItemEngine(
      storage: storage, accessGroups: groups, authenticator: authenticator ?? store.authenticator, backend: backend,
      programName: programName)
  }

  /// The answer to one request of the agent's protocol from `caller` (AgentDispatch), or nil when
  /// it waits for the user and comes later through `later`. Throws when the request itself is
  /// malformed: the front end then ends the connection.
  package func answer(
    _ body: [UInt8], from caller: AgentCaller, later: @escaping @Sendable (inout [UInt8]) -> Void
  ) throws(SecStatus) -> [UInt8]? {
    if AgentDispatch.isUseOfTheStore(body) { idleLock.touch() }
    return try AgentDispatch.answer(body, service: self, caller: caller, later: later)
  }

  /// Counts one more event for `reason`.
  package func count(_ reason: String, _ times: Int = 1) { counts.withLock { $0[reason, default: 0] += times } }

  /// How many times each reason was counted: callers refused, connections ended other than by
  /// their client.
  package var events: [String: Int] { counts.withLock { $0 } }

  /// Drops every key, for a process about to exit.
  package func stop() {
    storage.dropKeys()
  }
}
