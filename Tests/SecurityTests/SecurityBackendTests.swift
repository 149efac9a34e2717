import Foundation
import Testing

@testable import Security

/// The Security module imports no backend; it finds the one linked into the program by its type's
/// name, the first time an edge needs it, with no code run at load time. So a program that links
/// the Security target without it builds, and fails clearly at its first keychain call, and a
/// program that links the Security product finds its backend.
@Suite struct SecurityBackendInstallation {
  @Test func aProgramWithoutTheStoreBuildsAndItsFirstCallSaysWhatIsMissing() throws {
    let program = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
      .appendingPathComponent("security-alone")
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("alone-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let process = Process()
    process.executableURL = program
    process.arguments = [directory.path]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    let lines = output.split(separator: "\n").map(String.init)
    #expect(lines.contains("add \(errSecNotAvailable)"), "\(lines)")
    #expect(
      lines.contains {
        $0.hasPrefix("message ") && $0.contains("No keychain store is linked") && $0.contains("Security product")
      },
      "\(lines)")
    #expect(lines.contains("random \(errSecSuccess)"))
    #expect(lines.contains("certificate nil"))
    #expect(lines.contains("key nil \(errSecNotAvailable)"), "\(lines)")
    // Nothing was created: without a store there is nothing to write with.
    #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("keychain.db").path))
  }

  @Test func theLinkedBackendIsFoundByNameAndOpensTheStore() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("seam-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    // The name Security looks up is KeychainBackend's type: renaming or moving it fails here.
    let linked = try SecurityBackends.required()
    #expect(String(reflecting: type(of: linked)) == "KeychainBackend.SQLiteOpenSSLBackend")
    let store = try KeychainStore(directory: directory)
    #expect(!store.isLocked)
    #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("keychain.db").path))
  }

  @Test func aRefusedOpenCarriesTheStoresStatusAndMessage() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("seam-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    _ = try KeychainStore(directory: directory, passphrase: "right")
    do {
      _ = try KeychainStore(directory: directory, passphrase: "wrong")
      Issue.record("a wrong passphrase opened the store")
    } catch {
      #expect(error.status == errSecAuthFailed)
      #expect(error.message == "The passphrase is wrong.")
    }
  }
}

/// A passphrase keeps every byte on its way to the store: one with a NUL in it is not cut short.
/// (A path cannot hold one: Foundation's file URLs write it as %00.)
@Suite struct PassphraseBytes {
  @Test func aPassphraseWithANulByteIsNotCutShortAtIt() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("seam-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    _ = try KeychainStore(directory: directory, passphrase: "before\u{0}after")
    #expect(throws: KeychainStoreError.self) { try KeychainStore(directory: directory, passphrase: "before") }
    #expect(throws: KeychainStoreError.self) {
      try KeychainStore(directory: directory, passphrase: "before\u{0}other")
    }
    #expect(!(try KeychainStore(directory: directory, passphrase: "before\u{0}after")).isLocked)
  }
}
