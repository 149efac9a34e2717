/// Apple's access control options for an item.
///
/// Here the options are stored with the item and returned by queries, but not enforced: Linux has no
/// biometry, Secure Enclave or passcode prompt. The protection (accessibility) part is enforced.
public struct SecAccessControlCreateFlags: OptionSet, Sendable, Hashable {
  /// The raw flag bits, with Apple's values.
  public let rawValue: CFOptionFlags

  /// Creates flags from raw bits.
  public init(rawValue: CFOptionFlags) { self.rawValue = rawValue }

  /// Any user presence: biometry or passcode.
  public static let userPresence = SecAccessControlCreateFlags(rawValue: 1 << 0)
  /// Any enrolled biometry.
  public static let biometryAny = SecAccessControlCreateFlags(rawValue: 1 << 1)
  /// Deprecated name of `biometryAny`.
  @available(*, deprecated, renamed: "biometryAny")
  public static let touchIDAny = SecAccessControlCreateFlags(rawValue: 1 << 1)
  /// The biometry set enrolled when the item was added.
  public static let biometryCurrentSet = SecAccessControlCreateFlags(rawValue: 1 << 3)
  /// Deprecated name of `biometryCurrentSet`.
  @available(*, deprecated, renamed: "biometryCurrentSet")
  public static let touchIDCurrentSet = SecAccessControlCreateFlags(rawValue: 1 << 3)
  /// The device passcode.
  public static let devicePasscode = SecAccessControlCreateFlags(rawValue: 1 << 4)
  /// A paired companion device.
  public static let companion = SecAccessControlCreateFlags(rawValue: 1 << 5)
  /// Deprecated name of `companion`.
  @available(*, deprecated, renamed: "companion")
  public static let watch = SecAccessControlCreateFlags(rawValue: 1 << 5)
  /// Any one of the constraints suffices.
  public static let or = SecAccessControlCreateFlags(rawValue: 1 << 14)
  /// All of the constraints are needed.
  public static let and = SecAccessControlCreateFlags(rawValue: 1 << 15)
  /// A private key may be used for signing or key exchange.
  public static let privateKeyUsage = SecAccessControlCreateFlags(rawValue: 1 << 30)
  /// An application-provided password is needed.
  public static let applicationPassword = SecAccessControlCreateFlags(rawValue: 1 << 31)

  /// The flags that ask for user authentication (everything but the combinators and key usage).
  package var hasConstraints: Bool {
    !subtracting([.or, .and, .privateKeyUsage]).isEmpty
  }
}

/// Apple's `SecAccessControl`: an item's protection class plus its access constraints.
public final class SecAccessControl: Hashable, Sendable, CustomStringConvertible {
  /// The protection class, one of the kSecAttrAccessible values (for example "ak").
  package let protection: String
  /// The constraints; stored and returned, not enforced.
  package let flags: SecAccessControlCreateFlags

  package init(protection: String, flags: SecAccessControlCreateFlags) {
    self.protection = protection
    self.flags = flags
  }

  /// Two access controls are equal when protection and flags are.
  public static func == (lhs: SecAccessControl, rhs: SecAccessControl) -> Bool {
    lhs.protection == rhs.protection && lhs.flags == rhs.flags
  }

  /// Hashes protection and flags.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(protection)
    hasher.combine(flags.rawValue)
  }

  /// A readable description, without any secret.
  public var description: String { "<SecAccessControl protection: \(protection), flags: \(flags.rawValue)>" }
}

/// Creates an access control object, as Apple's `SecAccessControlCreateWithFlags` does.
///
/// `protection` must be one of the kSecAttrAccessible values; otherwise the result is nil and
/// `error` receives an NSError in NSOSStatusErrorDomain with errSecParam.
public func SecAccessControlCreateWithFlags(
  _ allocator: CFAllocator?, _ protection: CFTypeRef, _ flags: SecAccessControlCreateFlags,
  _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> SecAccessControl? {
  guard let value = ValueConversion.string(protection), ItemSchema.accessibilityValues[value] != nil else {
    let failure = NSError(
      domain: NSOSStatusErrorDomain, code: Int(errSecParam),
      userInfo: [NSLocalizedDescriptionKey: "The protection is not a kSecAttrAccessible value."])
    error?.pointee = Unmanaged.passRetained(failure)
    return nil
  }
  return SecAccessControl(protection: value, flags: flags)
}
