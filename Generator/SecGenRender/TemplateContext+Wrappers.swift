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

  /// A member of a typed reference as the template lays it out: its declaration's parts, the
  /// wrapper it calls with the arguments converted, and how the wrapper's answer is read back
  /// (`transform`, a Swift expression over `value`; empty when the answer is returned as it is).
  static func memberContext(_ member: TypedMemberModel) -> [String: Any] {
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
    let shape = member.wrapperReturnType
    let isResult = shape.hasPrefix("Result<")
    let isOptional = !isResult && shape.hasSuffix("?")
    let target = member.convertedType
    let transform: String
    switch member.resultConversion {
    case .none: transform = ""
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
    let declaration: String
    switch member.kind {
    case .initializer: declaration = member.returnType.hasSuffix("?") ? "public init?" : "public init"
    case .staticMethod: declaration = "public static func \(escaped(member.name))"
    case .method: declaration = "public func \(escaped(member.name))"
    case .property: declaration = "public var \(escaped(member.name))"
    }
    return [
      "kind": "\(member.kind)",
      "declaration": declaration,
      "returns": member.kind == .initializer ? "" : " -> \(member.returnType)",
      "parameters": parameters,
      "returnType": member.returnType,
      "failable": member.kind == .initializer && member.returnType.hasSuffix("?"),
      "wrapper": member.wrapper,
      "arguments": member.wrapperArguments.map { converted[$0] ?? $0 }.joined(separator: ", "),
      // A call of three or more arguments puts them on a line of their own: a shape that reads the
      // same at any length, so no line is measured.
      "breaksArguments": member.wrapperArguments.count >= 3,
      // What an untransformed answer goes to: returned, or, for an initializer, `self` (or a
      // binding a failable one checks).
      "resultPrefix": member.kind != .initializer
        ? "" : member.returnType.hasSuffix("?") ? "let converted = " : "self = ",
      "transform": transform,
    ]
  }

  /// A wrapper as the template lays it out: the C function, its arguments, and the convention that
  /// decides the body (`status`, `statusObject`, `statusObjects`, `statusValue`, `statusValueOut`, `statusBuffer`,
  /// `errorOutVoid`, `errorOut`, `plain`).
  static func wrapperContext(_ function: FunctionModel, _ wrapper: WrapperModel) -> [String: Any] {
    let body: String
    let written = wrapper.buffers.first { $0.kind != .input }
    switch wrapper.convention {
    case .status where written != nil: body = "statusBuffer"
    case .status where !wrapper.resultObjects.isEmpty: body = "statusObjects"
    case .status where wrapper.resultInitialValue != nil: body = "statusValueOut"
    case .status where wrapper.resultParameter != nil && wrapper.resultParameterType != nil && !wrapper.notFoundIsNil:
      body = "statusObject"
    case .status where wrapper.resultParameter != nil: body = "statusValue"
    case .status: body = "status"
    case .errorOutParameter where wrapper.returnType == "Result<Void, KeychainError>": body = "errorOutVoid"
    case .errorOutParameter: body = "errorOut"
    case .nullableResult, .none: body = "plain"
    }
    // The C arguments in order: a Swift parameter by its name, a buffer as the pointer and length
    // Swift passes for it (an array converts to a C pointer for the call). The result and error
    // out-parameters come last and are added by the body's own argument list.
    let swiftNames = Set(wrapper.parameters.map(\.name))
    let arguments: [String] = function.parameters.compactMap { parameter in
      if let buffer = wrapper.buffers.first(where: { $0.pointer == parameter.name }) {
        return buffer.kind == .input ? "Array(\(parameter.name))" : "&\(parameter.name)"
      }
      if let buffer = wrapper.buffers.first(where: { $0.length == parameter.name }) {
        switch buffer.kind {
        case .input: return "\(buffer.pointer).count"
        case .outputWithCapacity: return "&\(parameter.name)"
        case .outputOfCount: return parameter.name
        }
      }
      return swiftNames.contains(parameter.name) ? parameter.name : nil
    }
    let objects = wrapper.resultObjects.map(\.name)
    return [
      "body": body,
      "function": function.name,
      "parameters": wrapper.parameters.map { "_ \($0.name): \($0.type)" }.joined(separator: ", "),
      "returnType": wrapper.returnType,
      "arguments": arguments.joined(separator: ", "),
      "argumentsAndResult": (arguments + ["&\(wrapper.resultParameter ?? "")"]).joined(separator: ", "),
      "argumentsAndNull": (arguments + ["nil"]).joined(separator: ", "),
      "argumentsAndError": (arguments + ["&error"]).joined(separator: ", "),
      "resultParameter": wrapper.resultParameter ?? "",
      "resultParameterType": wrapper.resultParameterType ?? "",
      // What a search's out-parameter holds: its typed object, else any CF object.
      "resultValueType": wrapper.resultParameterType ?? "CFTypeRef",
      "notFoundIsNil": wrapper.notFoundIsNil,
      "errorIsManaged": wrapper.errorIsManaged == true,
      "resultInitialValue": wrapper.resultInitialValue ?? "",
      "resultObjects": wrapper.resultObjects.map { ["name": $0.name, "type": $0.type] },
      "argumentsAndResults": (arguments + objects.map { "&\($0)" }).joined(separator: ", "),
      "boundObjects": objects.map { "let \($0)" }.joined(separator: ", "),
      "tupleValue": objects.map { "\($0): \($0)" }.joined(separator: ", "),
      "buffer": written?.pointer ?? "",
      // How many bytes to make room for: the capacity the caller gives, or the count it asks for.
      "bufferSize": written.map { $0.kind == .outputOfCount ? $0.length : $0.pointer + "Capacity" } ?? "",
      // The variable the function sets to the length it wrote, when it sets one.
      "bufferLength": written.flatMap { $0.kind == .outputWithCapacity ? $0.length : nil } ?? "",
    ]
  }
}
