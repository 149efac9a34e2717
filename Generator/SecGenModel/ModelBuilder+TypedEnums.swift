import Foundation
import SecGenParse

// Typed enums: named CF_ENUM and CF_OPTIONS types, with their documented cases.

extension ModelBuilder {
  mutating func typedEnum(_ enumeration: EnumDeclaration) -> TypedEnumModel {
    let name = enumeration.name ?? ""
    let documented = enumeration.comment.map { comment($0, before: enumeration.location) }
    let entries = Dictionary((documented?.all("constant") ?? []).map { ($0.argument, $0.text) }) { first, _ in first }
    let names = enumeration.constants.map(\.name)
    // As ClangImporter does, the cases drop the prefix every value shares (kSecAccessControl).
    var shared = names.first ?? ""
    for other in names.dropFirst() {
      shared = String(zip(shared, other).prefix { $0 == $1 }.map(\.0))
    }
    if names.count < 2 { shared = "k" + name }
    let cases = enumeration.constants.map { constant in
      let documentation = constant.trailingComment ?? entries[constant.name] ?? ""
      if documentation.isEmpty {
        warn(
          constant.location, .undocumentedEnumCase,
          "\(constant.name) of \(name) has no @constant entry or trailing comment; it is imported without documentation"
        )
      }
      return TypedEnumCaseModel(
        constant: constant.name,
        swiftName: notes.names[constant.name]
          ?? SwiftNaming.lowerCamel(SwiftNaming.stripSharedPrefix(constant.name, key: shared)),
        value: constant.value, documentation: documentation)
    }
    return TypedEnumModel(
      name: name, underlyingType: enumeration.underlyingType ?? "int", isOptions: enumeration.isOptions,
      documentation: documented.map { [$0.first("abstract")?.text, $0.first("discussion")?.text] }
        .map { $0.compactMap { $0 }.joined(separator: " ") } ?? "",
      cases: cases)
  }
}
