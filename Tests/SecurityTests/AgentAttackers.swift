import AgentProcess
import Foundation
import KeychainAgentWire
import KeychainStorageAgent
import Testing

@testable import Security

#if canImport(Glibc)
  import Glibc
#endif

/// The attackers of `AgentAttacks` (issue 49): the scripts that speak the agent's wire protocol as
/// a hostile program of the same user would (python3, perl), and what the tests read of the agent
/// process (its memory, environment and descriptors).
enum AgentAttackers {
  static let python = "/usr/bin/python3"
  /// The file /proc/PID/exe names for python3: a rule names executables by their real path.
  static var pythonExecutable: String { URL(fileURLWithPath: python).resolvingSymlinksInPath().path }
  static let trustedProgram = "/usr/bin/sleep"

  /// The attacker's side: connects, races, hands over, and prints the agent's answer in hex, or
  /// "closed" when the agent ended the connection. It waits up to 30 s for the greeting, as
  /// clients do, so a loaded machine does not make an honest connection send too early.
  static let attacker = #"""
    import os, socket, sys, signal, time
    mode, path, agent, frame = sys.argv[1], sys.argv[2], int(sys.argv[3]), bytes.fromhex(sys.argv[4])
    GREETING = bytes([2, 2])
    def read_frame(s, timeout):
        s.settimeout(timeout)
        try:
            data = b''
            while len(data) < 4:
                chunk = s.recv(4 - len(data))
                if not chunk: return None
                data += chunk
            length, body = int.from_bytes(data, 'little'), b''
            while len(body) < length:
                chunk = s.recv(length - len(body))
                if not chunk: return None
                body += chunk
            return body
        except socket.timeout:
            return b''
        except OSError:
            return None
    def report(answer):
        print('closed' if not answer else answer.hex(), flush=True)
    def pause(pid):
        # kill returns before the signal is taken: every thread is waited for until stopped (state
        # T), or a loaded machine lets a thread accept the race's connection first.
        os.kill(pid, signal.SIGSTOP)
        for _ in range(3000):
            states = []
            for task in os.listdir('/proc/%d/task' % pid):
                try:
                    with open('/proc/%d/task/%s/stat' % (pid, task)) as f: states.append(f.read().rsplit(')', 1)[1].split()[0])
                except OSError: pass
            if states and all(state in 'Tt' for state in states): return
            time.sleep(0.01)
        raise SystemExit('the agent did not stop')
    if mode in ('parent-sends', 'child-sends'):
        # Another process connects, then runs a trusted program; this one keeps the socket.
        trusted = sys.argv[5]
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        pause(agent)
        try:
            child = os.fork()
            if child == 0:
                s.connect(path)
                if mode == 'child-sends': s.sendall(frame)
                os.execv(trusted, [trusted, '20'])
            for _ in range(1000):
                try:
                    if os.readlink('/proc/%d/exe' % child) == trusted: break
                except OSError: pass
                time.sleep(0.01)
        finally:
            os.kill(agent, signal.SIGCONT)
        first = read_frame(s, 30)
        if mode == 'parent-sends':
            if first is None: report(None)
            else:
                s.sendall(frame)
                report(read_frame(s, 20))
        else:
            report(read_frame(s, 20) if first == GREETING else first)
        os.kill(child, signal.SIGKILL)
    elif mode == 'hand-over':
        # This (trusted) program connects, then runs perl on the same socket.
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(path)
        read_frame(s, 30)
        fd = s.detach()
        os.set_inheritable(fd, True)
        os.execv('/usr/bin/perl', ['perl', '-e', sys.argv[5], str(fd), sys.argv[4]])
    else:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(path)
        first = read_frame(s, 30)
        if first is None: report(None)
        else:
            s.sendall(frame)
            report(read_frame(s, 20))
    """#

  /// perl's half of the hand-over: sends the frame on the inherited descriptor, prints the answer.
  static let perlClient = #"""
    my ($fd, $hex) = @ARGV; open(my $s, '+<&=', $fd) or die "fd: $!"; binmode $s;
    syswrite($s, pack('H*', $hex));
    local $SIG{ALRM} = sub { print "closed\n"; exit 0 }; alarm 20;
    sub take { my $n = shift; my $d = ''; while (length($d) < $n) { my $r = sysread($s, my $c, $n - length($d));
      if (!$r) { print "closed\n"; exit 0 } $d .= $c } return $d }
    my $length = unpack('V', take(4)); print unpack('H*', take($length)), "\n";
    """#

  /// A `find` of every item in `group` with its data, as a wire frame (length and body).
  /// A SecItemCopyMatching request for every secret of `group`, as the caller of that group.
  static func findFrame(group: String) -> [UInt8] {
    let query: RequestEntries = [
      (SecConstantValue.`class`, .string(SecConstantValue.classGenericPassword)),
      (SecConstantValue.matchLimit, .string(SecConstantValue.matchLimitAll)),
      (SecConstantValue.returnData, .number(.integer(1), isBoolean: true)),
    ]
    let body = AgentFrame.request(.copyMatching) { writer in
      writer.list([group]) { $0.string($1) }
      // Plain values only: nothing here can fail to cross.
      writer.entries(query.map { ($0.0, TransferredValue.plain($0.1)) })
    }
    return framed(body)
  }

  static func framed(_ body: [UInt8]) -> [UInt8] {
    var frame: [UInt8] = []
    TaggedBinaryForm.appendLength(body.count, to: &frame)
    return frame + body
  }

  static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

  /// The bytes a line of hexadecimal digits spells, up to the first pair that is not hexadecimal.
  static func bytes(fromHex line: String) -> [UInt8] {
    var bytes: [UInt8] = []
    var index = line.startIndex
    while let next = line.index(index, offsetBy: 2, limitedBy: line.endIndex), next > index,
      let byte = UInt8(line[index..<next], radix: 16)
    {
      bytes.append(byte)
      index = next
    }
    return bytes
  }

  /// Runs the attacker in `mode`; its answer's bytes, or nil when the agent closed the connection.
  static func attack(
    _ mode: String, _ agent: RunningAgent, frame: [UInt8], extra: [String] = [], environment: [String: String] = [:]
  ) throws -> [UInt8]? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: python)
    process.arguments =
      ["-c", attacker, mode, agent.socketPath, "\(agent.process.processIdentifier)", hex(frame)] + extra
    var base = ProcessInfo.processInfo.environment
    base.merge(environment) { $1 }
    process.environment = base
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    let line = text.trimmingCharacters(in: .whitespacesAndNewlines)
    guard line != "closed" else { return nil }
    let bytes = AgentAttackers.bytes(fromHex: line)
    try #require(!bytes.isEmpty, "the attacker printed \(text)")
    return bytes
  }

  /// The secrets an answer to `findFrame` carries.
  /// An answer that refuses the group (errSecMissingEntitlement) or finds nothing carries none.
  static func secrets(in answer: [UInt8]) throws -> [String] {
    let read: Result<WireReader, SecStatus> = Result { () throws(SecStatus) in try AgentFrame.readAnswer(answer) }
    var reader: WireReader
    switch read {
    case .success(let answered): reader = answered
    case .failure(let status):
      if status.code == errSecMissingEntitlement || status.code == errSecItemNotFound { return [] }
      throw status
    }
    _ = try reader.list { reader throws(SecStatus) in try reader.flag() }  // the contexts' proofs
    let items = try reader.list { reader throws(SecStatus) in try reader.storedItem() }
    return items.compactMap { $0.data.map { String(decoding: $0, as: UTF8.self) } }
  }

  /// An agent whose policy gives `group` to `program` only, holding one secret there.
  static func agentGuarding(_ group: String, for program: String) throws -> RunningAgent {
    let agent = try RunningAgent(policy: RunningAgent.defaultPolicy + "\(program) = \(group)\n")
    let store = try AgentTests.client(agent)
    withKeychainContext(store: store, accessGroups: [group]) {
      let status = SecItemAdd(
        [
          kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "attack",
          kSecAttrAccount as String: "victim", kSecValueData as String: Data("the guarded secret".utf8),
        ] as CFDictionary, nil)
      #expect(status == errSecSuccess)
    }
    return agent
  }

  /// The agent's resident memory, in KiB.
  static func residentKilobytes(_ agent: RunningAgent) throws -> Int {
    let status = try String(contentsOfFile: "/proc/\(agent.process.processIdentifier)/status", encoding: .utf8)
    let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
    return try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
  }

  /// The processes whose command line serves `socket` (`keychaind --socket SOCKET`).
  static func agents(serving socket: String) -> [Int32] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap(Int32.init).filter { pid in
      guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
      let arguments = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
      return arguments.first?.hasSuffix("keychaind") == true && arguments.contains(socket)
    }
  }

  /// A process's environment, as /proc shows it (root reads a non-dumpable process's too).
  static func environment(of pid: Int32) throws -> [String] {
    let data = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/\(pid)/environ")).readToEnd() ?? Data()
    return data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
  }

  static var preloadedLibrary: String? {
    ["/lib/x86_64-linux-gnu/libm.so.6", "/lib/aarch64-linux-gnu/libm.so.6", "/usr/lib64/libm.so.6"].first {
      FileManager.default.fileExists(atPath: $0)
    }
  }

  /// A relay at the agent's socket path, as a same-user program would put one: it renames the
  /// real socket, listens at its path, and copies what clients send to a file as it passes it on.
  static let relay = #"""
    import os, socket, sys, threading
    real, path, capture = sys.argv[1], sys.argv[2], sys.argv[3]
    os.rename(path, real)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(8)
    print('ready', flush=True)
    def pump(source, target, log):
        while True:
            data = source.recv(65536)
            if not data: break
            if log: log.write(data); log.flush()
            target.sendall(data)
    while True:
        client, _ = server.accept()
        upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        upstream.connect(real)
        log = open(capture, 'ab')
        threading.Thread(target=pump, args=(client, upstream, log), daemon=True).start()
        threading.Thread(target=pump, args=(upstream, client, None), daemon=True).start()
    """#

  /// Counts the copies of a string in a process's readable memory (/proc/PID/mem, as root).
  static let memoryScan = #"""
    import re, sys
    pid, needle, count = int(sys.argv[1]), sys.argv[2].encode(), 0
    with open('/proc/%d/maps' % pid) as maps, open('/proc/%d/mem' % pid, 'rb', 0) as mem:
        for line in maps:
            fields = line.split()
            start, end = (int(x, 16) for x in fields[0].split('-'))
            if 'r' not in fields[1]: continue
            try:
                mem.seek(start)
                count += mem.read(end - start).count(needle)
            except (OSError, ValueError, OverflowError):
                pass
    print(count)
    """#

  static func copies(of text: String, inMemoryOf pid: Int32) throws -> Int {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: python)
    process.arguments = ["-c", memoryScan, "\(pid)", text]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return try #require(Int(printed.trimmingCharacters(in: .whitespacesAndNewlines)), "the scan printed \(printed)")
  }
}
