import Foundation
import Security

// A child process for store tests that must not run inside the test process: filling the disk
// (a file-size limit applies to the whole process) and, later, being killed mid-write.
//
//   keychain-store-helper fill DIRECTORY MAX_FILE_BYTES
//     adds 4 KiB items until a call fails; prints "ok N" after each acknowledged add and
//     "failed STATUS" for the first failure.
#if canImport(Glibc)
  import Glibc
#endif

func fill(directory: String, maxBytes: UInt64) throws -> Int32 {
  let store = try KeychainStore(directory: URL(fileURLWithPath: directory, isDirectory: true))
  // The kernel's file-size limit stands in for a full disk: writes past it fail with EFBIG.
  signal(SIGXFSZ, SIG_IGN)
  var limit = rlimit(rlim_cur: rlim_t(maxBytes), rlim_max: rlim_t(maxBytes))
  setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit)
  return withKeychainContext(store: store, accessGroups: ["helper"]) {
    for index in 0..<1_000_000 {
      let attributes: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword,
        kSecAttrAccount as String: "item-\(index)",
        kSecValueData as String: Data(repeating: UInt8(truncatingIfNeeded: index), count: 4096),
      ]
      let status = SecItemAdd(attributes as CFDictionary, nil)
      guard status == errSecSuccess else {
        FileHandle.standardOutput.write(Data("failed \(status)\n".utf8))
        return 0
      }
      // Unbuffered, so a kill after this line still leaves the acknowledgement on the pipe.
      FileHandle.standardOutput.write(Data("ok \(index)\n".utf8))
    }
    return 1
  }
}

let arguments = CommandLine.arguments
guard arguments.count == 4, arguments[1] == "fill", let maxBytes = UInt64(arguments[3]) else {
  FileHandle.standardError.write(Data("usage: keychain-store-helper fill DIRECTORY MAX_FILE_BYTES\n".utf8))
  exit(2)
}
do {
  exit(try fill(directory: arguments[2], maxBytes: maxBytes))
} catch {
  FileHandle.standardError.write(Data("keychain-store-helper: \(error)\n".utf8))
  exit(3)
}
