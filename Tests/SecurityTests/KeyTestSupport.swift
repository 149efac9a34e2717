import Foundation
import Security
import Testing

/// A new private key of `type` and `bits`, or a recorded failure.
func makeKey(_ type: CFString = kSecAttrKeyTypeECSECPrimeRandom, bits: Int = 256, _ extra: [String: Any] = [:])
  throws -> SecKey
{
  var parameters: [String: Any] = [kSecAttrKeyType as String: type, kSecAttrKeySizeInBits as String: bits]
  parameters.merge(extra) { _, new in new }
  var error: Unmanaged<CFError>?
  guard let key = SecKeyCreateRandomKey(parameters as CFDictionary, &error) else {
    let failure = error?.takeRetainedValue()
    Issue.record("SecKeyCreateRandomKey failed: \(failure.map { "\($0)" } ?? "no error")")
    throw KeyTestFailure.generation
  }
  return key
}

enum KeyTestFailure: Error { case generation, openssl(String) }

/// The CFError of a failed SecKey call: its code.
func errorCode(_ error: Unmanaged<CFError>?) -> Int? {
  error.map { CFErrorGetCode($0.takeRetainedValue()) }
}

func external(_ key: SecKey) -> Data {
  SecKeyCopyExternalRepresentation(key, nil)! as Data
}

/// Signs with `algorithm`, expecting success.
func sign(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ data: Data) throws -> Data {
  var error: Unmanaged<CFError>?
  guard let signature = SecKeyCreateSignature(key, algorithm, data as CFData, &error) else {
    Issue.record("signing with \(algorithm.rawValue) failed: \(error.map { "\($0.takeRetainedValue())" } ?? "")")
    throw KeyTestFailure.generation
  }
  return signature as Data
}

func verify(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ data: Data, _ signature: Data) -> Bool {
  SecKeyVerifySignature(key, algorithm, data as CFData, signature as CFData, nil)
}

/// The `openssl` command line, for cross-checks: runs it in `directory` and returns its output.
@discardableResult
func openssl(_ arguments: [String], in directory: URL, input: Data? = nil) throws -> Data {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  process.arguments = ["openssl"] + arguments
  process.currentDirectoryURL = directory
  let output = Pipe()
  let errors = Pipe()
  process.standardOutput = output
  process.standardError = errors
  let inputPipe = Pipe()
  process.standardInput = input == nil ? FileHandle.nullDevice : inputPipe
  try process.run()
  if let input {
    inputPipe.fileHandleForWriting.write(input)
    try inputPipe.fileHandleForWriting.close()
  }
  let data = output.fileHandleForReading.readDataToEndOfFile()
  let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
  process.waitUntilExit()
  guard process.terminationStatus == 0 else {
    throw KeyTestFailure.openssl("openssl \(arguments.joined(separator: " ")): \(message)")
  }
  return data
}

/// A temporary directory for files the openssl command line reads and writes.
final class ScratchDirectory {
  let url = FileManager.default.temporaryDirectory.appendingPathComponent("kb-keys-\(UUID().uuidString)")

  init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
  deinit { try? FileManager.default.removeItem(at: url) }

  func write(_ data: Data, _ name: String) throws { try data.write(to: url.appendingPathComponent(name)) }
  func read(_ name: String) throws -> Data { try Data(contentsOf: url.appendingPathComponent(name)) }
}

/// The SubjectPublicKeyInfo DER of a P-256 public key's X9.63 point, which openssl reads.
func p256SubjectPublicKeyInfo(_ point: Data) -> Data {
  // SEQUENCE { SEQUENCE { id-ecPublicKey, prime256v1 }, BIT STRING { 00, point } }
  let prefix: [UInt8] = [
    0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce,
    0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
  ]
  return Data(prefix) + point
}
