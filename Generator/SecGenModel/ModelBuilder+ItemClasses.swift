import Foundation
import SecGenParse

// Item classes: the class table (which class carries which attribute), from the attribute
// groups' tables, their prose and the API notes, checked against the declarations.

extension ModelBuilder {
  /// Reads the `kSecClassX item attributes:` tables of the attribute groups' discussions.
  /// Shapes that parse but cannot be what the headers mean: a missing `@enum` line turns attribute
  /// keys into item classes, or leaves every class without attributes.
  mutating func sanityChecks(
    _ itemClasses: [ItemClassModel], attributes: [AttributeModel], attributeGroups: [ConstantGroup],
    privateClasses: Set<String>, locations: [String: SourceLocation]
  ) {
    func place(_ name: String) -> SourceLocation { locations[name] ?? .none }
    for itemClass in itemClasses where !itemClass.constant.hasPrefix("kSecClass") {
      report(
        place(itemClass.constant),
        "\(itemClass.constant) is among the item classes (group \"Class Value Constants\"); is an @enum line "
          + "missing above it?")
    }
    if attributeGroups.isEmpty, let first = itemClasses.first {
      report(place(first.constant), "the headers declare item classes but no \"Attribute Key Constants\" group")
    }
    // Apple's SPI classes (kSecClassAppleSharePassword) may have no table; a public one without
    // attributes would lose its builder without a word.
    for itemClass in itemClasses
    where itemClass.constant.hasPrefix("kSecClass") && itemClass.attributes.isEmpty
      && !privateClasses.contains(itemClass.constant)
    {
      report(
        place(itemClass.constant),
        "\(itemClass.constant) has no attributes: the class table has no \"\(itemClass.constant) item attributes:\" "
          + "section, or it names none")
    }
  }

  mutating func classTable(_ groups: [ConstantGroup], classes: Set<String>, attributes: Set<String>) -> (
    [String: [String]], shared: [String: [String]]
  ) {
    var table: [String: [String]] = [:]
    var shared: [String: [String]] = [:]
    var prose: [String: String] = [:]
    for group in groups {
      // The table is in the @discussion, or straight under the @enum line when there is none.
      let tableLines =
        group.comment.first("discussion")?.lines ?? Array(group.comment.first("enum")?.lines.dropFirst() ?? [])
      var currentClass: String?
      for (rawLine, line) in tableLines {
        let text = rawLine.trimmingCharacters(in: .whitespaces)
        let column =
          (rawLine.range(of: text).map { rawLine.distance(from: rawLine.startIndex, to: $0.lowerBound) } ?? 0) + 1
        let location = SourceLocation(file: group.comment.file, line: line, column: column)
        if text.hasSuffix(" item attributes:") {
          let name = String(text.dropLast(" item attributes:".count))
          guard classes.contains(name) else {
            report(location, "the class table names \(name), which is not a declared item class")
            currentClass = nil
            continue
          }
          currentClass = name
          if table[name] == nil { table[name] = [] }
        } else if let current = currentClass,
          let match = text.range(of: #"^k[A-Za-z0-9_]+"#, options: .regularExpression)
        {
          let name = String(text[match])
          let rest = text[match.upperBound...].trimmingCharacters(in: .whitespaces)
          if classes.contains(name) {
            // A class named in the section's prose ("...shares attributes of\n kSecClassKey.").
            prose[current, default: ""] += " " + text
            continue
          }
          guard rest.isEmpty || (rest.hasPrefix("(") && rest.hasSuffix(")")) else {
            currentClass = nil
            continue
          }
          guard attributes.contains(name) else {
            // An attribute of another platform (kSecAttrAccess is macOS's) is simply not there.
            if !excludedNames.contains(name) {
              report(location, "the class table of \(current) names \(name), which is not a declared attribute")
            }
            continue
          }
          if !table[current]!.contains(name) { table[current]!.append(name) }
        } else if let current = currentClass, !text.isEmpty, !text.hasPrefix("k") {
          // Prose inside a class's section ("Since an identity is ...") continues it.
          prose[current, default: ""] += " " + text
        } else if !text.isEmpty {
          currentClass = nil
        }
      }
    }
    // Membership the prose gives: an attribute's own entry ("Items of class kSecClassKey have this
    // attribute", "(see kSecClassKey)"), a group's discussion ("Items of class kSecClassKey have
    // these attributes"), then the API notes' `classes`. Each is added after the class's table, in
    // declaration order.
    for group in groups {
      let groupClasses = Self.classes(namedIn: group.discussion, as: .group, among: classes)
      for member in group.members where attributes.contains(member.name) {
        let entryClasses = group.entry(for: member.name).map {
          Self.classes(namedIn: $0.text, as: .entry, among: classes)
        }
        for itemClass in notes.classes[member.name] ?? [] where !classes.contains(itemClass) {
          report(
            member.location,
            "the API notes give \(member.name) the class \(itemClass), which is not a declared item class")
        }
        for itemClass in groupClasses + (entryClasses ?? []) + (notes.classes[member.name] ?? []) {
          guard classes.contains(itemClass) else { continue }
          if !table[itemClass, default: []].contains(member.name) { table[itemClass, default: []].append(member.name) }
        }
      }
    }
    // "this class shares attributes of both kSecClassKey and kSecClassCertificate"
    for (itemClass, text) in prose {
      guard let phrase = text.range(of: "shares attributes of") else { continue }
      var searchRange = phrase.upperBound..<text.endIndex
      while let match = text.range(of: #"kSecClass[A-Za-z]+"#, options: .regularExpression, range: searchRange) {
        let named = String(text[match])
        if classes.contains(named) && named != itemClass { shared[itemClass, default: []].append(named) }
        searchRange = match.upperBound..<text.endIndex
      }
    }
    return (table, shared)
  }

  /// Where membership prose is written: an attribute's own entry speaks of "this attribute", a
  /// group's discussion of "these attributes".
  enum MembershipProse {
    case entry, group
  }

  /// The item classes a sentence of `text` gives the attribute (or the group's attributes) to.
  ///
  /// A sentence counts when it names a declared class and says it is about membership: "Items of
  /// class kSecClassKey have this attribute", "(see kSecClassKey)", "supported only for
  /// kSecClassKey items", "applies to kSecClassKey" (for a group: "... have these attributes",
  /// "these attributes apply to ..."). Any other mention of a class ("a value for kSecClassKey's
  /// kSecAttrKeyClass") is not one.
  static func classes(namedIn text: String, as place: MembershipProse, among classes: Set<String>) -> [String] {
    let membership =
      switch place {
      case .entry:
        #"(?i)\b(ha(ve|s) this attribute|see kSecClass|(supported|used|valid|only) (only )?(for|by|with|on)\b|appl(y|ies) (only )?to\b)"#
      case .group:
        #"(?i)\b(ha(ve|s) these attributes|these attributes (apply|belong) to|(are|is) (the )?attributes of)\b"#
      }
    var found: [String] = []
    for sentence in text.split(whereSeparator: { ".;".contains($0) }) {
      guard sentence.range(of: membership, options: .regularExpression) != nil else { continue }
      var searchRange = sentence.startIndex..<sentence.endIndex
      while let match = sentence.range(of: #"\bkSecClass[A-Za-z]+"#, options: .regularExpression, range: searchRange) {
        let named = String(sentence[match])
        if classes.contains(named) && !found.contains(named) { found.append(named) }
        searchRange = match.upperBound..<sentence.endIndex
      }
    }
    return found
  }
}
