import Foundation
import SecGenParse

// Functions: prototypes, their HeaderDoc entries, and the wrapper their declaration implies.

extension ModelBuilder {
  mutating func function(
    _ declaration: FunctionDeclaration, typedEnums: Set<String>, firstCases: [String: String] = [:]
  ) -> FunctionModel {
    let parsed = declaration.comment.map { comment($0, before: declaration.location) }
    if let parsed, let named = parsed.first("function"), named.text != declaration.name {
      // The comment stands right before the declaration, so it is its documentation under another
      // name (Apple's SecTrust.h has one): read as the declaration's, and said.
      warn(
        SourceLocation(file: declaration.location.file, line: named.line, column: 5), .misnamedDocumentation,
        "@function \(named.text) documents \(declaration.name), the declaration it stands before")
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
    model.wrapper = FunctionConventions.wrapper(model, typedEnums: typedEnums, firstCases: firstCases)
    return model
  }
}
