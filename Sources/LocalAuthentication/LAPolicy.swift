/// What `LAContext.evaluatePolicy` asks the user to prove, with Apple's raw values.
public enum LAPolicy: Int, Sendable {
  /// Biometry alone: Linux has none, so it answers `LAError.biometryNotAvailable`.
  case deviceOwnerAuthenticationWithBiometrics = 1
  /// The device owner: biometry or the passcode. On Linux the passcode is the store's passphrase.
  case deviceOwnerAuthentication = 2
  /// A paired watch (macOS): answers `LAError.watchNotAvailable`.
  case deviceOwnerAuthenticationWithWatch = 3
  /// Biometry or a paired watch (macOS): answers `LAError.biometryNotAvailable`.
  case deviceOwnerAuthenticationWithBiometricsOrWatch = 4
}

/// The kind of credential `LAContext.setCredential(_:type:)` sets.
public enum LACredentialType: Int, Sendable {
  /// The application password of items whose access control has `.applicationPassword`.
  case applicationPassword = 0
}

/// The biometry a device has: none, on Linux.
public enum LABiometryType: Int, Sendable {
  /// No biometry.
  case none = 0
  /// Touch ID (never on Linux).
  case touchID = 1
  /// Face ID (never on Linux).
  case faceID = 2
  /// Optic ID (never on Linux).
  case opticID = 4
}
