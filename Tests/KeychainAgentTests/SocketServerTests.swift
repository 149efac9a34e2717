import Foundation
import KeychainAgentWire
import KeychainStorageMemory
import Synchronization
import Testing

@testable import KeychainAgent
@_spi(KeychainBridge) @testable import Security

#if canImport(Glibc)
  import Glibc
#endif

/// The agent's socket front end, served in this process on a private socket (issue 50): its
/// connections cost no thread each, and every caller gets an engine of its own.
@Suite("The agent's socket and its callers")
struct SocketServerTests {
  /// A server over a new in-memory storage on a socket of its own, serving on a thread.
  static func startServer() throws -> (AgentSocketServer, String) {
    let folder = "/tmp/kb-agent-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    let server = try AgentSocketServer(
      socketPath: "\(folder)/agent.sock", service: try AgentServices.make(over: InMemoryItemStorage()))
    let thread = Thread { server.serve() }
    thread.start()
    return (server, folder)
  }

  /// A greeted client connection whose reads give up after 30 s, so that a server that never
  /// answers fails the test instead of hanging it.
  static func connect(to server: AgentSocketServer) throws -> Int32 {
    let descriptor = try AgentHandshake.connect(to: server.socketPath)
    var patience = timeval(tv_sec: 30, tv_usec: 0)
    setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &patience, socklen_t(MemoryLayout<timeval>.size))
    return descriptor
  }

  static func threadCount() throws -> Int {
    try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count
  }

  @Test("A hundred and twenty open connections cost no thread each, and each is answered")
  func connectionsCostNoThreadEach() throws {
    let (server, folder) = try Self.startServer()
    defer {
      server.stopServing()
      try? FileManager.default.removeItem(atPath: folder)
    }
    // The pool's threads start with the server; the first greeting proves the loop runs.
    let first = try Self.connect(to: server)
    let before = try Self.threadCount()
    var clients = [first]
    defer { for client in clients { close(client) } }
    // From one process, below the agent's bound for one process (128).
    for _ in 1..<120 { clients.append(try Self.connect(to: server)) }
    #expect(server.openConnections == 120)
    let after = try Self.threadCount()
    // A thread per connection would be 119 more; the loop and its pool are already running.
    #expect(after - before < 10, "threads: \(before) before, \(after) with 120 connections")
    // Every connection is served: a state request on each, all sent before any answer is read.
    for client in clients { try FrameSocket.send(AgentFrame.request(.state), on: client) }
    for client in clients {
      let answer = try #require(try FrameSocket.receive(on: client))
      var reader = try AgentFrame.readAnswer(answer)
      #expect(try reader.flag() == false)  // not locked
    }
  }

  @Test("A connection that sends half a frame holds no thread and does not stop the others")
  func halfAFrameHoldsNothing() throws {
    let (server, folder) = try Self.startServer()
    defer {
      server.stopServing()
      try? FileManager.default.removeItem(atPath: folder)
    }
    let stalled = (0..<32).map { _ in try? Self.connect(to: server) }.compactMap { $0 }
    defer { for client in stalled { close(client) } }
    // Each announces a frame of 1 MiB and sends four bytes of it.
    for client in stalled {
      let header: [UInt8] = [0x00, 0x00, 0x10, 0x00, 2, 3, 0, 0]
      #expect(header.withUnsafeBytes { send(client, $0.baseAddress, $0.count, 0) } == 8)
    }
    let client = try Self.connect(to: server)
    defer { close(client) }
    try FrameSocket.send(AgentFrame.request(.state), on: client)
    #expect(try AgentFrame.readAnswer(try #require(try FrameSocket.receive(on: client))).isAtEnd == false)
  }

  /// A prompt service whose prompts wait until the test opens its gate, then answer `answer`.
  final class GatedPrompts: PromptService, @unchecked Sendable {
    // @unchecked: `pending` is used under `lock` only.
    private let lock = NSLock()
    private var pending: [@Sendable (PromptAnswer) -> Void] = []
    let answer: [UInt8]

    init(answer: String) { self.answer = Array(answer.utf8) }

    func unavailability() -> PromptUnavailable? { nil }

    func ask(_ text: String, completion: @escaping @Sendable (PromptAnswer) -> Void) {
      lock.withLock { pending.append(completion) }
    }

    var waiting: Int { lock.withLock { pending.count } }

    /// Answers every waiting prompt.
    func open() {
      for completion in lock.withLock({ () -> [@Sendable (PromptAnswer) -> Void] in
        defer { pending = [] }
        return pending
      }) {
        completion(.answered(answer))
      }
    }
  }

  /// An agent over a passphrase store ("open sesame") serving a private socket, whose prompts
  /// wait for the test to open them and then answer `answer`.
  static func gatedAgent(answering answer: String) throws -> (AgentService, GatedPrompts, AgentSocketServer) {
    let storage = InMemoryItemStorage(passphrase: "open sesame")
    let folder = "/tmp/kb-agent-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    let service = try AgentServices.make(over: storage)
    let prompts = GatedPrompts(answer: answer)
    service.store.authenticator = PassphraseAuthenticator(
      storage: storage, ledger: FailedAttemptLedger(directory: nil), prompt: prompts)
    let server = try AgentSocketServer(socketPath: "\(folder)/agent.sock", service: service)
    Thread { server.serve() }.start()
    return (service, prompts, server)
  }

  /// Waits for the first prompt, then checks that it is the only one shown and that a new client
  /// is answered meanwhile (no worker is held by the callers waiting for the user).
  static func expectOnePromptAndAnotherClientServed(_ prompts: GatedPrompts, _ server: AgentSocketServer) throws {
    for _ in 0..<3000 where prompts.waiting == 0 { usleep(10_000) }
    #expect(prompts.waiting == 1)
    let other = try Self.connect(to: server)
    defer { close(other) }
    try FrameSocket.send(AgentFrame.request(.state), on: other)
    #expect(try FrameSocket.receive(on: other) != nil)
  }

  /// Stops `server` and removes its socket's folder.
  static func stop(_ server: AgentSocketServer) {
    server.stopServing()
    try? FileManager.default.removeItem(atPath: (server.socketPath as NSString).deletingLastPathComponent)
  }

  @Test("A client waiting for the user holds no worker: others are served meanwhile")
  func aPromptHoldsNoWorker() throws {
    let (_, prompts, server) = try Self.gatedAgent(answering: "open sesame")
    defer { Self.stop(server) }
    // More clients wait for the user than the pool has threads.
    let askers = try (0..<(SocketEventLoop.workerThreads + 4)).map { _ in
      try Self.connect(to: server)
    }
    defer { for client in askers { close(client) } }
    for client in askers {
      try FrameSocket.send(
        AgentFrame.request(.authenticateUser) { writer in
          writer.string("unlock the vault")
          writer.int(0)
        }, on: client)
    }
    // One prompt at a time is shown; the others wait in the authenticator's queue, not in workers.
    try Self.expectOnePromptAndAnotherClientServed(prompts, server)
    // The user answers each prompt as it comes (in the order the agent took the requests, which
    // need not be the order they were sent); every asker is answered.
    let answering = Atomic<Bool>(true)
    let user = Thread {
      while answering.load(ordering: .relaxed) {
        prompts.open()
        usleep(5_000)
      }
    }
    user.start()
    defer { answering.store(false, ordering: .relaxed) }
    for client in askers {
      var reader = try AgentFrame.readAnswer(try #require(try FrameSocket.receive(on: client)))
      #expect(try reader.flag() == false, "the authentication failed")
    }
  }

  @Test("A client waiting to type an application password holds no worker: others are served meanwhile")
  func anApplicationPasswordPromptHoldsNoWorker() throws {
    let (service, prompts, server) = try Self.gatedAgent(answering: "app pw")
    defer { Self.stop(server) }
    // The agent's policy grants this test program its own group, named by its executable.
    let acceptedAt = try #require(ProcessInspection.ticksSinceBoot())
    let group = try #require(service.identify(pid: getpid(), acceptedAt: acceptedAt)).executable
    let answering = Atomic<Bool>(false)
    let user = Thread {
      while true {
        if answering.load(ordering: .relaxed) { prompts.open() }
        usleep(5_000)
      }
    }
    user.start()
    // Added with a password the agent asks for ("Choose its password").
    let control = try #require(
      SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, .applicationPassword, nil))
    let adder = try Self.connect(to: server)
    defer { close(adder) }
    try FrameSocket.send(
      try CraftedFrameTests.frame(
        .add, groups: [group], [CraftedFrameTests.password("sealed", [SecConstantValue.attrAccessControl: control])]),
      on: adder)
    answering.store(true, ordering: .relaxed)
    _ = try AgentFrame.readAnswer(try #require(try FrameSocket.receive(on: adder)))
    answering.store(false, ordering: .relaxed)
    // More clients read it, each asked its password, than the pool has threads.
    let read = try CraftedFrameTests.frame(
      .copyMatching, groups: [group],
      [
        [
          SecConstantValue.`class`: SecConstantValue.classGenericPassword, SecConstantValue.attrAccount: "sealed",
          SecConstantValue.returnData: true,
        ]
      ])
    let readers = try (0..<(SocketEventLoop.workerThreads + 4)).map { _ in try Self.connect(to: server) }
    defer { for client in readers { close(client) } }
    for client in readers { try FrameSocket.send(read, on: client) }
    try Self.expectOnePromptAndAnotherClientServed(prompts, server)
    answering.store(true, ordering: .relaxed)
    for client in readers {
      var reader = try AgentFrame.readAnswer(try #require(try FrameSocket.receive(on: client)))
      _ = try reader.list { reader throws(SecStatus) in try reader.flag() }
      let items: [StoredItem] = try reader.list { reader throws(SecStatus) in try reader.storedItem() }
      #expect(items.map(\.data) == [Data("hunter2".utf8)])
    }
    answering.store(false, ordering: .relaxed)
  }

  @Test("Each caller's engine sees the groups the policy grants it, and no other")
  func eachCallerHasItsOwnEngine() throws {
    let service = try AgentServices.make(over: InMemoryItemStorage())
    let mail = try AgentServices.caller(of: service, granted: ["org.example.mail"])
    let browser = try AgentServices.caller(of: service, granted: ["org.example.browser"])
    let everything = try AgentServices.caller(of: service, granted: nil)
    func request(_ account: String, data: String? = nil) throws -> ItemRequest {
      var dictionary: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: account,
        kSecReturnData as String: data == nil, kSecMatchLimit as String: kSecMatchLimitAll,
      ]
      if let data {
        dictionary[kSecValueData as String] = Data(data.utf8)
        dictionary[kSecReturnData as String] = nil
        dictionary[kSecMatchLimit as String] = nil
      }
      return try ItemRequest.reading(dictionary as NSDictionary)
    }
    _ = try service.engine(for: mail).add(try request("alice", data: "mail's"))
    #expect(throws: SecStatus.itemNotFound) {
      try service.engine(for: browser).matchingItems(try request("alice"))
    }
    // The caller cannot name a group it was not granted (rule 3.4), whatever it asks for.
    let intoMail = try ItemRequest.reading(
      [
        kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "bob",
        kSecAttrAccessGroup as String: "org.example.mail", kSecValueData as String: Data("x".utf8),
      ] as NSDictionary)
    #expect(throws: SecStatus.missingEntitlement) { try service.engine(for: browser).add(intoMail) }
    let all = try service.engine(for: everything).searchedItems(try request("alice"))
    #expect(all.map(\.data) == [Data("mail's".utf8)])
  }
}
