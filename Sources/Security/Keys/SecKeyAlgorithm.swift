import Foundation

// SecKey.h declares the algorithms as constants of this CF_STRING_ENUM type, which Swift imports as
// static members only (`.ecdsaSignatureMessageX962SHA256`); secgen renders them from the header
// and SecItemDefinitions.c into Generated/SecItemConstants.swift.

/// An algorithm a key can sign, verify, encrypt, decrypt or exchange keys with, named by Apple's
/// string (`"algid:sign:ECDSA:message-X962:SHA256"`).
public struct SecKeyAlgorithm: Hashable, RawRepresentable {
  /// Apple's string for the algorithm.
  public let rawValue: CFString

  /// Wraps an algorithm string; an unknown one is supported by no key.
  public init(rawValue: CFString) { self.rawValue = rawValue }

  /// Algorithms are equal when their strings are.
  public static func == (lhs: SecKeyAlgorithm, rhs: SecKeyAlgorithm) -> Bool {
    (lhs.rawValue as String) == (rhs.rawValue as String)
  }

  /// Hashes the string.
  public func hash(into hasher: inout Hasher) { hasher.combine(rawValue as String) }
}

// NSString is immutable here and never mutated: the wrapper is safe to share.
extension SecKeyAlgorithm: @unchecked Sendable {}
