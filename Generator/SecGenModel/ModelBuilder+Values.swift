import Foundation
import SecGenParse

// Typed enums and value groups: the cases of a group of string constants.

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

  func isPrivate(_ location: SourceLocation) -> Bool {
    URL(fileURLWithPath: location.file).lastPathComponent.hasSuffix("Priv.h")
  }

  mutating func valueCases(_ group: ConstantGroup, key: String) -> [ValueCaseModel] {
    group.members.map { member in valueCase(member, key: key, documentation: group.entry(for: member.name)?.text ?? "")
    }
  }

  /// One value of `key`'s group, named from the API notes or by what it adds to the key's name.
  mutating func valueCase(_ member: ConstantDeclaration, key: String, documentation: String)
    -> ValueCaseModel
  {
    let name =
      notes.names[member.name] ?? SwiftNaming.lowerCamel(SwiftNaming.stripSharedPrefix(member.name, key: key))
    if !SwiftNaming.isIdentifier(name) {
      report(
        member.location,
        "\(member.name) would be named '\(name)' in Swift, which is not an identifier; give it a name in the API notes"
      )
    }
    return ValueCaseModel(
      constant: member.name, swiftName: name, isPrivate: isPrivate(member.location), documentation: documentation)
  }

  /// The value group of `key`, named from the API notes (by its "<key> Value Constants" title) or
  /// by the key without its prefix.
  func valueGroup(key: String, documentation: String, cases: [ValueCaseModel]) -> ValueGroupModel {
    ValueGroupModel(
      key: key,
      swiftName: notes.names["\(key) Value Constants"]
        ?? SwiftNaming.stripPrefix(key, ["kSecAttr", "kSecUse", "kSec"]),
      documentation: documentation, cases: cases)
  }
}
