import Foundation
import KeychainAgent
import Logging
import Security

#if canImport(Glibc)
  import Glibc
#endif

// keychaind: the per-user keychain agent. It alone opens the store and its key file and holds the
// unwrapped keys; programs reach the store through its socket (KEYCHAIN_BRIDGE_AGENT), so one lock
// holds for all of them. See the Security documentation's "Keychain agent" article.

let usage = """
  usage: keychaind --socket PATH [--store DIR] [--policy FILE] [--idle-timeout SECONDS] [--secret-service] [--ssh-agent PATH]
         keychaind --secret-service [--store DIR] [--policy FILE] [--idle-timeout SECONDS]
         keychaind [--store DIR] [--policy FILE] [--idle-timeout SECONDS]   (from systemd's socket unit)
         keychaind --install-units [--unit-directory DIR] [--secret-service] [--ssh-agent] [--store DIR] [--policy FILE] [--idle-timeout SECONDS]

  Serves the keychain store in DIR (default: the store KEYCHAIN_BRIDGE_HOME names, else
  $XDG_DATA_HOME/keychain-bridge, else ~/.local/share/keychain-bridge) on the Unix socket PATH, in
  the foreground, until SIGTERM or
  SIGINT. PATH's folder must be the user's alone (0700), as $XDG_RUNTIME_DIR is; it is created 0700
  when missing. A passphrase store is opened locked unless KEYCHAIN_BRIDGE_PASSPHRASE is set;
  clients unlock it with `security unlock-keychain`. A passphrase store is locked again after
  SECONDS without a request (default 900; 0 never); a key-file store is never locked for idleness.

  Each program gets the access groups the policy grants its executable (/etc/keychain-bridge/
  agent-policy, then $XDG_CONFIG_HOME/keychain-bridge/agent-policy; or FILE alone), whatever it
  asks for; a program no rule names gets one group of its own, its executable's path. The
  `security` tool installed beside keychaind gets every group unless a rule names it (it is the
  user's administration tool, as on macOS).

  --secret-service also serves the freedesktop Secret Service (org.freedesktop.secrets) on the
  session bus DBUS_SESSION_BUS_ADDRESS names, from the same store: secret-tool, libsecret programs
  and Python's keyring see the default collection, which is the store's default access group.
  Without --socket it listens on the default socket too (the one KEYCHAIN_BRIDGE_AGENT=auto finds).
  It fails when another program owns the name (stop GNOME Keyring's secrets component first).

  --ssh-agent PATH also serves OpenSSH's agent protocol on the Unix socket PATH (give it to ssh as
  SSH_AUTH_SOCK): `ssh-add FILE` stores the key in the keychain, where it outlives the agent and the
  file; ssh, ssh-add -l/-L/-d/-D/-x/-X/-c/-t and ssh-keygen -Y sign use it. Ed25519, ECDSA and RSA
  (2048 bits at least, rsa-sha2-256 and -512 signatures only).

  With --install-units, --ssh-agent (no path) adds keychaind-ssh.socket, listening at
  %t/keychain-bridge/ssh.sock and starting the same service.

  --install-units writes systemd user units (keychaind.socket, keychaind.service) into DIR (default:
  $XDG_CONFIG_HOME/systemd/user) for this executable, which systemd starts with the --store, --policy
  and --idle-timeout given here (systemd drops the environment, so KEYCHAIN_BRIDGE_HOME does not reach
  it: give --store to serve another store than the default); then run `systemctl --user daemon-reload` and
  `systemctl --user enable --now keychaind.socket`, and give programs
  KEYCHAIN_BRIDGE_AGENT=$XDG_RUNTIME_DIR/keychain-bridge/agent.sock. The first connection starts the
  agent, on the socket systemd made. With --secret-service, the service serves the Secret Service
  too, and the session bus's activation file for org.freedesktop.secrets goes into
  $XDG_DATA_HOME/dbus-1/services, so the first program that asks for it starts the agent.

  """

func fail(_ message: String, status: Int32 = 1) -> Never {
  FileHandle.standardError.write(Data("keychaind: \(message)\n".utf8))
  exit(status)
}

// Before anything else: no code the environment chose, and no crash report with memory in it.
if let variable = AgentEnvironment.loaderVariable() {
  fail(
    "started with \(variable) set: the agent holds the keychain's keys and runs no code the environment chose; "
      + "start it from a clean environment (systemd's units and KEYCHAIN_BRIDGE_AGENT=auto do)", status: 78)
}
if let problem = AgentEnvironment.restartWithoutCrashReports() { fail(problem) }

var socketPath: String?
var storeDirectory: URL?
var policyPath: String?
var installUnits = false
var secretService = false
var idleTimeout = IdleLock.defaultTimeout
var unitDirectory: URL?
var sshAgentPath: String?
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
  case "--idle-timeout":
    guard let value = arguments.popFirst(), let seconds = Int(value), seconds >= 0 else {
      fail("--idle-timeout needs a number of seconds (0: never)\n\(usage)", status: 64)
    }
    idleTimeout = seconds
  case "--secret-service":
    secretService = true
  case "--ssh-agent":
    // With --install-units the socket is the unit's: no path follows.
    if let value = arguments.first, !value.hasPrefix("-") {
      sshAgentPath = String(arguments.removeFirst())
    } else {
      sshAgentPath = ""
    }
  case "--install-units":
    installUnits = true
  case "--unit-directory":
    guard let value = arguments.popFirst(), !value.isEmpty else {
      fail("--unit-directory needs a folder\n\(usage)", status: 64)
    }
    unitDirectory = URL(fileURLWithPath: value, isDirectory: true)
  case "-h", "--help":
    print(usage, terminator: "")
    exit(0)
  default:
    fail("unknown argument \(argument)\n\(usage)", status: 64)
  }
}
if installUnits {
  let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
  // What the agent is installed with is what systemd starts it with; paths made absolute, since
  // systemd starts it in another folder (a relative --store would name another store).
  var serviceArguments: [String] = []
  if let storeDirectory { serviceArguments += ["--store", storeDirectory.standardizedFileURL.path] }
  if let policyPath { serviceArguments += ["--policy", URL(fileURLWithPath: policyPath).standardizedFileURL.path] }
  if idleTimeout != IdleLock.defaultTimeout { serviceArguments += ["--idle-timeout", String(idleTimeout)] }
  do {
    for unit in try SystemdUnits.install(
      into: unitDirectory ?? SystemdUnits.userUnitDirectory, executable: executable, arguments: serviceArguments,
      secretService: secretService, sshAgent: sshAgentPath != nil)
    {
      print("wrote \(unit.path)")
    }
  } catch {
    fail("cannot write the units: \(error.localizedDescription)")
  }
  print("then: systemctl --user daemon-reload && systemctl --user enable --now keychaind.socket")
  print("and give programs KEYCHAIN_BRIDGE_AGENT=$XDG_RUNTIME_DIR/\(SystemdUnits.socketInRuntimeDirectory)")
  if sshAgentPath != nil {
    print(
      "and for ssh: systemctl --user enable --now keychaind-ssh.socket; "
        + "SSH_AUTH_SOCK=$XDG_RUNTIME_DIR/\(SystemdUnits.sshSocketInRuntimeDirectory)")
  }
  if secretService {
    print(
      "the session bus now starts the agent for org.freedesktop.secrets; if GNOME Keyring runs its secrets "
        + "component, stop it first: systemctl --user mask --now gnome-keyring-daemon.socket gnome-keyring-daemon.service"
    )
  }
  exit(0)
}

if sshAgentPath == "" { fail("--ssh-agent needs a socket path\n\(usage)", status: 64) }
let activatedListeners: [String: Int32]
do {
  activatedListeners = try SystemdUnits.activatedListeners()
} catch {
  fail(error.description)
}
let activatedListener = activatedListeners[SystemdUnits.agentSocketName]
let activatedSSHListener = activatedListeners[SystemdUnits.sshSocketName]
if secretService && activatedListener == nil && socketPath == nil {
  socketPath = KeychainStore.automaticAgentSocketPath
}
guard activatedListener != nil || socketPath != nil else {
  fail("give the socket with --socket PATH, or start the agent through its systemd socket unit\n\(usage)", status: 64)
}

// Before any key is in memory: no core file, and no process of this user may read this one's
// memory through ptrace or /proc.
do {
  try AgentStartup.makeUndumpable()
} catch {
  fail(error.description)
}

LoggingSystem.bootstrap(StreamLogHandler.standardError)
var logger = Logger(label: "keychaind")
logger.logLevel = .info

var policy: AgentPolicy
do {
  policy = try AgentPolicy.load(policyPath.map { [$0] } ?? AgentPolicy.defaultPaths)
  if let policyPath, !FileManager.default.fileExists(atPath: policyPath) { fail("no policy file at \(policyPath)") }
} catch {
  fail(error.description)
}
// Decided per caller (AgentPolicy.grant), so a tool installed after the agent started is found.
policy.administrationToolFolder = AgentPolicy.folder(of: "/proc/self/exe")
for notice in policy.notices { logger.warning("\(notice)") }

let directory = storeDirectory ?? KeychainStore.defaultDirectory
// The backend every engine of the agent runs with, made here and handed on (no process-wide one).
let backend = AgentStartup.backend()
let store: KeychainStore
let storage: any ItemStorage
do {
  let keyMemory = try AgentStartup.enableKeyMemory()
  if keyMemory.locked { logger.info("\(keyMemory.message)") } else { logger.warning("\(keyMemory.message)") }
  (store, storage) = try AgentStartup.openStore(in: directory, with: backend)
} catch {
  fail(error.description)
}

// The front ends over one service: the Secret Service on the session bus (first, so that once
// the socket answers the bus name is owned), then the agent's socket and the ssh-agent's, served
// by one event loop.
let service: AgentService
let server: AgentSocketServer
var bus: SecretServiceBus?
var sshAgent: SSHAgentSocket?
do {
  service = AgentService(
    store: store, storage: storage, backend: backend,
    policy: policy, idleLock: IdleLock(timeout: idleTimeout, storage: storage, logger: logger),
    ledger: FailedAttemptLedger(directory: directory), logger: logger)
  if secretService { bus = try SecretServiceBus(service: service) }
  if let activatedSSHListener {
    sshAgent = try SSHAgentSocket(
      activatedListener: activatedSSHListener, agent: service, service: SSHAgentService(agent: service))
  } else if let sshAgentPath {
    sshAgent = try SSHAgentSocket(socketPath: sshAgentPath, agent: service, service: SSHAgentService(agent: service))
  }
  if let activatedListener {
    server = try AgentSocketServer(activatedListener: activatedListener, service: service, sshAgent: sshAgent)
    if let socketPath, socketPath != server.socketPath {
      fail("--socket \(socketPath) is not the socket systemd passed (\(server.socketPath))")
    }
  } else {
    server = try AgentSocketServer(socketPath: socketPath ?? "", service: service, sshAgent: sshAgent)
  }
} catch {
  fail(error.description)
}

// SIGTERM and SIGINT end the agent cleanly: the socket goes and the keys are wiped (exit would
// leave them in memory until the kernel reclaims it). The sources are kept for the life of the
// process: a released source stops delivering.
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

// The bus on a thread of its own (sd-bus is used from one thread); if its connection ends, so
// does the agent, as a keyring that vanished from the bus must not look alive.
if let bus {
  let thread = Thread {
    bus.serve()
    server.stop()
    exit(1)
  }
  thread.name = "keychaind secret service"
  thread.start()
}

server.run()
