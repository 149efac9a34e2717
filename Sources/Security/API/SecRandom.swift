/// Apple's `SecRandomRef`: there is one random source, so the type only names it.
public final class SecRandom: Sendable {
  private init() {}
}

/// The default random source (the system's CSPRNG); `nil`, as on Apple.
public let kSecRandomDefault: SecRandom? = nil

/// Fills `bytes` with `count` cryptographically secure random bytes.
///
/// The bytes come from Swift's `SystemRandomNumberGenerator`, which on Linux reads the kernel's
/// CSPRNG (`getrandom(2)`), the source OpenSSL seeds itself from.
///
/// Returns `errSecSuccess`, or `errSecParam` for a negative count.
@discardableResult
public func SecRandomCopyBytes(_ rnd: SecRandom?, _ count: Int, _ bytes: UnsafeMutableRawPointer) -> Int32 {
  guard count >= 0, count <= Int(Int32.max) else { return errSecParam }
  var generator = SystemRandomNumberGenerator()
  var filled = 0
  while filled < count {
    let word = generator.next()
    let take = min(MemoryLayout<UInt64>.size, count - filled)
    withUnsafeBytes(of: word) { (bytes + filled).copyMemory(from: $0.baseAddress!, byteCount: take) }
    filled += take
  }
  return errSecSuccess
}
