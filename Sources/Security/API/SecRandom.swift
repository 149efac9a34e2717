/// Apple's `SecRandomRef`: there is one random source, so the type only names it.
public final class SecRandom: Sendable {
  private init() {}
}

/// The default random source (OpenSSL's CSPRNG); `nil`, as on Apple.
public let kSecRandomDefault: SecRandom? = nil

/// Fills `bytes` with `count` cryptographically secure random bytes from OpenSSL's `RAND_bytes`.
///
/// Returns `errSecSuccess`, or `errSecParam` for a negative count and `errSecAllocate` when the
/// generator fails.
@discardableResult
public func SecRandomCopyBytes(_ rnd: SecRandom?, _ count: Int, _ bytes: UnsafeMutableRawPointer) -> Int32 {
  guard count >= 0, count <= Int(Int32.max) else { return errSecParam }
  guard count > 0 else { return errSecSuccess }
  let filled = linkedStoreBackend().fillRandom(UnsafeMutableRawBufferPointer(start: bytes, count: count))
  return filled ? errSecSuccess : errSecAllocate
}
