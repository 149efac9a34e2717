import Foundation
import SecGenParse

/// Stage 2: turns declarations and their HeaderDoc structure into a `SecurityModel`.
///
/// Every statement it cannot understand is a diagnostic with file:line:column: a constant outside
/// an `@enum` group, a class table entry that names nothing, an attribute of unknown type...
///
/// One file per declaration kind, as bindgen's `ir/` is: this one runs the stages in order and
/// holds what they share; `+ConstantGroups` (the `@enum` blocks), `+Attributes` (attribute keys),
/// `+ItemClasses` (the class table), `+ValueGroups` (values a key accepts), `+TypedEnums` (named
/// CF_ENUM and CF_OPTIONS types), `+StatusCodes` (errSec codes), `+Functions` (prototypes, with
/// `FunctionConventions` for their wrappers), `TypedReferences` (Swift types over references and
/// their members) and `RuntimeDefinitions` (the runtime's values and schema).
public struct ModelBuilder {
  var diagnostics: [Diagnostic] = []
  var warnings: [Diagnostic] = []
  var otherFamilies: [ExcludedDeclarationModel] = []
  /// Constants that are not strings (object constants such as kSecRandomDefault): not modelled.
  var otherConstants: [SkippedDeclarationModel] = []
  var sources = SourceTexts()
  /// The CF_STRING_ENUM typedefs of the headers being modelled (their constants are strings too).
  var parsedStringEnums: Set<String> = []
  let notes: APINotes

  /// Builds the model of `parsed`, with the sidecar's overrides.
  ///
  /// Only the declarations available on `platform` are modelled: the others are listed in
  /// `excluded` with the reason, and a class table that names one of them is not an error. Those
  /// deprecated there carry their message.
  public static func build(_ parsed: ParsedHeaders, notes: APINotes = .empty, platform: TargetPlatform = .ios)
    throws(DiagnosticsError) -> SecurityModel
  {
    let (available, excluded, deprecations) = parsed.available(on: platform, unavailable: notes.unavailable)
    var builder = ModelBuilder(notes: notes, excludedNames: Set(excluded.map(\.name)))
    var model = builder.model(available)
    guard builder.diagnostics.isEmpty else { throw DiagnosticsError(builder.diagnostics) }
    if !parsed.definitions.isEmpty {
      let (definitions, problems) = runtimeDefinitions(parsed, model: model, unavailable: Set(notes.unavailable.keys))
      guard problems.isEmpty else { throw DiagnosticsError(problems) }
      model.definitions = definitions
    }
    model.platform = platform
    model.excluded = excluded + builder.otherFamilies
    model.warnings = builder.warnings
    model.skipped =
      parsed.skipped.map { SkippedDeclarationModel(kind: $0.kind, name: $0.name) } + builder.otherConstants
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

  let excludedNames: Set<String>

  private init(notes: APINotes, excludedNames: Set<String>) {
    self.notes = notes
    self.excludedNames = excludedNames
  }

  // MARK: Diagnostics and shared readings

  mutating func report(_ location: SourceLocation, _ message: String) {
    diagnostics.append(Diagnostic(location: location, severity: .error, message: message))
  }

  /// A gap in the documentation that leaves the output correct, only less informed: the
  /// declaration is modelled with what it says itself, as ClangImporter imports an undocumented
  /// declaration.
  mutating func warn(_ location: SourceLocation, _ kind: WarningKind, _ message: String) {
    warnings.append(Diagnostic(location: location, severity: .warning, message: message, kind: kind.rawValue))
  }

  mutating func comment(_ raw: String, before location: SourceLocation) -> HeaderDocComment {
    HeaderDocComment(raw: raw, file: location.file, line: sources.line(of: raw, before: location))
  }

  func isPrivate(_ location: SourceLocation) -> Bool {
    // The file's name ends so exactly when its path does; a URL per call was a measurable share of
    // the model stage.
    location.file.hasSuffix("Priv.h")
  }

  mutating func model(_ parsed: ParsedHeaders) -> SecurityModel {
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
      case let title
      where title.hasSuffix(" Value Constants") && allConstants[String(title.dropLast(" Value Constants".count))] != nil:
        let key = String(title.dropLast(" Value Constants".count))
        if let existing = valueGroups.firstIndex(where: { $0.key == key }) {
          valueGroups[existing].cases += valueCases(group, key: key)
        } else {
          valueGroups.append(valueGroup(key: key, documentation: group.discussion, cases: valueCases(group, key: key)))
        }
      default:
        if group.title.hasSuffix(" Value Constants") {
          // Apple's SecPolicy.h calls its property keys "Policy Value Constants": with no constant
          // of that name, the group is read as keys of its own, and said.
          warn(
            SourceLocation(file: group.comment.file, line: group.comment.line, column: 1), .misnamedDocumentation,
            "the group \"\(group.title)\" names \(group.title.dropLast(" Value Constants".count)), which is not a "
              + "declared constant: read as a group of keys")
        }
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
    // An attribute the API notes call another's other name is typed as that one, unless the notes
    // type it themselves; the renderer writes it once, under the other's name.
    for index in attributes.indices {
      guard let target = notes.aliases[attributes[index].constant],
        let original = attributes.first(where: { $0.constant == target })
      else { continue }
      attributes[index].aliasOf = target
      if notes.types[attributes[index].constant] == nil {
        attributes[index].valueType = original.valueType
        attributes[index].valueGroup = original.valueGroup
      }
    }

    // Anonymous CF_ENUMs (and any of type OSStatus) hold status codes; named ones are types.
    let holdsStatusCodes = { (enumeration: EnumDeclaration) in
      enumeration.name == nil || enumeration.underlyingType == nil || enumeration.underlyingType == "OSStatus"
    }
    let typedEnums = parsed.enumerations.filter { !holdsStatusCodes($0) }.map { typedEnum($0) }
    let typeNames = Set(typedEnums.map(\.name))
    // A value out-parameter of a typed enum starts at the enum's first case (rule 10).
    let firstCases = Dictionary(
      typedEnums.compactMap { typed in typed.cases.first.map { (typed.name, $0.swiftName) } },
      uniquingKeysWith: { a, _ in a })
    let functions = parsed.functions.map {
      function($0, typedEnums: typeNames.union(parsed.stringEnums), firstCases: firstCases)
    }
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
}
