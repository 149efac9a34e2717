import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The agent's own process environment (issue 49, cases 6 and 8), settled before any key is read:
/// no code chosen by the environment, no crash report with memory in it, no passphrase left in
/// the environment's memory.
package enum AgentEnvironment {
  /// The variables that make the dynamic loader run code the executable does not name: keychaind
  /// refuses to run with one, and gives no rule's groups to a caller started with one.
  static let loaderVariables = ["LD_PRELOAD", "LD_AUDIT", "LD_LIBRARY_PATH"]

  /// What the Swift runtime's crash reporter must be told: off. Its report holds registers and
  /// memory near them, which in the agent can be key material or a passphrase, and it goes to the
  /// agent's log.
  static let backtraceSetting = "enable=no"

  /// The loader variable the environment sets, if any: such an agent ran code nobody chose for
  /// it before `main`, and refuses to go on.
  package static func loaderVariable() -> String? {
    loaderVariables.first { name in getenv(name).map { $0.pointee != 0 } ?? false }
  }

  /// Starts this executable again with the crash reporter off when it is not: the runtime reads
  /// the setting when the process starts, so it cannot be changed later. The process keeps its
  /// identifier and descriptors (a socket systemd passed stays valid). Returns only when nothing
  /// needs doing, or when the new start failed (with the reason).
  package static func restartWithoutCrashReports() -> String? {
    guard let current = getenv("SWIFT_BACKTRACE"), String(cString: current) == backtraceSetting else {
      setenv("SWIFT_BACKTRACE", backtraceSetting, 1)
      let arguments = CommandLine.arguments.map { strdup($0) } + [nil]
      execv("/proc/self/exe", arguments)
      return "cannot start again with the crash reporter off: \(String(cString: strerror(errno)))"
    }
    return nil
  }

  /// The passphrase the environment gives (`KEYCHAIN_BRIDGE_PASSPHRASE`) as bytes the caller wipes
  /// (never a String, whose storage cannot be wiped); its bytes in the environment's memory are
  /// overwritten and the variable removed, so /proc/PID/environ and a later read of the process's
  /// memory find nothing there.
  package static func takePassphrase() -> [UInt8]? {
    guard let value = getenv("KEYCHAIN_BRIDGE_PASSPHRASE") else { return nil }
    let length = strlen(value)
    let passphrase = length == 0 ? nil : Array(UnsafeRawBufferPointer(start: value, count: length))
    explicit_bzero(value, length)
    unsetenv("KEYCHAIN_BRIDGE_PASSPHRASE")
    return passphrase
  }
}
