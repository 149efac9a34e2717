// SecAccessControlCreateFlags itself is generated from SecAccessControl.h (Generated/SecOptionSets.swift).
// Here the options are stored with the item and returned by queries; what they ask of the user
// before a secret is read is AccessRequirement's, and the protection (accessibility) part is
// enforced by the store's lock state.

/// Apple's `SecAccessControl`: an item's protection class plus its access constraints.
public final class SecAccessControl: Hashable, Sendable, CustomStringConvertible {
  /// The protection class, one of the kSecAttrAccessible values (for example "ak").
  package let protection: String
  /// The constraints: stored and returned, and what they ask of the user is `AccessRequirement`.
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
/// `protection` must be one of the kSecAttrAccessible values, and the flags a combination Apple
/// accepts (not Or with And, not both biometry sets, UserPresence only with ApplicationPassword or
/// PrivateKeyUsage); otherwise the result is nil and `error` receives an NSError in
/// NSOSStatusErrorDomain with errSecParam.
@discardableResult
public func SecAccessControlCreateWithFlags(
  _ allocator: CFAllocator?, _ protection: CFTypeRef, _ flags: SecAccessControlCreateFlags,
  _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> SecAccessControl? {
  guard let value = ValueConversion.string(protection), ItemIndex.protectionClasses[value] != nil else {
    let failure = SecurityErrors.error(errSecParam, "The protection is not a kSecAttrAccessible value.")
    error?.pointee = Unmanaged.passRetained(failure)
    return nil
  }
  if let conflict = conflict(in: flags) {
    let failure = SecurityErrors.error(errSecParam, conflict)
    error?.pointee = Unmanaged.passRetained(failure)
    return nil
  }
  return SecAccessControl(protection: value, flags: flags)
}

/// The flag combinations Apple refuses (keys rule 10.4), in words; nil for a valid set.
private func conflict(in flags: SecAccessControlCreateFlags) -> String? {
  if flags.contains(.or) && flags.contains(.and) { return "Or and And cannot be combined." }
  if flags.contains(.biometryAny) && flags.contains(.biometryCurrentSet) {
    return "BiometryAny and BiometryCurrentSet cannot be combined."
  }
  if flags.contains(.userPresence)
    && !flags.subtracting([.userPresence, .applicationPassword, .privateKeyUsage]).isEmpty
  {
    return "UserPresence combines only with ApplicationPassword and PrivateKeyUsage."
  }
  return nil
}
