import Foundation
import SecGenParse

/// Stage 2: turns declarations and their HeaderDoc structure into a `SecurityModel`.
///
/// Every statement it cannot understand is a diagnostic with file:line:column: a constant outside
/// an `@enum` group, a class table entry that names nothing, an attribute of unknown type...
public struct ModelBuilder {
  private var diagnostics: [Diagnostic] = []
  private var warnings: [Diagnostic] = []
  private var otherFamilies: [ExcludedDeclarationModel] = []
  private var sources = SourceTexts()
  /// The CF_STRING_ENUM typedefs of the headers being modelled (their constants are strings too).
  private var parsedStringEnums: Set<String> = []
  private let notes: APINotes

  /// Builds the model of `parsed`, with the sidecar's overrides.
  ///
  /// Only the declarations available on `platform` are modelled: the others are listed in
  /// `excluded` with the reason, and a class table that names one of them is not an error. Those
  /// deprecated there carry their message.
  public static func build(_ parsed: ParsedHeaders, notes: APINotes = .empty, platform: TargetPlatform = .ios)
    throws(DiagnosticsError) -> SecurityModel
  {
    let (available, excluded, deprecations) = parsed.available(on: platform)
    var builder = ModelBuilder(notes: notes, excludedNames: Set(excluded.map(\.name)))
    var model = builder.model(available)
    guard builder.diagnostics.isEmpty else { throw DiagnosticsError(builder.diagnostics) }
    if !parsed.definitions.isEmpty {
      let (definitions, problems) = runtimeDefinitions(parsed, model: model)
      guard problems.isEmpty else { throw DiagnosticsError(problems) }
      model.definitions = definitions
    }
    model.platform = platform
    model.excluded = excluded + builder.otherFamilies
    model.warnings = builder.warnings
    model.skipped = parsed.skipped.map { SkippedDeclarationModel(kind: $0.kind, name: $0.name) }
    for index in model.attributes.indices {
      model.attributes[index].deprecation = deprecations[model.attributes[index].constant]
    }
    for group in model.valueGroups.indices {
      for index in model.valueGroups[group].cases.indices {
        model.valueGroups[group].cases[index].deprecation = deprecations[model.valueGroups[group].cases[index].constant]
      }
    }
    for index in model.statusCodes.indices {
      model.statusCodes[index].deprecation = deprecations[model.statusCodes[index].name]
    }
    for index in model.functions.indices {
      model.functions[index].deprecation = deprecations[model.functions[index].name]
    }
    for typed in model.typedEnums.indices {
      let constants = Set(model.typedEnums[typed].cases.map(\.constant))
      for index in model.typedEnums[typed].cases.indices {
        let deprecation = deprecations[model.typedEnums[typed].cases[index].constant]
        model.typedEnums[typed].cases[index].deprecation = deprecation
        // API_DEPRECATED_WITH_REPLACEMENT naming another value of the same type: a rename.
        if let deprecation, deprecation.hasPrefix("use "), deprecation.hasSuffix(" instead") {
          let replacement = String(deprecation.dropFirst(4).dropLast(8))
          if constants.contains(replacement) { model.typedEnums[typed].cases[index].replacement = replacement }
        }
      }
    }
    let (references, problems) = TypedReferenceBuilder.build(
      notes: notes, functions: model.functions, typedEnumNames: Set(model.keyGroups.compactMap(\.swiftName)))
    var referenceProblems = problems
    let classes = Set(model.itemClasses.map(\.constant))
    for reference in references {
      if let itemClass = reference.itemClass, !classes.contains(itemClass), let note = notes.references[reference.name]
      {
        referenceProblems.append(
          Diagnostic(
            location: note.location, severity: .error,
            message: "\(reference.name)'s itemClass \(itemClass) is not an item class of the headers"))
      }
    }
    guard referenceProblems.isEmpty else { throw DiagnosticsError(referenceProblems) }
    model.typedReferences = references
    return model
  }

  private let excludedNames: Set<String>

  private init(notes: APINotes, excludedNames: Set<String>) {
    self.notes = notes
    self.excludedNames = excludedNames
  }

  // MARK: Groups

  /// An `@enum` group and the constants declared after it.
  private struct ConstantGroup {
    var title: String
    var comment: HeaderDocComment
    var members: [ConstantDeclaration] = []

    var discussion: String { comment.first("discussion")?.text ?? "" }

    func entry(for name: String) -> HeaderDocTag? {
      comment.all("constant").first { $0.argument == name }
    }
  }

  private mutating func report(_ location: SourceLocation, _ message: String) {
    diagnostics.append(Diagnostic(location: location, severity: .error, message: message))
  }

  private mutating func comment(_ raw: String, before location: SourceLocation) -> HeaderDocComment {
    HeaderDocComment(raw: raw, file: location.file, line: sources.line(of: raw, before: location))
  }

  private mutating func groups(_ constants: [ConstantDeclaration]) -> [ConstantGroup] {
    var groups: [ConstantGroup] = []
    var currentFile = ""
    for constant in constants {
      if constant.location.file != currentFile {
        currentFile = constant.location.file
        if let last = groups.indices.last, groups[last].comment.file != currentFile {
          // A group never continues into another file.
          groups.append(ConstantGroup(title: "", comment: HeaderDocComment(raw: "", file: currentFile, line: 0)))
        }
      }
      let type = constant.type.replacingOccurrences(of: " _Nonnull", with: "")
      // A CF_STRING_ENUM type (SecKeyAlgorithm) is a CFStringRef too.
      let stringEnum = type.hasPrefix("const ") && parsedStringEnums.contains(String(type.dropFirst("const ".count)))
      if type != "const CFStringRef" && !stringEnum {
        report(
          constant.location,
          "\(constant.name) is declared as '\(constant.type)'; constants must be 'extern const CFStringRef' "
            + "or of a CF_STRING_ENUM type")
      }
      if let raw = constant.comment {
        let parsed = comment(raw, before: constant.location)
        if let title = parsed.first("enum") {
          // The name is the rest of the @enum line; what follows it belongs to the discussion.
          let name = title.lines.first?.0.trimmingCharacters(in: .whitespaces) ?? title.text
          groups.append(ConstantGroup(title: name.isEmpty ? title.text : name, comment: parsed))
        }
      }
      guard let last = groups.indices.last, !groups[last].title.isEmpty, groups[last].comment.file == currentFile else {
        report(constant.location, "\(constant.name) is not inside an @enum group; every constant needs one")
        continue
      }
      groups[last].members.append(constant)
    }
    groups.removeAll { $0.title.isEmpty }
    for group in groups {
      let declared = Set(group.members.map(\.name))
      // A constant left out for the platform keeps its documentation entry: not an error.
      for entry in group.comment.all("constant")
      where !declared.contains(entry.argument) && !excludedNames.contains(entry.argument) {
        report(
          SourceLocation(file: group.comment.file, line: entry.line, column: 5),
          "@constant \(entry.argument) names no constant declared in the group \"\(group.title)\"")
      }
    }
    return groups
  }

  // MARK: The model

  private mutating func model(_ parsed: ParsedHeaders) -> SecurityModel {
    parsedStringEnums = Set(parsed.stringEnums)
    let groups = groups(parsed.constants)
    let allConstants = Dictionary(parsed.constants.map { ($0.name, $0) }) { first, _ in first }

    var itemClasses: [ItemClassModel] = []
    var attributeGroups: [ConstantGroup] = []
    var valueGroups: [ValueGroupModel] = []
    var keyGroups: [KeyGroupModel] = []
    for group in groups {
      switch group.title {
      case "Class Value Constants":
        itemClasses += group.members.map { member in
          ItemClassModel(
            constant: member.name,
            swiftName: notes.names[member.name] ?? SwiftNaming.stripPrefix(member.name, ["kSecClass"]),
            documentation: group.entry(for: member.name)?.text ?? "", attributes: [])
        }
      case "Attribute Key Constants":
        attributeGroups.append(group)
      case let title where title.hasSuffix(" Value Constants"):
        let key = String(title.dropLast(" Value Constants".count))
        guard allConstants[key] != nil else {
          report(
            SourceLocation(file: group.comment.file, line: group.comment.line, column: 1),
            "the group \"\(title)\" names \(key), which is not a declared constant")
          continue
        }
        if let existing = valueGroups.firstIndex(where: { $0.key == key }) {
          valueGroups[existing].cases += valueCases(group, key: key)
        } else {
          valueGroups.append(valueGroup(key: key, documentation: group.discussion, cases: valueCases(group, key: key)))
        }
      default:
        let constants = group.members.map { member in
          var constant = KeyConstantModel(
            constant: member.name, isPrivate: isPrivate(member.location),
            documentation: group.entry(for: member.name)?.text ?? "")
          let type = member.type.replacingOccurrences(of: " _Nonnull", with: "")
            .replacingOccurrences(of: "const ", with: "")
          if parsedStringEnums.contains(type) {
            constant.wrapperType = type
            constant.memberName = SwiftNaming.lowerCamel(SwiftNaming.stripPrefix(member.name, ["k" + type]))
          }
          return constant
        }
        if let existing = keyGroups.firstIndex(where: { $0.title == group.title }) {
          keyGroups[existing].constants += constants
        } else {
          var keyGroup = KeyGroupModel(title: group.title, constants: constants)
          if constants.contains(where: { $0.wrapperType != nil }) {
            keyGroup.swiftName =
              notes.names[group.title]
              ?? String(group.title.replacingOccurrences(of: " Constants", with: "").filter { $0 != " " })
          }
          keyGroups.append(keyGroup)
        }
      }
    }

    // A value constant declared among the attribute keys (kSecAttrSynchronizableAny, "a value for
    // the kSecAttrSynchronizable key") belongs to its key's values.
    let valuePattern = #"value for (the )?(kSec[A-Za-z0-9_]+)"#
    for index in attributeGroups.indices {
      let group = attributeGroups[index]
      attributeGroups[index].members.removeAll { member in
        guard let entry = group.entry(for: member.name),
          let range = entry.text.range(of: valuePattern, options: .regularExpression)
        else { return false }
        let key = String(entry.text[range].split(separator: " ").last!)
        guard allConstants[key] != nil, key != member.name else { return false }
        let valueCase = valueCase(member, key: key, documentation: entry.text)
        if let existing = valueGroups.firstIndex(where: { $0.key == key }) {
          if !valueGroups[existing].cases.contains(where: { $0.constant == member.name }) {
            valueGroups[existing].cases.append(valueCase)
          }
        } else {
          valueGroups.append(valueGroup(key: key, documentation: "The values \(key) accepts.", cases: [valueCase]))
        }
        return true
      }
    }
    // Values listed inline ("one of kSecAttrAccessibleWhenUnlocked, kSecAttrAccessibleAfterFirstUnlock")
    // make a value group when the headers have none for the key.
    for group in attributeGroups {
      for member in group.members where !valueGroups.contains(where: { $0.key == member.name }) {
        guard let entry = group.entry(for: member.name), let oneOf = entry.text.range(of: "one of ") else { continue }
        let tail = entry.text[oneOf.upperBound...]
        var listed: [String] = []
        var searchRange = tail.startIndex..<tail.endIndex
        while let match = tail.range(of: #"kSec[A-Za-z0-9_]+"#, options: .regularExpression, range: searchRange) {
          let named = String(tail[match])
          if allConstants[named] != nil && named != member.name && !listed.contains(named) { listed.append(named) }
          searchRange = match.upperBound..<tail.endIndex
        }
        guard listed.count >= 2 else { continue }
        let cases = listed.map { valueCase(allConstants[$0]!, key: member.name, documentation: "") }
        valueGroups.append(
          valueGroup(
            key: member.name, documentation: "The values the documentation of \(member.name) lists.", cases: cases))
      }
    }
    var attributes = attributeGroups.flatMap { group in
      group.members.map { attribute($0, in: group, groups: valueGroups) }
    }
    let (classTable, sharedClasses) = classTable(
      attributeGroups, classes: Set(itemClasses.map(\.constant)), attributes: Set(attributes.map(\.constant)))
    for index in itemClasses.indices {
      var own = classTable[itemClasses[index].constant] ?? []
      // "this class shares attributes of both kSecClassKey and kSecClassCertificate"
      for shared in sharedClasses[itemClasses[index].constant] ?? [] {
        for attribute in classTable[shared] ?? [] where !own.contains(attribute) { own.append(attribute) }
      }
      itemClasses[index].attributes = own
    }

    for index in attributes.indices {
      attributes[index].classes = itemClasses.filter { $0.attributes.contains(attributes[index].constant) }.map(
        \.constant)
    }

    // Anonymous CF_ENUMs (and any of type OSStatus) hold status codes; named ones are types.
    let holdsStatusCodes = { (enumeration: EnumDeclaration) in
      enumeration.name == nil || enumeration.underlyingType == nil || enumeration.underlyingType == "OSStatus"
    }
    let typedEnums = parsed.enumerations.filter { !holdsStatusCodes($0) }.map { typedEnum($0) }
    let typeNames = Set(typedEnums.map(\.name))
    let functions = parsed.functions.map { function($0, typedEnums: typeNames.union(parsed.stringEnums)) }
    let itemResults = Set(functions.filter { $0.name.hasPrefix("SecItem") }.flatMap(\.resultCodes))
    // Every code a function's @result names (SecKeyVerifySignature's errSecVerifyFailed too).
    let listedResults = Set(functions.flatMap(\.resultCodes))
    var statusCodes = statusCodes(parsed.enumerations.filter(holdsStatusCodes), returnedByFunctions: listedResults)
    // Apple's own @result says only 'A result code. See "Security Error Codes"': then every code
    // may come back, and KeychainError gets a case for each.
    if itemResults.isEmpty && functions.contains(where: { $0.name.hasPrefix("SecItem") }) {
      for index in statusCodes.indices { statusCodes[index].returnedByFunctions = true }
    }
    let knownCodes = Set(statusCodes.map(\.name))
    for (function, declaration) in zip(functions, parsed.functions) {
      for code in function.resultCodes where !knownCodes.contains(code) {
        report(
          declaration.location, "the @result of \(function.name) names \(code), which is not a declared status code")
      }
    }
    // The shapes that otherwise pass silently, checked once nothing else is wrong.
    if diagnostics.isEmpty {
      sanityChecks(
        itemClasses, attributes: attributes, attributeGroups: attributeGroups,
        privateClasses: Set(
          groups.filter { $0.title == "Class Value Constants" }.flatMap(\.members).filter { isPrivate($0.location) }
            .map(
              \.name)),
        locations: allConstants.mapValues(\.location))
    }
    return SecurityModel(
      inputs: parsed.files.map { URL(fileURLWithPath: $0).lastPathComponent }, itemClasses: itemClasses,
      attributes: attributes, valueGroups: valueGroups, keyGroups: keyGroups, statusCodes: statusCodes,
      functions: functions, typedEnums: typedEnums)
  }

  // MARK: Typed enums

  private mutating func typedEnum(_ enumeration: EnumDeclaration) -> TypedEnumModel {
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
        report(constant.location, "\(constant.name) of \(name) has no @constant entry or trailing comment")
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

  private func isPrivate(_ location: SourceLocation) -> Bool {
    URL(fileURLWithPath: location.file).lastPathComponent.hasSuffix("Priv.h")
  }

  private mutating func valueCases(_ group: ConstantGroup, key: String) -> [ValueCaseModel] {
    group.members.map { member in valueCase(member, key: key, documentation: group.entry(for: member.name)?.text ?? "")
    }
  }

  /// One value of `key`'s group, named from the API notes or by what it adds to the key's name.
  private mutating func valueCase(_ member: ConstantDeclaration, key: String, documentation: String)
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
  private func valueGroup(key: String, documentation: String, cases: [ValueCaseModel]) -> ValueGroupModel {
    ValueGroupModel(
      key: key,
      swiftName: notes.names["\(key) Value Constants"]
        ?? SwiftNaming.stripPrefix(key, ["kSecAttr", "kSecUse", "kSec"]),
      documentation: documentation, cases: cases)
  }

  // MARK: Attributes

  private static let cfTypes: [String: ValueType] = [
    "CFStringRef": .string, "CFNumberRef": .number, "CFBooleanRef": .boolean, "CFDateRef": .date, "CFDataRef": .data,
    "SecAccessControlRef": .accessControl, "SecAccessRef": .unsupported,
  ]

  private mutating func attribute(
    _ declaration: ConstantDeclaration, in group: ConstantGroup, groups: [ValueGroupModel]
  ) -> AttributeModel {
    let name = declaration.name
    let swiftName = notes.names[name] ?? SwiftNaming.lowerCamel(SwiftNaming.stripPrefix(name, ["kSecAttr", "kSec"]))
    guard let entry = group.entry(for: name) else {
      report(declaration.location, "\(name) has no @constant entry, so its value type is unknown")
      return AttributeModel(
        constant: name, swiftName: swiftName, valueType: .unsupported, valueGroup: nil, readOnly: false, classes: [],
        isPrivate: isPrivate(declaration.location), documentation: "")
    }
    let location = SourceLocation(file: group.comment.file, line: entry.line, column: 5)
    var text = entry.text
    var readOnly = false
    for marker in ["(read-only)", "(read only)"] where text.hasPrefix(marker) {
      readOnly = true
      text = text.dropFirst(marker.count).trimmingCharacters(in: .whitespaces)
    }
    var valueType = ValueType.unsupported
    var valueGroup: String?
    if let override = notes.types[name].flatMap(ValueType.init(rawValue:)) {
      valueType = override
    } else if groups.contains(where: { $0.key == name && $0.cases.contains { !$0.isPrivate } }),
      text.contains("CFNumber") || text.contains("one of ")
        || text.range(of: #"\b(CF|Sec)[A-Za-z]+"#, options: .regularExpression) == nil
    {
      // A "<key> Value Constants" group wins over a number or a missing type: legacy wording calls
      // the values of kSecAttrProtocol a CFNumberRef, yet they are string constants. A string or
      // boolean attribute whose group lists special values (kSecAttrAccessGroupToken,
      // kSecAttrSynchronizableAny) keeps its type, and takes the constants in an extra setter; so
      // does a number whose only listed values are Apple SPI (kSecAttrKeySizeInBits).
      valueType = .valueConstant
      valueGroup = name
    } else if let range = text.range(of: #"(\S+) Value Constants"#, options: .regularExpression) {
      // "listed in X Value Constants", "See the \"X Value Constants\" section", "(see \"X Value Constants\".)"
      let key = text[range].dropLast(" Value Constants".count).trimmingCharacters(
        in: CharacterSet(charactersIn: "\"(“"))
      if groups.contains(where: { $0.key == key }) {
        valueType = .valueConstant
        valueGroup = String(key)
      } else {
        report(location, "\(name) refers to \"\(key) Value Constants\", which is not a group of the headers")
      }
    } else if let range = text.range(of: #"\b(CF|Sec)[A-Za-z]+\b"#, options: .regularExpression),
      let known = Self.cfTypes[String(text[range])] ?? Self.cfTypes[String(text[range]) + "Ref"]
    {
      // CFDataRef, or written without Ref ("a CFData", "a SecAccessControl instance").
      valueType = known
    } else if let range = text.range(of: #"\b(CF|Sec)[A-Za-z]*Ref\b"#, options: .regularExpression) {
      report(location, "\(name) has the value type \(text[range]), which secgen does not know")
    } else {
      report(
        location,
        "the @constant text of \(name) names no value type (a CF type such as CFStringRef, or a value-constants group); "
          + "the API notes may give one")
    }
    return AttributeModel(
      constant: name, swiftName: swiftName, valueType: valueType, valueGroup: valueGroup, readOnly: readOnly,
      classes: [], isPrivate: isPrivate(declaration.location), documentation: text)
  }

  /// Reads the `kSecClassX item attributes:` tables of the attribute groups' discussions.
  /// Shapes that parse but cannot be what the headers mean: a missing `@enum` line turns attribute
  /// keys into item classes, or leaves every class without attributes.
  private mutating func sanityChecks(
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

  private mutating func classTable(_ groups: [ConstantGroup], classes: Set<String>, attributes: Set<String>) -> (
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

  // MARK: Status codes and functions

  private mutating func statusCodes(_ enumerations: [EnumDeclaration], returnedByFunctions: Set<String>)
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
          warnings.append(
            Diagnostic(
              location: constant.location, severity: .warning,
              message: "\(constant.name) has no trailing comment or @constant entry giving its meaning"))
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

  private mutating func function(_ declaration: FunctionDeclaration, typedEnums: Set<String>) -> FunctionModel {
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
    model.wrapper = FunctionConventions.wrapper(model, typedEnums: typedEnums)
    return model
  }
}
