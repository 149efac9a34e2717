import Foundation
import Security

/// A typed value that stands for one runtime value in a call of a function wrapper.
///
/// The members secgen imports onto the typed references (`PrivateKey.signature(for:algorithm:)`)
/// pass every argument whose Swift type is not the wrapper's through this: a typed reference gives
/// its ref, a typed algorithm enum the runtime's constant, a parameter set its dictionary.
protocol RuntimeArgument {
  /// The runtime's type (`SecKey`, `SecKeyAlgorithm`, `CFDictionary`).
  associatedtype RuntimeValue
  /// The value the wrapper takes.
  var runtimeArgument: RuntimeValue { get }
}
