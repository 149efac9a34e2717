import Foundation
import SecGenParse

/// A typed Swift type over a runtime reference (`PrivateKey` over `SecKey`) and the functions the
/// API notes import as its members.
public struct TypedReferenceModel: Codable, Equatable, Sendable {
  /// The Swift type's name.
  public var name: String
  /// The Swift type of the reference it holds (`SecKey`).
  public var referenceType: String
  /// The stored property holding it.
  public var property: String
  /// The Boolean property of the reference that must hold, `!` for its negation; nil when every
  /// reference of the type is one of these.
  public var condition: String?
  /// The notes' documentation of the type.
  public var documentation: String
  /// The item class whose search results carry such a reference, if any.
  public var itemClass: String? = nil
  /// The typed item's field holding it.
  public var itemField: String? = nil
  /// The imported functions, in the notes' order.
  public var members: [TypedMemberModel]
}

/// What kind of member a function becomes.
public enum TypedMemberKind: String, Codable, Sendable {
  /// A method on a value of the type: one C parameter is the value's reference.
  case method
  /// A static method: no C parameter is the type's reference.
  case staticMethod
  /// An initializer, failable when the function can return NULL.
  case initializer
  /// A read-only property: a method with no arguments that cannot report an error.
  case property
}

/// How a Swift argument becomes the C function wrapper's argument.
public enum ArgumentConversion: String, Codable, Sendable {
  /// Passed as it is.
  case none
  /// Bridged to its Core Foundation type (`Data` to `CFData`).
  case bridge
  /// Passed as its `runtimeArgument` (a typed enum, a reference type, a parameter set).
  case runtimeArgument
}

/// One Swift argument of a member.
public struct TypedArgumentModel: Codable, Equatable, Sendable {
  /// The argument label, `_` for none.
  public var label: String
  /// The C parameter it stands for, also the Swift parameter's name.
  public var name: String
  /// The Swift type.
  public var type: String
  /// The wrapper's Swift type for the parameter.
  public var wrapperType: String
  /// How it is passed on.
  public var conversion: ArgumentConversion
  /// The Swift default value, if any.
  public var defaultValue: String?
}

/// How the wrapper's value becomes the member's.
public enum ResultConversion: String, Codable, Sendable {
  /// Returned as it is.
  case none
  /// Bridged from its Core Foundation type (`CFData` to `Data`).
  case bridge
  /// A Core Foundation array read as a Swift array of the element type (empty when it holds others).
  case array
  /// Wrapped in a reference type whose initializer always succeeds.
  case reference
  /// Wrapped in a reference type whose initializer checks the reference (nil, or `.param` in a
  /// `Result`, when it is the other kind).
  case checkedReference
}

/// A function imported as a member of a reference type.
public struct TypedMemberModel: Codable, Equatable, Sendable {
  /// The C function.
  public var function: String
  /// The member's kind.
  public var kind: TypedMemberKind
  /// The Swift name (`signature`, or `init`).
  public var name: String
  /// The Swift arguments, in the Swift order.
  public var arguments: [TypedArgumentModel]
  /// The wrapper's arguments in the C order: Swift parameter names, `self`'s reference, or fixed
  /// expressions.
  public var wrapperArguments: [String]
  /// The wrapper's Swift name in `KeychainFunctions`.
  public var wrapper: String
  /// The wrapper's return type.
  public var wrapperReturnType: String
  /// The member's Swift type: what it returns (`Result<Data, KeychainError>`), or the property's type.
  public var returnType: String
  /// How the wrapper's value is converted.
  public var resultConversion: ResultConversion
  /// The type the value is converted to (`Data`, `PublicKey`, `[String]`).
  public var convertedType: String
  /// The documentation: the function's abstract and what the member answers.
  public var documentation: String
}

/// Builds the typed references from the notes: the rules of the DocC article "Function wrappers",
/// section "Members of typed references". Every misuse is a diagnostic at the notes entry.
enum TypedReferenceBuilder {
  /// The Swift types the typed API uses for Core Foundation values by default.
  private static let bridged: [String: String] = ["CFData": "Data", "CFString": "String", "CFDate": "Date"]

  static func build(
    notes: APINotes, functions: [FunctionModel], typedEnumNames: Set<String>
  ) -> (references: [TypedReferenceModel], diagnostics: [Diagnostic]) {
    var diagnostics: [Diagnostic] = []
    func report(_ location: SourceLocation, _ message: String) {
      diagnostics.append(Diagnostic(location: location, severity: .error, message: message))
    }
    var references: [String: TypedReferenceModel] = [:]
    for (name, note) in notes.references {
      guard let swiftType = FunctionConventions.swiftType(note.cType) else {
        report(note.location, "the reference type \(name) wraps \(note.cType), which has no Swift type here")
        continue
      }
      references[name] = TypedReferenceModel(
        name: name, referenceType: swiftType, property: note.property, condition: note.condition,
        documentation: note.documentation, itemClass: note.itemClass, itemField: note.itemField, members: [])
    }
    let functionsByName = Dictionary(functions.map { ($0.name, $0) }) { first, _ in first }
    for note in notes.methods {
      guard let parsed = SwiftMemberName(note.swiftName) else {
        report(
          note.location,
          "\"\(note.swiftName)\" is no member name: write Type.name(label:...), Type.init(label:...) or getter:Type.name"
        )
        continue
      }
      guard let reference = references[parsed.type] else {
        report(note.location, "\(parsed.type) is not one of the References of the notes")
        continue
      }
      guard let function = functionsByName[note.function] else {
        report(note.location, "\(note.function) is not a function the headers declare")
        continue
      }
      guard let wrapper = function.wrapper, wrapper.unavailableReason == nil else {
        report(
          note.location,
          "\(note.function) has no wrapper (\(function.wrapper?.unavailableReason ?? "unknown")), so it cannot be a member"
        )
        continue
      }
      switch member(
        note, parsed, function: function, wrapper: wrapper, reference: reference, references: references,
        typedEnumNames: typedEnumNames)
      {
      case .success(let member): references[parsed.type]?.members.append(member)
      case .failure(let problem): report(note.location, problem.message)
      }
    }
    return (references.values.sorted { $0.name < $1.name }, diagnostics)
  }

  private struct Problem: Error {
    var message: String
    init(_ message: String) { self.message = message }
  }

  private static func member(
    _ note: MethodNote, _ parsed: SwiftMemberName, function: FunctionModel, wrapper: WrapperModel,
    reference: TypedReferenceModel, references: [String: TypedReferenceModel], typedEnumNames: Set<String>
  ) -> Result<TypedMemberModel, Problem> {
    let parameterNames = wrapper.parameters.map(\.name)
    guard parsed.labels.count == note.arguments.count else {
      return .failure(
        Problem("\(note.swiftName) has \(parsed.labels.count) labels but \(note.arguments.count) arguments"))
    }
    for name in note.arguments + note.fixed.keys.sorted() + note.types.keys.filter({ $0 != "return" }).sorted()
    where !parameterNames.contains(name) {
      return .failure(
        Problem(
          "\(name) is not a parameter of \(function.name)'s wrapper (it has \(parameterNames.joined(separator: ", ")))")
      )
    }
    for name in note.defaults.keys.sorted() where !note.arguments.contains(name) {
      return .failure(Problem("the default for \(name) names no argument of \(note.swiftName)"))
    }
    let named = Set(note.arguments).union(note.fixed.keys)
    let remaining = wrapper.parameters.filter { !named.contains($0.name) }
    let kind: TypedMemberKind
    switch (parsed.isGetter, parsed.name == "init") {
    case (true, _): kind = .property
    case (false, true): kind = .initializer
    case (false, false): kind = remaining.isEmpty ? .staticMethod : .method
    }
    if kind == .property && !note.arguments.isEmpty {
      return .failure(Problem("a getter takes no arguments, but \(note.swiftName) lists some"))
    }
    var selfParameter: String?
    if kind == .method || kind == .property {
      guard remaining.count == 1, remaining[0].type == reference.referenceType else {
        return .failure(
          Problem(
            "\(function.name) must have exactly one parameter of type \(reference.referenceType) left for self; "
              + "left: \(remaining.map { "\($0.name): \($0.type)" }.joined(separator: ", "))"))
      }
      selfParameter = remaining[0].name
    } else if !remaining.isEmpty {
      return .failure(
        Problem(
          "every parameter of \(function.name) needs an argument or a fixed value; "
            + "left: \(remaining.map(\.name).joined(separator: ", "))"))
    }

    var arguments: [TypedArgumentModel] = []
    for (label, name) in zip(parsed.labels, note.arguments) {
      let wrapperType = wrapper.parameters.first { $0.name == name }!.type
      let optional = wrapperType.hasSuffix("?")
      let base = optional ? String(wrapperType.dropLast()) : wrapperType
      let swiftBase = note.types[name] ?? bridged[base] ?? base
      let conversion: ArgumentConversion =
        swiftBase == base ? .none : bridged[base] == swiftBase ? .bridge : .runtimeArgument
      if conversion == .runtimeArgument, references[swiftBase] == nil, !typedEnumNames.contains(swiftBase),
        note.types[name] == nil
      {
        return .failure(Problem("no Swift type is known for \(name) (\(base)); give one in the member's Types"))
      }
      arguments.append(
        TypedArgumentModel(
          label: label, name: name, type: swiftBase + (optional ? "?" : ""), wrapperType: wrapperType,
          conversion: conversion, defaultValue: note.defaults[name]))
    }
    let wrapperArguments = wrapper.parameters.map { parameter -> String in
      if parameter.name == selfParameter { return reference.property }
      if let fixed = note.fixed[parameter.name] { return fixed }
      return parameter.name
    }

    // The result: Result<X, KeychainError>, X? or X, converted to the member's type.
    let shape = ResultShape(wrapper.returnType)
    let target =
      note.types["return"]
      ?? (kind == .initializer || kind == .staticMethod && shape.value == reference.referenceType
        ? reference.name : nil)
      ?? bridged[shape.value] ?? shape.value
    let conversion: ResultConversion
    if target == shape.value {
      conversion = .none
    } else if bridged[shape.value] == target {
      conversion = .bridge
    } else if target.hasPrefix("["), shape.value == "CFArray" {
      conversion = .array
    } else if let wrapped = references[target], wrapped.referenceType == shape.value {
      conversion = wrapped.condition == nil ? .reference : .checkedReference
    } else {
      return .failure(Problem("\(function.name) returns \(shape.value), which cannot become \(target)"))
    }
    let failable = conversion == .checkedReference
    let returnType: String
    switch shape.kind {
    case .result: returnType = "Result<\(target), KeychainError>"
    case .optional: returnType = target + "?"
    case .plain: returnType = failable ? target + "?" : target
    }
    if kind == .property && shape.kind == .result {
      return .failure(
        Problem(
          "\(function.name) reports errors, so it cannot be the getter \(note.swiftName); import it as a method"))
    }
    if kind == .initializer && shape.kind == .result {
      return .failure(
        Problem("\(function.name) reports errors, so it cannot be an initializer; import it as a static method"))
    }
    let abstract = function.abstract.hasSuffix(".") ? String(function.abstract.dropLast()) : function.abstract
    var lines = ["\(abstract) (`\(function.name)`)."]
    for (name, value) in note.fixed.sorted(by: { $0.key < $1.key }) {
      lines.append("Here `\(name)` is always `\(value)`.")
    }
    switch (shape.kind, kind) {
    case (.result, _) where target == "Void":
      lines.append("Success, or the reason as a `KeychainError`.")
    case (.result, _): lines.append("The result, or the reason as a `KeychainError`.")
    case (.optional, .initializer): lines.append("nil where the C function returns NULL.")
    case (.optional, _): lines.append("nil where the C function returns NULL.")
    case (.plain, _) where failable: lines.append("nil when the result is not a `\(target)`.")
    case (.plain, _): break
    }
    return .success(
      TypedMemberModel(
        function: function.name, kind: kind, name: parsed.name, arguments: arguments,
        wrapperArguments: wrapperArguments, wrapper: wrapper.swiftName, wrapperReturnType: wrapper.returnType,
        returnType: returnType, resultConversion: conversion, convertedType: target,
        documentation: lines.joined(separator: " ")))
  }

}

/// `Type.name(a:b:)`, `Type.init(a:)` or `getter:Type.name`, split.
struct SwiftMemberName {
  var type: String
  var name: String
  var labels: [String]
  var isGetter: Bool

  init?(_ text: String) {
    var rest = Substring(text)
    isGetter = rest.hasPrefix("getter:")
    if isGetter { rest = rest.dropFirst("getter:".count) }
    guard let dot = rest.firstIndex(of: ".") else { return nil }
    type = String(rest[..<dot])
    rest = rest[rest.index(after: dot)...]
    if let open = rest.firstIndex(of: "(") {
      guard rest.hasSuffix(")"), !isGetter || rest[open...] == "()" else { return nil }
      name = String(rest[..<open])
      let inside = rest[rest.index(after: open)..<rest.index(before: rest.endIndex)]
      guard inside.isEmpty || inside.hasSuffix(":") else { return nil }
      labels = inside.split(separator: ":", omittingEmptySubsequences: false).dropLast().map(String.init)
    } else {
      guard isGetter else { return nil }
      name = String(rest)
      labels = []
    }
    guard SwiftNaming.isIdentifier(type), SwiftNaming.isIdentifier(name),
      labels.allSatisfy({ $0 == "_" || SwiftNaming.isIdentifier($0) })
    else { return nil }
  }
}

/// The shape of a wrapper's return type.
struct ResultShape {
  enum Kind { case result, optional, plain }
  var kind: Kind
  /// The value type inside (`CFData` in `Result<CFData, KeychainError>`).
  var value: String

  init(_ type: String) {
    if type.hasPrefix("Result<"), type.hasSuffix(", KeychainError>") {
      kind = .result
      value = String(type.dropFirst("Result<".count).dropLast(", KeychainError>".count))
    } else if type.hasSuffix("?") {
      kind = .optional
      value = String(type.dropLast())
    } else {
      kind = .plain
      value = type
    }
  }
}
