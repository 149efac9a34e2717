import Foundation
import SecGenParse

extension ModelBuilder {
  mutating func statusCodes(_ enumerations: [EnumDeclaration], returnedByFunctions: Set<String>)
    -> [StatusCodeModel]
  {
    var codes: [StatusCodeModel] = []
    var firstByValue: [Int64: String] = [:]
    for enumeration in enumerations {
      // Apple's own enum gives some codes no trailing comment; its @enum comment's @constant
      // entries may still say what they mean.
      let documented = enumeration.comment.map { comment($0, before: enumeration.location) }
      let entries = Dictionary((documented?.all("constant") ?? []).map { ($0.argument, $0.text) }) { first, _ in first }
      for constant in enumeration.constants {
        guard constant.name.hasPrefix("errSec") || constant.name == "noErr" else {
          // Another family of codes in the same enum: filtered out, on the record.
          otherFamilies.append(
            ExcludedDeclarationModel(
              name: constant.name, reason: "not an errSec status code; only errSec codes become KeychainError cases"))
          continue
        }
        let alias = firstByValue[constant.value].flatMap { name in codes.first { $0.name == name } }
        var meaning = constant.trailingComment ?? ""
        if meaning.isEmpty { meaning = entries[constant.name] ?? alias?.meaning ?? "" }
        if meaning.isEmpty {
          warn(
            constant.location, .undocumentedStatusCode,
            "\(constant.name) has no trailing comment or @constant entry giving its meaning")
        }
        let swiftName =
          notes.names[constant.name] ?? SwiftNaming.lowerCamel(SwiftNaming.stripPrefix(constant.name, ["errSec"]))
        codes.append(
          StatusCodeModel(
            name: constant.name, swiftName: swiftName, value: constant.value, meaning: meaning,
            aliasOf: firstByValue[constant.value],
            returnedByFunctions: returnedByFunctions.contains(constant.name)))
        if firstByValue[constant.value] == nil { firstByValue[constant.value] = constant.name }
      }
    }
    return codes
  }

  mutating func function(_ declaration: FunctionDeclaration, typedEnums: Set<String>) -> FunctionModel {
    let parsed = declaration.comment.map { comment($0, before: declaration.location) }
    if let parsed, let named = parsed.first("function"), named.text != declaration.name {
      report(
        SourceLocation(file: declaration.location.file, line: named.line, column: 5),
        "@function \(named.text) documents \(declaration.name)")
    }
    let documented = Dictionary((parsed?.all("param") ?? []).map { ($0.argument, $0) }) { first, _ in first }
    for (name, tag) in documented where !declaration.parameters.contains(where: { $0.name == name }) {
      report(
        SourceLocation(file: declaration.location.file, line: tag.line, column: 5),
        "@param \(name) names no parameter of \(declaration.name)")
    }
    let result = parsed?.first("result")?.text ?? ""
    var codes: [String] = []
    var searchRange = result.startIndex..<result.endIndex
    while let range = result.range(of: #"errSec[A-Za-z0-9]+"#, options: .regularExpression, range: searchRange) {
      codes.append(String(result[range]))
      searchRange = range.upperBound..<result.endIndex
    }
    var model = FunctionModel(
      name: declaration.name, abstract: parsed?.first("abstract")?.text ?? "", resultType: declaration.resultType,
      parameters: declaration.parameters.map {
        ParameterModel(
          name: $0.name, type: $0.type, nullable: $0.nullability == .nullable,
          documentation: documented[$0.name]?.text ?? "")
      }, result: result, resultCodes: codes)
    model.isPrivate = isPrivate(declaration.location)
    model.wrapper = FunctionConventions.wrapper(model, typedEnums: typedEnums)
    return model
  }
}
