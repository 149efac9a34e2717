import Foundation
import SecGenParse

// Status codes: the errSec enumerators of OSStatus enums, with their meanings.

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
              name: constant.name, reason: "not an errSec status code; only errSec codes become KeychainError cases",
              cause: .otherFamily))
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
}
