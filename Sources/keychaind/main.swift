import CKeychainAgent
import Foundation
import Logging
import Security

#if canImport(Glibc)
  import Glibc
#endif

// keychaind: the per-user keychain agent. It alone opens the store and its key file and holds the
// unwrapped keys; programs reach the store through its socket (KEYCHAIN_BRIDGE_AGENT), so one lock
// holds for all of them. See the Security documentation's "Keychain agent" article.

let usage = """
  usage: keychaind --socket PATH [--store DIR] [--policy FILE]

  Serves the keychain store in DIR (default: the store KEYCHAIN_BRIDGE_HOME names, else
  $XDG_DATA_HOME/keychain-bridge) on the Unix socket PATH, in the foreground, until SIGTERM or
  SIGINT. PATH's folder must be the user's alone (0700), as $XDG_RUNTIME_DIR is; it is created 0700
  when missing. A passphrase store is opened locked unless KEYCHAIN_BRIDGE_PASSPHRASE is set;
  clients unlock it with `security unlock-keychain`.

  Each program gets the access groups the policy grants its executable (/etc/keychain-bridge/
  agent-policy, then $XDG_CONFIG_HOME/keychain-bridge/agent-policy; or FILE alone), whatever it
  asks for; a program no rule names gets one group of its own, its executable's path.

  """

func fail(_ message: String, status: Int32 = 1) -> Never {
  FileHandle.standardError.write(Data("keychaind: \(message)\n".utf8))
  exit(status)
}

var socketPath: String?
var storeDirectory: URL?
var policyPath: String?
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
  switch argument {
  case "--socket":
    guard let value = arguments.popFirst(), !value.isEmpty else { fail("--socket needs a path\n\(usage)", status: 64) }
    socketPath = value
  case "--store":
    guard let value = arguments.popFirst(), !value.isEmpty else { fail("--store needs a folder\n\(usage)", status: 64) }
    storeDirectory = URL(fileURLWithPath: value, isDirectory: true)
  case "--policy":
    guard let value = arguments.popFirst(), !value.isEmpty else { fail("--policy needs a file\n\(usage)", status: 64) }
    policyPath = value
  case "-h", "--help":
    print(usage, terminator: "")
    exit(0)
  default:
    fail("unknown argument \(argument)\n\(usage)", status: 64)
  }
}
guard let socket = socketPath else { fail("give the socket with --socket PATH\n\(usage)", status: 64) }

// Before any key is in memory: no core file, and no process of this user may read this one's
// memory through ptrace or /proc.
guard keychaind_disable_dumps() == 0 else {
  fail("cannot make the process undumpable: \(String(cString: strerror(errno)))")
}

LoggingSystem.bootstrap(StreamLogHandler.standardError)
var logger = Logger(label: "keychaind")
logger.logLevel = .info

let policy: AgentPolicy
do {
  policy = try AgentPolicy.load(policyPath.map { [$0] } ?? AgentPolicy.defaultPaths)
  if let policyPath, !FileManager.default.fileExists(atPath: policyPath) { fail("no policy file at \(policyPath)") }
} catch {
  fail(error.description)
}

let directory = storeDirectory ?? KeychainStore.defaultDirectory
let passphrase = ProcessInfo.processInfo.environment["KEYCHAIN_BRIDGE_PASSPHRASE"].flatMap { $0.isEmpty ? nil : $0 }
let store: KeychainStore
do {
  store = try KeychainStore(directory: directory, passphrase: passphrase)
} catch {
  fail("cannot open the store: \(error.message)")
}

let server: AgentServer
do {
  server = try AgentServer(socketPath: socket, storage: store.backend, policy: policy, logger: logger)
} catch {
  fail(error.description)
}

// SIGTERM and SIGINT end the agent cleanly: the socket goes and the keys are dropped. The sources
// are kept for the life of the process: a released source stops delivering.
let signalSources = [SIGTERM, SIGINT].map { signalNumber in
  signal(signalNumber, SIG_IGN)
  let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
  source.setEventHandler {
    server.stop()
    exit(0)
  }
  source.resume()
  return source
}

server.run()
