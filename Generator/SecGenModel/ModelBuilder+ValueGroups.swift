import Foundation
import SecGenParse

// Value groups: the string constants a key accepts (`<key> Value Constants`), as enum cases.

extension ModelBuilder {
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
