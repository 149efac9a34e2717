import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A software TPM 2.0 (Debian's swtpm) started for a test on loopback ports of its own, with a
/// fresh state directory (a new "machine": its own seeds, so its own storage primary), and
/// stopped after. `tcti` is what KEYCHAIN_BRIDGE_TCTI takes.
package final class SoftwareTPM: @unchecked Sendable {
  // @unchecked: `process` changes only in `start` and `stop`, which one test calls in turn.
  package let state: URL
  package let port: UInt16
  private var process = Process()

  /// Starts a TPM with new state.
  package init() throws {
    state = URL(fileURLWithPath: "/tmp/kbtpm-\(UUID().uuidString.prefix(8))", isDirectory: true)
    try FileManager.default.createDirectory(
      at: state, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
    port = try Self.freePortPair()
    try start()
  }

  deinit { stop() }

  /// The TCTI of this TPM, in tpm2-tss syntax.
  package var tcti: String { "swtpm:host=127.0.0.1,port=\(port)" }

  /// Starts (or starts again, on the same state) the TPM and waits until its port answers.
  package func start() throws {
    process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/swtpm")
    process.arguments = [
      "socket", "--tpm2", "--tpmstate", "dir=\(state.path)",
      "--server", "type=tcp,port=\(port),bindaddr=127.0.0.1",
      "--ctrl", "type=tcp,port=\(port + 1),bindaddr=127.0.0.1",
      "--flags", "not-need-init,startup-clear",
    ]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    let deadline = Date().addingTimeInterval(20)
    while Date() < deadline {
      if Self.answers(port) { return }
      guard process.isRunning else { throw SoftwareTPMError("swtpm exited with \(process.terminationStatus)") }
      usleep(20_000)
    }
    throw SoftwareTPMError("swtpm did not answer on port \(port) within 20 s")
  }

  /// Ends the TPM at once, as a machine losing its chip would (SIGKILL), and waits for it.
  package func kill() {
    guard process.isRunning else { return }
    Glibc.kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
  }

  /// Stops the TPM and removes its state.
  package func stop() {
    kill()
    try? FileManager.default.removeItem(at: state)
  }

  /// Two consecutive free loopback ports (the command port and the control port after it).
  private static func freePortPair() throws -> UInt16 {
    for _ in 0..<50 {
      let candidate = UInt16.random(in: 20_000...60_000)
      if canBind(candidate) && canBind(candidate + 1) { return candidate }
    }
    throw SoftwareTPMError("no two free loopback ports")
  }

  private static func canBind(_ port: UInt16) -> Bool { onLoopback(port, bind) }

  private static func answers(_ port: UInt16) -> Bool { onLoopback(port, connect) }

  /// Whether `call` (bind or connect) succeeds for a new TCP socket and 127.0.0.1:`port`.
  private static func onLoopback(
    _ port: UInt16, _ call: (Int32, UnsafePointer<sockaddr>, socklen_t) -> Int32
  ) -> Bool {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = port.bigEndian
    return withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        call(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
      }
    }
  }
}

package struct SoftwareTPMError: Error, CustomStringConvertible {
  package let description: String
  package init(_ description: String) { self.description = description }
}
