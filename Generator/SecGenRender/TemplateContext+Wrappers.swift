import Foundation
import SecGenModel

// The code of the typed references' members and of the functions' Result/Optional wrappers.

extension TemplateContext {
  /// The property that gives a typed enum's runtime value: the type without `Sec`, lower camel
  /// case (`SecKeyAlgorithm` gives `keyAlgorithm`).
  static func propertyName(of type: String) -> String {
    let name = type.hasPrefix("Sec") ? String(type.dropFirst(3)) : type
    return name.prefix(1).lowercased() + name.dropFirst()
  }

  /// A function's first line and brace as swift-format leaves them: the result type on a line of
  /// its own when the line would pass 120 columns, and the parameters too when the head alone would.
  static func opening(_ name: String, parameters: String, returns type: String) -> String {
    let head = "\(name)(\(parameters))"
    if head.count + " -> \(type) {".count + 2 <= 120 { return "\(head) -> \(type) {" }
    if head.count + 2 <= 120 { return "\(head)\n    -> \(type)\n  {" }
    return "\(name)(\n    \(parameters)\n  ) -> \(type) {"
  }

  /// A member of a typed reference: its declaration and body, indented for the template.
  static func memberCode(_ member: TypedMemberModel, of reference: TypedReferenceModel) -> String {
    let parameters = member.arguments.map { argument in
      let name = escaped(argument.name)
      let head = argument.label == argument.name ? name : "\(argument.label) \(name)"
      return "\(head): \(argument.type)" + (argument.defaultValue.map { " = \($0)" } ?? "")
    }.joined(separator: ", ")
    let converted = Dictionary(
      member.arguments.map { argument -> (String, String) in
        let name = escaped(argument.name)
        let optional = argument.type.hasSuffix("?")
        let wrapperBase =
          argument.wrapperType.hasSuffix("?") ? String(argument.wrapperType.dropLast()) : argument.wrapperType
        switch (argument.conversion, optional) {
        case (.none, _): return (argument.name, name)
        case (.bridge, false): return (argument.name, "\(name) as \(wrapperBase)")
        case (.bridge, true): return (argument.name, "\(name).map { $0 as \(wrapperBase) }")
        case (.runtimeArgument, false): return (argument.name, "\(name).runtimeArgument")
        case (.runtimeArgument, true): return (argument.name, "\(name)?.runtimeArgument")
        }
      }
    ) { first, _ in first }
    let callArguments = member.wrapperArguments.map { converted[$0] ?? $0 }
    let call = "KeychainFunctions.\(member.wrapper)(\(callArguments.joined(separator: ", ")))"
    let shape = member.wrapperReturnType
    let isResult = shape.hasPrefix("Result<")
    let isOptional = !isResult && shape.hasSuffix("?")
    let target = member.convertedType
    // The conversion as a transform of `value`: a method call on a Result or Optional, or an
    // expression around a plain value.
    let transform: String
    switch member.resultConversion {
    case .none: transform = "value"
    case .bridge:
      transform = isResult || isOptional ? "value.map { $0 as \(target) }" : "value as \(target)"
    case .array:
      transform = isResult || isOptional ? "value.map { ($0 as? \(target)) ?? [] }" : "(value as? \(target)) ?? []"
    case .reference:
      transform = isResult || isOptional ? "value.map(\(target).init)" : "\(target)(value)"
    case .checkedReference:
      transform =
        isResult
        ? "value.flatMap { \(target)($0).map { .success($0) } ?? .failure(.param) }"
        : isOptional ? "value.flatMap(\(target).init)" : "\(target)(value)"
    }
    var statements: [String]
    if transform == "value" {
      statements = [call]
    } else {
      statements = ["let value = \(call)", transform]
    }
    let head: String
    switch member.kind {
    case .property:
      head = "public var \(escaped(member.name)): \(member.returnType) {"
    case .initializer:
      let failable = member.returnType.hasSuffix("?")
      head = "public init\(failable ? "?" : "")(\(parameters)) {"
      let last = statements.removeLast()
      statements.append(failable ? "guard let converted = \(last) else { return nil }" : "self = \(last)")
      if failable { statements.append("self = converted") }
    case .method:
      head = opening("public func \(escaped(member.name))", parameters: parameters, returns: member.returnType)
    case .staticMethod:
      head = opening("public static func \(escaped(member.name))", parameters: parameters, returns: member.returnType)
    }
    if member.kind != .initializer && statements.count == 2 { statements[1] = "return " + statements[1] }
    let body = statements.flatMap(wrappedStatement).map { "    \($0)" }
    return (["  " + head] + body + ["  }"]).joined(separator: "\n")
  }

  /// A statement as swift-format leaves it: a call too long for one line gets its arguments on the
  /// next, indented.
  static func wrappedStatement(_ statement: String) -> [String] {
    guard statement.count + 4 > 120, let open = statement.firstIndex(of: "("), statement.hasSuffix(")") else {
      return [statement]
    }
    let inside = statement[statement.index(after: open)..<statement.index(before: statement.endIndex)]
    return [String(statement[...open]), "  \(inside))"]
  }

  /// The statements of a search's existence test (rule 6), indented for the template.
  static func existenceTestBody(_ function: FunctionModel, _ wrapper: WrapperModel) -> String {
    let arguments = wrapper.parameters.map(\.name) + ["nil"]
    let lines = [
      "let status = \(function.name)(\(arguments.joined(separator: ", ")))",
      "switch status {",
      "case errSecSuccess: return .success(true)",
      "case errSecItemNotFound: return .success(false)",
      "default: return .failure(KeychainError(status: status))",
      "}",
    ]
    return lines.map { "    " + $0 }.joined(separator: "\n")
  }

  /// The statements of a wrapper's body, indented for the template.
  static func wrapperBody(_ function: FunctionModel, _ wrapper: WrapperModel) -> String {
    let arguments = wrapper.parameters.map(\.name)
    var lines: [String]
    switch wrapper.convention {
    case .status:
      if let parameter = wrapper.resultParameter, let type = wrapper.resultParameterType {
        lines = [
          "var \(parameter): \(type)?",
          "let status = \(function.name)(\((arguments + ["&\(parameter)"]).joined(separator: ", ")))",
          "guard status == errSecSuccess, let \(parameter) else {",
          "  return .failure(KeychainError(status: status == errSecSuccess ? errSecInternal : status))",
          "}",
          "return .success(\(parameter))",
        ]
      } else if let parameter = wrapper.resultParameter {
        lines = [
          "var \(parameter): CFTypeRef?",
          "let status = \(function.name)(\((arguments + ["&\(parameter)"]).joined(separator: ", ")))",
          "switch status {",
          "case errSecSuccess: return .success(\(parameter))",
        ]
        if wrapper.notFoundIsNil { lines.append("case errSecItemNotFound: return .success(nil)") }
        lines += ["default: return .failure(KeychainError(status: status))", "}"]
      } else {
        lines = [
          "let status = \(function.name)(\(arguments.joined(separator: ", ")))",
          "return status == errSecSuccess ? .success(()) : .failure(KeychainError(status: status))",
        ]
      }
    case .errorOutParameter where wrapper.returnType == "Result<Void, KeychainError>":
      lines = [
        "var error: Unmanaged<CFError>?",
        "guard \(function.name)(\((arguments + ["&error"]).joined(separator: ", "))) else {",
        "  let code = error.map { CFErrorGetCode($0.takeRetainedValue()) } ?? CFIndex(errSecParam)",
        "  return .failure(KeychainError(status: OSStatus(truncatingIfNeeded: code)))",
        "}",
        "return .success(())",
      ]
    case .errorOutParameter:
      lines = [
        "var error: Unmanaged<CFError>?",
        "guard let value = \(function.name)(\((arguments + ["&error"]).joined(separator: ", "))) else {",
        "  let code = error.map { CFErrorGetCode($0.takeRetainedValue()) } ?? CFIndex(errSecParam)",
        "  return .failure(KeychainError(status: OSStatus(truncatingIfNeeded: code)))",
        "}",
        "return .success(value)",
      ]
    case .nullableResult, .none:
      lines = ["\(function.name)(\(arguments.joined(separator: ", ")))"]
    }
    return lines.map { "    \($0)" }.joined(separator: "\n")
  }
}
