import Foundation
import SecGenModel

// The context of the Keychain templates: item classes, their attributes and typed values, the
// functions and their wrappers.

extension TemplateContext {
  static func make(_ model: SecurityModel) -> [String: Any] {
    // Apple's SPI values (declared in a private header) stay in the model but never become public
    // enum cases: apps on Apple's platforms cannot use them either. A group of SPI values only has
    // no enum, and its attribute keeps its plain value type.
    let publicGroups = model.valueGroups.compactMap { group -> ValueGroupModel? in
      var group = group
      group.cases = group.cases.filter { !$0.isPrivate }
      return group.cases.isEmpty ? nil : group
    }
    let groups = Dictionary(publicGroups.map { ($0.key, $0) }) { first, _ in first }
    // Another name of an attribute (an alias the API notes give) is written once, as that one.
    let attributesByConstant = Dictionary(model.attributes.filter { $0.aliasOf == nil }.map { ($0.constant, $0) }) {
      first, _ in first
    }

    let valueGroups: [[String: Any]] = publicGroups.map { group in
      [
        "name": group.swiftName,
        "key": group.key,
        "doc": docComment("The values of `\(group.key)`. \(group.documentation)"),
        "cases": group.cases.map { valueCase -> [String: Any] in
          [
            "name": escaped(valueCase.swiftName),
            "constant": valueCase.constant,
            "doc": docComment(
              "`\(valueCase.constant)`. \(valueCase.documentation)" + deprecationNote(valueCase.deprecation),
              indent: "  "),
          ]
        },
      ]
    }

    // Groups of CF_STRING_ENUM constants (the key algorithms) become enums of the typed API whose
    // cases name the runtime's static members.
    let wrapperGroups: [[String: Any]] = model.keyGroups.compactMap { group in
      guard let name = group.swiftName else { return nil }
      let members = group.constants.filter { !$0.isPrivate && $0.wrapperType != nil }
      guard let type = members.first?.wrapperType else { return nil }
      return [
        "name": name, "type": type, "property": propertyName(of: type),
        "doc": docComment("The `\(type)` values of the group \"\(group.title)\" of the headers."),
        "cases": members.map { member -> [String: Any] in
          [
            "name": escaped(member.memberName ?? member.constant),
            "doc": docComment("`\(member.constant)`: \(member.documentation)", indent: "  "),
          ]
        },
      ]
    }

    let classes: [[String: Any]] = model.itemClasses.compactMap { itemClass in
      let attributes = itemClass.attributes.compactMap { attributesByConstant[$0] }
      guard !attributes.isEmpty else { return nil }
      var setters: [[String: Any]] = []
      var changeSetters: [[String: Any]] = []
      var fields: [[String: Any]] = []
      for attribute in attributes {
        guard let type = swiftType(attribute, groups: groups) else { continue }
        fields.append([
          "name": escaped(attribute.swiftName),
          "label": attribute.swiftName,
          "isPublic": !attribute.isPrivate,
          "type": type,
          "reading": reading(attribute, type: type),
          "constant": attribute.constant,
          "doc": docComment(
            "`\(attribute.constant)`: \(attribute.documentation)" + deprecationNote(attribute.deprecation), indent: "  "
          ),
        ])
        guard !attribute.readOnly, !attribute.isPrivate else { continue }
        setters.append([
          "name": escaped(attribute.swiftName),
          "constant": attribute.constant,
          "type": type,
          "lowering": lowering(attribute),
          "doc": docComment(
            "Adds, or matches on, `\(attribute.constant)`: \(attribute.documentation)", indent: "  ")
            + deprecationAttribute(attribute.deprecation, indent: "  "),
        ])
        changeSetters.append([
          "name": escaped(attribute.swiftName),
          "constant": attribute.constant,
          "type": type,
          "lowering": lowering(attribute),
          "changeDoc": docComment("Changes `\(attribute.constant)`: \(attribute.documentation)", indent: "    ")
            + deprecationAttribute(attribute.deprecation, indent: "    "),
        ])
        // A key with a value group but another value type also takes the group's constants
        // (kSecAttrSynchronizable takes a Bool, or kSecAttrSynchronizableAny in searches). Only
        // searches: a change sets the value itself.
        if attribute.valueType != .valueConstant, let group = groups[attribute.constant] {
          setters.append([
            "name": escaped(attribute.swiftName),
            "constant": attribute.constant,
            "type": group.swiftName,
            "lowering": ".string(value.constant.description)",
            "doc": docComment("Matches on `\(attribute.constant)` with one of its constants.", indent: "  "),
          ])
        }
      }
      // The typed references the class's search results carry (kSecReturnRef).
      let references: [[String: Any]] = model.typedReferences.filter { $0.itemClass == itemClass.constant }.map {
        reference in
        [
          "field": escaped(reference.itemField ?? ""),
          "type": reference.name,
          "reading":
            "result.reference(\(resultKey("kSecValueRef")), as: \(reference.referenceType).self)"
            + (reference.condition == nil ? ".map(\(reference.name).init)" : ".flatMap(\(reference.name).init)"),
          "doc": docComment(
            "The item's `\(reference.name)`, when the search returned its ref"
              + (reference.condition == nil ? "." : " and it is one."), indent: "  "),
        ]
      }
      return [
        "name": itemClass.swiftName,
        // A builder named "...Query" (KeyQuery) has "...Item" results (KeyItem).
        "itemName":
          (itemClass.swiftName.hasSuffix("Query")
          ? String(itemClass.swiftName.dropLast("Query".count)) : itemClass.swiftName) + "Item",
        "references": references,
        "constant": itemClass.constant,
        "doc": docComment(
          "Keychain items of class `\(itemClass.constant)`: \(itemClass.documentation) "
            + "Each method returns a changed copy; the operations lower to one SecItem call each."),
        "itemDoc": docComment("A `\(itemClass.constant)` item as a search returns it, every attribute typed."),
        "setters": setters,
        "changeSetters": changeSetters,
        "fields": fields,
      ]
    }

    var seenValues: Set<Int64> = []
    let errors: [[String: Any]] = model.statusCodes.compactMap { code in
      guard code.returnedByFunctions, code.value != 0, code.aliasOf == nil, seenValues.insert(code.value).inserted
      else { return nil }
      return [
        "name": escaped(code.swiftName),
        "constant": code.name,
        "value": code.value,
        "doc": docComment(
          "`\(code.name)` (\(code.value)): \(code.meaning)" + deprecationNote(code.deprecation), indent: "  "),
      ]
    }

    let functions: [[String: Any]] = model.functions.flatMap { function -> [[String: Any]] in
      guard let wrapper = function.wrapper, wrapper.unavailableReason == nil else { return [] }
      var lines = ["`\(function.name)`: \(function.abstract)"]
      let written = wrapper.buffers.first { $0.kind != .input }
      switch (wrapper.convention, wrapper.resultParameter) {
      case (.status, nil) where written != nil:
        lines.append(
          "The bytes the C function writes to `\(written?.pointer ?? "")`, or the status as a `KeychainError`.")
      case (.status, nil) where !wrapper.resultObjects.isEmpty:
        let names = wrapper.resultObjects.map { "`\($0.name)`" }.joined(separator: " and ")
        lines.append("The objects the C function writes to \(names), or the status as a `KeychainError`.")
      case (.status, nil): lines.append("Success, or the status as a `KeychainError`.")
      case (.status, let parameter?) where wrapper.resultParameterType != nil && !wrapper.notFoundIsNil:
        lines.append("The object the C function writes to `\(parameter)`, or the status as a `KeychainError`.")
      case (.status, let parameter?):
        lines.append(
          "The value the C function writes to `\(parameter)`, or the status as a `KeychainError`"
            + (wrapper.notFoundIsNil ? "; nothing found (errSecItemNotFound) is `.success(nil)`." : "."))
      case (.errorOutParameter, _) where wrapper.returnType == "Result<Void, KeychainError>":
        lines.append("Success when the C function returns true, or the CFError's code as a `KeychainError`.")
      case (.errorOutParameter, _): lines.append("The result, or the CFError's code as a `KeychainError`.")
      case (.nullableResult, _): lines.append("nil where the C function returns NULL.")
      case (.none, _): break
      }
      let deprecation = function.deprecation.map { deprecationAttribute($0, indent: "  ") } ?? ""
      // An SPI function's wrapper is for this package's modules only, as its declaration is.
      let access = function.isPrivate ? "package" : "public"
      var entry = wrapperContext(function, wrapper)
      entry["name"] = wrapper.swiftName
      entry["access"] = access
      entry["doc"] = docComment(lines.joined(separator: " "), indent: "  ") + deprecation
      var entries = [entry]
      if let existence = wrapper.existenceTestName, let parameter = wrapper.resultParameter {
        let text =
          "`\(function.name)` with NULL for `\(parameter)`: whether anything matches. errSecItemNotFound is "
          + "`.success(false)`; any other failure is the status as a `KeychainError`."
        entry["name"] = existence
        entry["body"] = "existence"
        entry["returnType"] = "Result<Bool, KeychainError>"
        entry["doc"] = docComment(text, indent: "  ") + deprecation
        entries.append(entry)
      }
      return entries
    }

    let references: [[String: Any]] = model.typedReferences.map { reference in
      let check = reference.condition.map { condition in
        condition.hasPrefix("!")
          ? "!\(reference.property).\(condition.dropFirst())" : "\(reference.property).\(condition)"
      }
      return [
        "name": reference.name,
        "property": reference.property,
        "referenceType": reference.referenceType,
        "check": check ?? "",
        "doc": docComment(reference.documentation),
        "initDoc": docComment(
          check == nil
            ? "Wraps `\(reference.property)`."
            : "Wraps `\(reference.property)`; nil when it is not one of these (`\(check!)` is false).",
          indent: "  "),
        "members": reference.members.map { member in
          var context = memberContext(member)
          context["doc"] =
            docComment(member.documentation, indent: "  ")
            + (model.functions.first { $0.name == member.function }?.deprecation.map {
              deprecationAttribute($0, indent: "  ")
            } ?? "")
          return context
        },
      ]
    }

    // Every key constant an item's `init(result:)` reads, each once: every item reads its data and
    // persistent reference, then its fields and any ref.
    var resultKeys: Set<String> = classes.isEmpty ? [] : ["kSecValueData", "kSecValuePersistentRef"]
    for itemClass in classes {
      for field in itemClass["fields"] as? [[String: Any]] ?? [] {
        if let constant = field["constant"] as? String { resultKeys.insert(constant) }
      }
      if !(itemClass["references"] as? [[String: Any]] ?? []).isEmpty { resultKeys.insert("kSecValueRef") }
    }
    var context: [String: Any] = [
      "valueGroups": valueGroups, "wrapperGroups": wrapperGroups, "classes": classes, "errors": errors,
      "functions": functions, "references": references, "resultKeys": resultKeys.sorted(),
    ]
    if let definitions = model.definitions {
      context.merge(runtimeContext(model, definitions)) { _, runtime in runtime }
    }
    return context
  }
}
