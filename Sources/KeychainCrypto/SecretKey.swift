internal import COpenSSL
import Synchronization

/// Bytes a crypto function may use as a key: an array for a key used once, a `SecretKey` for one a
/// process holds for long.
package protocol KeyBytes {
  /// The key's length in bytes.
  var keyByteCount: Int { get }
  /// Calls `body` with the key's bytes, valid only during the call.
  func withKeyBytes<Result, Failure: Error>(
    _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
  ) throws(Failure) -> Result
}

extension Array: KeyBytes where Element == UInt8 {
  /// The array's length.
  package var keyByteCount: Int { count }

  /// The array's bytes.
  package func withKeyBytes<Result, Failure: Error>(
    _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    // withUnsafeBytes rethrows untyped; the closure's typed error is carried out by hand.
    var outcome: Swift.Result<Result, Failure>!
    withUnsafeBytes { bytes in
      do throws(Failure) { outcome = .success(try body(bytes)) } catch { outcome = .failure(error) }
    }
    return try outcome.get()
  }
}

/// Key material a process holds for long (an open store's keys): one allocation that is never
/// copied, wiped (`OPENSSL_cleanse`) when the last reference goes, and placed in OpenSSL's secure
/// heap when the program has enabled it (`SecureHeap.enable`): memory locked against swapping
/// (mlock), left out of core dumps (MADV_DONTDUMP) and fenced by inaccessible guard pages.
///
/// A `[UInt8]` key is copied by every mutation and every bridge and cannot be wiped for sure (a
/// wipe of a shared buffer wipes a fresh copy); a class instance has one buffer, whatever holds it.
package final class SecretKey: KeyBytes, @unchecked Sendable {
  // Written only while `init` runs, then read-only until deinit: sharing it is safe.
  private let bytes: UnsafeMutableRawPointer
  /// The key's length in bytes.
  package let keyByteCount: Int

  /// A key of `byteCount` bytes that `fill` writes (it gets zeroed memory of that length). The
  /// bytes never exist outside this allocation, unlike a key made from an array.
  package init(
    byteCount: Int, fill: (UnsafeMutableRawBufferPointer) throws(CryptoError) -> Void
  ) throws(CryptoError) {
    guard byteCount > 0 else { throw .invalidParameter("a key of \(byteCount) bytes") }
    guard let memory = CRYPTO_secure_zalloc(byteCount, #fileID, #line) else {
      // A full secure heap answers nil instead of falling back to ordinary memory.
      throw .outOfMemory(operation: "the secure heap (\(SecureHeap.bytesInUse) bytes in use)")
    }
    do {
      try fill(UnsafeMutableRawBufferPointer(start: memory, count: byteCount))
    } catch {
      // The value is not made, so its deinit will not free (and wipe) the memory.
      CRYPTO_secure_clear_free(memory, byteCount, #fileID, #line)
      throw error
    }
    bytes = memory
    keyByteCount = byteCount
  }

  /// A key holding `source`'s bytes; the caller wipes `source` itself.
  package convenience init(copying source: some KeyBytes) throws(CryptoError) {
    try self.init(byteCount: source.keyByteCount) { (destination: UnsafeMutableRawBufferPointer) throws(CryptoError) in
      source.withKeyBytes { destination.copyMemory(from: $0) }
    }
  }

  /// A key holding `source`'s bytes, after which `source` is wiped and emptied.
  package convenience init(taking source: inout [UInt8]) throws(CryptoError) {
    defer { SecureBytes.wipe(&source) }
    try self.init(copying: source)
  }

  deinit { CRYPTO_secure_clear_free(bytes, keyByteCount, #fileID, #line) }

  /// Calls `body` with the key's bytes, valid only during the call.
  package func withKeyBytes<Result, Failure: Error>(
    _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    try body(UnsafeRawBufferPointer(start: bytes, count: keyByteCount))
  }

  /// Whether both keys hold the same bytes (in constant time).
  package func hasSameBytes(as other: some KeyBytes) -> Bool {
    guard other.keyByteCount == keyByteCount else { return false }
    return other.withKeyBytes { CRYPTO_memcmp(bytes, $0.baseAddress, keyByteCount) == 0 }
  }
}

/// OpenSSL's secure heap, for a program that holds keys for long (keychaind).
///
/// Once enabled it serves every `SecretKey`, and OpenSSL's own secret allocations (the key an
/// HMAC context keeps, private-key numbers) as well; when it is full such an allocation fails
/// rather than fall back to ordinary memory, so it is a setting for a program whose keys are few
/// and known, not for a library to enable on its host's behalf.
package enum SecureHeap {
  /// What `enable` achieved.
  package enum Protection: Equatable, Sendable {
    /// Locked in memory and excluded from core dumps.
    case locked
    /// In use, but the kernel refused the lock or the dump exclusion (RLIMIT_MEMLOCK, usually).
    case unlocked
  }

  /// Enables the secure heap with `byteCount` bytes (a power of two), in blocks of at least 32.
  /// Calling it again returns the first call's result.
  package static func enable(byteCount: Int = 64 * 1024) throws(CryptoError) -> Protection {
    guard byteCount >= 4096, byteCount.nonzeroBitCount == 1 else {
      throw .invalidParameter("a secure heap of \(byteCount) bytes (a power of two from 4096 is needed)")
    }
    return try state.withLock { state throws(CryptoError) in
      if let state { return state }
      let protection: Protection
      switch CRYPTO_secure_malloc_init(byteCount, 32) {
      case 1: protection = .locked
      case 2: protection = .unlocked
      default: throw CryptoError.failure(of: "CRYPTO_secure_malloc_init")
      }
      state = protection
      return protection
    }
  }

  /// The bytes of the secure heap allocated now (0 when it is not enabled).
  package static var bytesInUse: Int { CRYPTO_secure_used() }

  /// The outcome of the one `CRYPTO_secure_malloc_init` call.
  private static let state = Mutex<Protection?>(nil)
}
