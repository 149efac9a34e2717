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
///    A search whose nullable out-parameter is of a typed object instead (`SecItemFoundValuesRef *`)
///    gives that type: `Result<SecItemFoundValues?, KeychainError>`, read without a cast.
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
/// 7. Byte buffers: a `const uint8_t *` (or `const void *`) parameter followed by its `size_t`
///    length becomes one `Data` parameter. An `uint8_t *` (or `void *`) the function writes,
///    followed by a `size_t *` that gives its capacity and receives the length written, becomes a
///    `<name>Capacity: Int` parameter; preceded by a `size_t` count, it is written whole. Either way
///    the bytes written are the `Result`'s value (`Result<Data, KeychainError>`).
/// 8. Two or more trailing object out-parameters returned retained (SecKeyGeneratePair's keys)
///    become a tuple named after them: `Result<(publicKey: SecKey, privateKey: SecKey), ...>`.
/// 9. An `int` result whose `@result` names errSecSuccess is a status, as an `OSStatus` is
///    (SecRandomCopyBytes).
/// 10. A status function's trailing pointer to a value (a typed enum or a `Boolean`) that it
///    writes is its result: `SecTrustGetTrustResult(trust, &result)` becomes
///    `Result<SecTrustResultType, KeychainError>`; the value starts at the enum's first case, or
///    false.
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
  /// Rule 7: the byte buffers among the C parameters, in their order.
  public var buffers: [BufferModel] = []
  /// Rule 8: the object out-parameters returned together, with their Swift types; empty unless
  /// there are two or more (one is `resultParameter`).
  public var resultObjects: [WrapperParameter] = []
  /// Rule 10: the value a value out-parameter starts at (`.invalid`, `false`); nil for any other
  /// result (and left out of the model).
  public var resultInitialValue: String? = nil
  /// True when the error out-parameter is declared CF_RETURNS_RETAINED, which Swift imports as a
  /// managed `CFError?` rather than an `Unmanaged` one; nil otherwise (and left out of the model).
  public var errorIsManaged: Bool? = nil
}

/// A byte buffer of a C function and the `size_t` that goes with it (rule 7).
public struct BufferModel: Codable, Equatable, Sendable {
  /// What the function does with the buffer.
  public enum Kind: String, Codable, Sendable {
    /// It reads `length` bytes at `pointer`: the wrapper takes a `Data`.
    case input
    /// It writes at most `*length` bytes at `pointer` and sets `*length` to how many it wrote.
    case outputWithCapacity
    /// It writes exactly `length` bytes at `pointer` (`length` comes first, as a count).
    case outputOfCount
  }

  /// What the function does with the buffer.
  public var kind: Kind
  /// The C pointer parameter.
  public var pointer: String
  /// The C `size_t` (or `size_t *`) parameter that gives its length, capacity or count.
  public var length: String
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
    "CFErrorRef": "CFError", "CFAllocatorRef": "CFAllocator", "CFIndex": "CFIndex", "CFTypeID": "CFTypeID",
    "OSStatus": "OSStatus",
    "SecAccessControlRef": "SecAccessControl", "SecCertificateRef": "SecCertificate", "SecKeyRef": "SecKey",
    "SecIdentityRef": "SecIdentity", "SecItemEntriesRef": "SecItemEntries",
    "SecItemFoundValuesRef": "SecItemFoundValues", "SecRandomRef": "SecRandom",
    "SecTrustRef": "SecTrust", "SecPolicyRef": "SecPolicy", "CFAbsoluteTime": "CFAbsoluteTime",
    "CFOptionFlags": "CFOptionFlags",
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

  static func wrapper(
    _ function: FunctionModel, typedEnums: Set<String> = [], firstCases: [String: String] = [:]
  ) -> WrapperModel {
    let swiftName = SwiftNaming.lowerCamel(SwiftNaming.stripPrefix(function.name, ["Sec"]))
    let result = bare(function.resultType)
    var parameters = function.parameters
    var convention: ErrorConvention
    var resultParameter: String?
    var ownership = ownership(function.resultType, functionName: function.name)
    var resultParameterType: String?
    var resultObjects: [WrapperParameter] = []
    var errorIsManaged: Bool?
    var resultInitialValue: String?
    if result == "OSStatus" || (result == "int" && function.resultCodes.contains("errSecSuccess")) {
      convention = .status
      if let last = parameters.last, last.nullable, bare(last.type) == "CFTypeRef *" {
        resultParameter = last.name
        ownership = Self.ownership(last.type, functionName: function.name)
        parameters.removeLast()
      } else {
        // `SecCertificateRef * CF_RETURNS_RETAINED certificateRef`: objects the function hands back.
        while let last = parameters.last, let type = handedBackObjectType(last, typedEnums: typedEnums) {
          resultObjects.insert(WrapperParameter(name: last.name, type: type), at: 0)
          parameters.removeLast()
        }
        if resultObjects.count == 1 {
          resultParameter = resultObjects[0].name
          resultParameterType = resultObjects[0].type
          resultObjects = []
        }
        if resultParameterType != nil || !resultObjects.isEmpty { ownership = .retained }
        if resultObjects.isEmpty, resultParameter == nil, let last = parameters.last,
          let (type, initial) = valueOutParameter(last, typedEnums: typedEnums, firstCases: firstCases)
        {
          resultParameter = last.name
          resultParameterType = type
          resultInitialValue = initial
          ownership = .unspecified
          parameters.removeLast()
        }
      }
    } else if let last = parameters.last, bare(last.type) == "CFErrorRef *" {
      convention = .errorOutParameter
      // Audited with CF_RETURNS_RETAINED, ClangImporter gives the error managed
      // (`UnsafeMutablePointer<CFError?>`, SecTrustEvaluateWithError); unaudited, Unmanaged.
      errorIsManaged = last.type.contains("CF_RETURNS_RETAINED") ? true : nil
      parameters.removeLast()
    } else if function.resultType.contains("_Nullable") {
      convention = .nullableResult
    } else {
      convention = .none
    }
    let isSearch =
      resultParameter != nil && function.name.contains("Copy") && function.resultCodes.contains("errSecItemNotFound")
    // Rule 2's typed form: one typed object the caller may ask for or not (a nullable pointer).
    let isTypedSearch =
      isSearch && resultParameterType != nil && resultInitialValue == nil
      && function.parameters.last.map { $0.name == resultParameter && $0.nullable } == true
    let isCopyWithResult =
      convention == .status && resultParameter != nil && (resultParameterType == nil || isTypedSearch)
      && function.name.contains("Copy")
    let notFoundIsNil = isSearch && (resultParameterType == nil || isTypedSearch)
    var unavailable: String?
    let (swiftParameters, buffers, bufferProblem) = Self.parameters(parameters, typedEnums: typedEnums)
    unavailable = bufferProblem
    let writesBuffer = buffers.contains { $0.kind != .input }
    if writesBuffer && (convention != .status || resultParameter != nil || !resultObjects.isEmpty) {
      unavailable = unavailable ?? "it writes a buffer but reports its result another way than a status alone"
    }
    let returnType: String
    switch convention {
    case .status:
      if writesBuffer {
        returnType = "Result<Data, KeychainError>"
      } else if !resultObjects.isEmpty {
        let tuple = resultObjects.map { "\($0.name): \($0.type)" }.joined(separator: ", ")
        returnType = "Result<(\(tuple)), KeychainError>"
      } else if let type = resultParameterType {
        returnType = isTypedSearch ? "Result<\(type)?, KeychainError>" : "Result<\(type), KeychainError>"
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
      parameters: swiftParameters, returnType: returnType, unavailableReason: unavailable, buffers: buffers,
      resultObjects: resultObjects, resultInitialValue: resultInitialValue, errorIsManaged: errorIsManaged)
  }

  /// Rule 10: the Swift type and starting value of a pointer to a value the function writes (a
  /// typed enum whose first case is known, or a `Boolean`), or nil for any other parameter.
  private static func valueOutParameter(
    _ parameter: ParameterModel, typedEnums: Set<String>, firstCases: [String: String]
  ) -> (type: String, initial: String)? {
    let type = bare(parameter.type)
    guard type.hasSuffix(" *"), !parameter.type.contains("CF_RETURNS_RETAINED") else { return nil }
    let pointee = String(type.dropLast(2))
    if ["Boolean", "bool", "_Bool"].contains(pointee) { return ("Bool", "false") }
    guard typedEnums.contains(pointee), let first = firstCases[pointee] else { return nil }
    return (pointee, ".\(first)")
  }

  /// The Swift type of an object the function hands back through a `CF_RETURNS_RETAINED`
  /// out-parameter (`SecKeyRef * CF_RETURNS_RETAINED privateKey`), or nil for any other parameter.
  private static func handedBackObjectType(_ parameter: ParameterModel, typedEnums: Set<String>) -> String? {
    let type = bare(parameter.type)
    guard type.hasSuffix(" *"),
      parameter.type.contains("CF_RETURNS_RETAINED") || parameter.type.contains("cf_returns_retained"),
      let swift = swiftType(String(type.dropLast(2)), typedEnums: typedEnums), swift != "CFTypeRef"
    else { return nil }
    return swift
  }

  /// The pointers rule 7 reads as bytes the function reads, and as bytes it writes.
  private static let inputPointers: Set<String> = ["const uint8_t *", "const void *"]
  private static let outputPointers: Set<String> = ["uint8_t *", "void *"]

  /// The Swift parameters of the C parameters left once the result and error parameters are
  /// taken, with the buffers among them (rule 7), or why they have no Swift form.
  private static func parameters(_ parameters: [ParameterModel], typedEnums: Set<String>)
    -> (swift: [WrapperParameter], buffers: [BufferModel], problem: String?)
  {
    var swift: [WrapperParameter] = []
    var buffers: [BufferModel] = []
    var index = parameters.startIndex
    while index < parameters.endIndex {
      let parameter = parameters[index]
      // `bare` drops `const`; whether the pointee is const is read from the spelling.
      let pointer = (parameter.type.hasPrefix("const ") ? "const " : "") + bare(parameter.type)
      let next = index + 1 < parameters.endIndex ? parameters[index + 1] : nil
      let previous = index > parameters.startIndex ? parameters[index - 1] : nil
      if inputPointers.contains(pointer), let next, bare(next.type) == "size_t" {
        buffers.append(BufferModel(kind: .input, pointer: parameter.name, length: next.name))
        swift.append(WrapperParameter(name: parameter.name, type: "Data"))
        index += 2
      } else if outputPointers.contains(pointer), let next, bare(next.type) == "size_t *" {
        buffers.append(BufferModel(kind: .outputWithCapacity, pointer: parameter.name, length: next.name))
        swift.append(WrapperParameter(name: parameter.name + "Capacity", type: "Int"))
        index += 2
      } else if outputPointers.contains(pointer), !parameter.nullable, let previous, bare(previous.type) == "size_t" {
        buffers.append(BufferModel(kind: .outputOfCount, pointer: parameter.name, length: previous.name))
        index += 1
      } else if let type = swiftType(parameter.type, typedEnums: typedEnums) {
        swift.append(WrapperParameter(name: parameter.name, type: type + (parameter.nullable ? "?" : "")))
        index += 1
      } else {
        return (
          swift, buffers, "parameter \(parameter.name) has type \(bare(parameter.type)), which has no Swift type here"
        )
      }
    }
    if buffers.filter({ $0.kind != .input }).count > 1 {
      return (swift, buffers, "it writes more than one buffer, and a wrapper returns one")
    }
    return (swift, buffers, nil)
  }
}
