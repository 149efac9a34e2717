import Foundation

// Keys rule 10.4 as Linux can honour it: what an item's access control asks of the user before its
// secret is read. The flags Apple defines map to three kinds of proof:
// - the store passphrase, the Linux analogue of the device passcode: .devicePasscode, and
//   .userPresence (Apple's "biometry, or the passcode"; Linux has no biometry, so the passcode);
// - biometry and a companion device (.biometryAny, .biometryCurrentSet, .watch/.companion), which
//   Linux cannot give: an item that needs them is never read;
// - .applicationPassword: the item's secret is sealed under a key derived from it, so it is needed
//   to read the secret, whatever the combinator.
// .or makes one of the first two kinds enough; .and, or neither, asks for all of them (Apple's
// default). .privateKeyUsage is no proof of the user (it says the key may be used; no token here
// enforces it).

/// One proof of the user an item's access control asks for.
enum UserProof: Sendable, Equatable {
  case passcode
  case biometry
  case companion
}

/// What an item's access control asks of the user before its secret is read.
struct AccessRequirement: Sendable, Equatable {
  /// The proofs asked for; empty when only the application password is.
  let proofs: [UserProof]
  /// Whether one of `proofs` suffices (.or) rather than all of them.
  let anyOne: Bool
  /// Whether the secret is sealed under an application password.
  let applicationPassword: Bool

  /// The requirement of `control`, or nil when it asks nothing of the user.
  init?(_ control: SecAccessControl?) {
    guard let flags = control?.flags, flags.hasConstraints else { return nil }
    var proofs: [UserProof] = []
    if !flags.isDisjoint(with: [.userPresence, .devicePasscode]) { proofs.append(.passcode) }
    if !flags.isDisjoint(with: [.biometryAny, .biometryCurrentSet]) { proofs.append(.biometry) }
    if flags.contains(.companion) { proofs.append(.companion) }
    self.proofs = proofs
    anyOne = flags.contains(.or)
    applicationPassword = flags.contains(.applicationPassword)
  }

  /// Whether `proven` satisfies the proofs (the application password aside).
  func isSatisfied(by proven: Set<UserProof>) -> Bool {
    if proofs.isEmpty { return true }
    return anyOne ? proofs.contains(where: proven.contains) : proofs.allSatisfy(proven.contains)
  }

  /// The proofs still to get when `proven` does not satisfy the requirement: for .or the first
  /// one Linux can give, else every missing one.
  func missing(given proven: Set<UserProof>) -> [UserProof] {
    if isSatisfied(by: proven) { return [] }
    if anyOne { return [proofs.first(where: { $0 == .passcode }) ?? proofs[0]] }
    return proofs.filter { !proven.contains($0) }
  }
}

extension SecAccessControlCreateFlags {
  /// The flags that ask something of the user (everything but the combinators and key usage).
  package var hasConstraints: Bool {
    !subtracting([.or, .and, .privateKeyUsage]).isEmpty
  }
}

extension SecAccessControl {
  /// Whether reading the secret needs a proof of the user (the passcode, biometry, a companion),
  /// as opposed to nothing or only the application password it is sealed under: what an agent
  /// withholds from a connection whose user proved nothing.
  package var asksForUserProof: Bool { !(AccessRequirement(self)?.proofs.isEmpty ?? true) }
}
