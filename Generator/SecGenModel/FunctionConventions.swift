import Foundation

/// How a C function reports failure, which decides the shape of its Swift wrapper.
public enum ErrorConvention: String, Codable, Sendable {
  /// An `OSStatus` result: errSecSuccess or a failure code.
  case status
  /// A trailing `CFErrorRef *` out-parameter, filled when the function fails.
  case errorOutParameter
  /// A nullable result and no other error report: NULL means "none".
  case nullableResult
  /// No error report at all.
  case none
}

/// Whether a returned object is owned by the caller (`CF_RETURNS_RETAINED`, or a Create/Copy name).
public enum Ownership: String, Codable, Sendable {
  /// The caller owns the object (+1): `CF_RETURNS_RETAINED`, or a Create or Copy function.
  case retained
  /// The object is borrowed: `CF_RETURNS_NOT_RETAINED`.
  case notRetained
  /// The declaration says nothing and the name follows no rule.
  case unspecified
}

/// The typed Swift wrapper secgen generates for a function, derived from its declaration alone.
///
/// The rules (also in Keychain's DocC article "Function wrappers"):
/// 1. An `OSStatus` result becomes `Result<Void, KeychainError>`; when a nullable `CFTypeRef *`
///    out-parameter carries the function's result, `Result<CFTypeRef?, KeychainError>` with that
///    value instead, and the parameter disappears from the Swift signature.
/// 2. A search (a Copy function with such an out-parameter whose `@result` lists
///    errSecItemNotFound) answers `.success(nil)` for errSecItemNotFound: absence is not an error.
/// 3. A trailing `CFErrorRef *` out-parameter becomes `Result<T, KeychainError>`; the CFError's
///    code is the status. A nullable `T` that comes back NULL with no error is a failure too.
/// 4. A nullable result with no error report becomes an Optional.
/// 5. Parameters keep their order and nullability (`T?` for nullable ones); CF types map to their
///    Swift names (`CFDictionaryRef` to `CFDictionary`), typed enums keep theirs. A function with a type the runtime has no
///    Swift type for gets no wrapper, and the model says why.
/// 6. A Copy function with such an out-parameter also gets an existence test, `<name>Exists`: the
///    same call with NULL for the out-parameter, which its nullability allows and which asks only
///    whether something matches; errSecSuccess is `.success(true)`, errSecItemNotFound
///    `.success(false)`. A search's wrapper (rule 2) cannot tell those apart when the query asks for
///    nothing to be returned. Apple's own `@result` ("A result code. See ...") lists no codes, so
///    this rule reads the prototype and the name only.
public struct WrapperModel: Codable, Equatable, Sendable {
  /// The Swift name: the C name without `Sec`, lower camel case (`itemCopyMatching`).
  public var swiftName: String
  /// How the C function reports failure.
  public var convention: ErrorConvention
  /// The out-parameter that carries the result, if any.
  public var resultParameter: String?
  /// The Swift type of a typed out-parameter (`SecCertificate` for `SecCertificateRef *`), whose
  /// value the wrapper returns unwrapped; nil for a `CFTypeRef *` result or none.
  public var resultParameterType: String? = nil
  /// Who owns the returned object.
  public var resultOwnership: Ownership
  /// Rule 2: errSecItemNotFound is `.success(nil)`.
  public var notFoundIsNil: Bool
  /// Rule 6: the Swift name of the function's existence test; nil for a function without one.
  public var existenceTestName: String? = nil
  /// The Swift parameters: name and type, in order.
  public var parameters: [WrapperParameter]
  /// The Swift return type.
  public var returnType: String
  /// Why no wrapper is generated (a type without a Swift counterpart); nil when one is.
  public var unavailableReason: String?
}

/// One parameter of a wrapper.
public struct WrapperParameter: Codable, Equatable, Sendable {
  /// The C parameter's name, used as the Swift parameter's.
  public var name: String
  /// The Swift type (`CFDictionary`, `UnsafeMutableRawPointer?`).
  public var type: String
}

enum FunctionConventions {
  /// The C types the Security runtime has Swift counterparts for.
  private static let swiftTypes: [String: String] = [
    "CFDictionaryRef": "CFDictionary", "CFStringRef": "CFString", "CFDataRef": "CFData", "CFArrayRef": "CFArray",
    "CFTypeRef": "CFTypeRef", "CFNumberRef": "CFNumber", "CFBooleanRef": "CFBoolean", "CFDateRef": "CFDate",
    "CFErrorRef": "CFError", "CFAllocatorRef": "CFAllocator", "CFIndex": "CFIndex", "OSStatus": "OSStatus",
    "SecAccessControlRef": "SecAccessControl", "SecCertificateRef": "SecCertificate", "SecKeyRef": "SecKey",
    "SecIdentityRef": "SecIdentity", "SecItemEntriesRef": "SecItemEntries",
    "void *": "UnsafeMutableRawPointer",
    "size_t": "Int", "Boolean": "Bool", "_Bool": "Bool", "bool": "Bool", "int": "Int32", "uint32_t": "UInt32",
    "UInt32": "UInt32", "SInt32": "Int32",
  ]

  /// A libclang type spelling without nullability, ownership and `const` (`CF_RETURNS_RETAINED
  /// CFTypeRef _Nullable *` gives `CFTypeRef *`).
  static func bare(_ spelling: String) -> String {
    let dropped: Set<Substring> = [
      "_Nullable", "_Nonnull", "_Null_unspecified", "const", "CF_RETURNS_RETAINED", "CF_RETURNS_NOT_RETAINED",
      "CF_CONSUMED", "CF_RELEASES_ARGUMENT", "__nullable", "__nonnull",
    ]
    let tokens = spelling.replacingOccurrences(of: "*", with: " * ").split(separator: " ").filter {
      !dropped.contains($0)
    }
    return tokens.joined(separator: " ").replacingOccurrences(of: " *", with: " *")
  }

  /// The Swift type of a C type: a CF or Sec type's Swift name, or a typed enum's own name.
  static func swiftType(_ spelling: String, typedEnums: Set<String> = []) -> String? {
    let type = bare(spelling)
    return swiftTypes[type] ?? (typedEnums.contains(type) ? type : nil)
  }

  static func ownership(_ spelling: String, functionName: String) -> Ownership {
    if spelling.contains("CF_RETURNS_RETAINED") { return .retained }
    if spelling.contains("CF_RETURNS_NOT_RETAINED") { return .notRetained }
    // The Create rule: functions with Create or Copy in their names return objects the caller owns.
    return functionName.contains("Create") || functionName.contains("Copy") ? .retained : .unspecified
  }

  static func wrapper(_ function: FunctionModel, typedEnums: Set<String> = []) -> WrapperModel {
    let swiftName = SwiftNaming.lowerCamel(SwiftNaming.stripPrefix(function.name, ["Sec"]))
    let result = bare(function.resultType)
    var parameters = function.parameters
    var convention: ErrorConvention
    var resultParameter: String?
    var ownership = ownership(function.resultType, functionName: function.name)
    var resultParameterType: String?
    if result == "OSStatus" {
      convention = .status
      if let last = parameters.last, last.nullable, bare(last.type) == "CFTypeRef *" {
        resultParameter = last.name
        ownership = Self.ownership(last.type, functionName: function.name)
        parameters.removeLast()
      } else if let last = parameters.last, bare(last.type).hasSuffix(" *"),
        let type = swiftType(String(bare(last.type).dropLast(2)), typedEnums: typedEnums),
        type != "CFTypeRef", last.type.contains("CF_RETURNS_RETAINED") || last.type.contains("cf_returns_retained")
      {
        // `SecCertificateRef * CF_RETURNS_RETAINED certificateRef`: an object the function hands back.
        resultParameter = last.name
        resultParameterType = type
        ownership = .retained
        parameters.removeLast()
      }
    } else if let last = parameters.last, bare(last.type) == "CFErrorRef *" {
      convention = .errorOutParameter
      parameters.removeLast()
    } else if function.resultType.contains("_Nullable") {
      convention = .nullableResult
    } else {
      convention = .none
    }
    let isCopyWithResult =
      convention == .status && resultParameter != nil && resultParameterType == nil
      && function.name.contains("Copy")
    let notFoundIsNil =
      resultParameter != nil && function.name.contains("Copy") && function.resultCodes.contains("errSecItemNotFound")
    var unavailable: String?
    var swiftParameters: [WrapperParameter] = []
    for parameter in parameters {
      guard let type = swiftType(parameter.type, typedEnums: typedEnums) else {
        unavailable = "parameter \(parameter.name) has type \(bare(parameter.type)), which has no Swift type here"
        break
      }
      swiftParameters.append(WrapperParameter(name: parameter.name, type: type + (parameter.nullable ? "?" : "")))
    }
    let returnType: String
    switch convention {
    case .status:
      if let type = resultParameterType {
        returnType = "Result<\(type), KeychainError>"
      } else {
        returnType = resultParameter == nil ? "Result<Void, KeychainError>" : "Result<CFTypeRef?, KeychainError>"
      }
    case .errorOutParameter, .nullableResult, .none:
      if let type = swiftType(result, typedEnums: typedEnums) {
        if convention == .errorOutParameter && type == "Bool" {
          // A verdict with an error report (SecKeyVerifySignature): false always comes with the
          // error, so the typed form is success or the error.
          returnType = "Result<Void, KeychainError>"
        } else {
          returnType =
            convention == .errorOutParameter
            ? "Result<\(type), KeychainError>" : type + (convention == .nullableResult ? "?" : "")
        }
      } else {
        returnType = "Void"
        if result != "void" { unavailable = unavailable ?? "its result type \(result) has no Swift type here" }
      }
    }
    return WrapperModel(
      swiftName: swiftName, convention: convention, resultParameter: resultParameter,
      resultParameterType: resultParameterType, resultOwnership: ownership,
      notFoundIsNil: notFoundIsNil, existenceTestName: isCopyWithResult ? swiftName + "Exists" : nil,
      parameters: swiftParameters, returnType: returnType, unavailableReason: unavailable)
  }
}
