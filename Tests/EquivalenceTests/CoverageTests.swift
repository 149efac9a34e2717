import Foundation
import SecGen
import SecGenModel
import Testing

/// Everything the header model declares must be expressible with the DSL, or be on this list with
/// a reason. The generated source is what the Keychain module compiles, so it is searched.
@Suite struct CoverageTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  /// Attributes the DSL deliberately cannot set, and why.
  static let settableExclusions: [String: String] = [
    "kSecAttrAccess": "a macOS file-keychain SecAccessRef; there is no such type on the data-protection keychain",
    "kSecAttrPersistantReference":
      "Apple's misspelled alias of kSecAttrPersistentReference (the same key string); the DSL has the correct one",
  ]

  static func generated() throws -> (model: SecurityModel, sources: [String: String]) {
    let folder = root.appendingPathComponent("Sources/Keychain/Headers")
    let headers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".h") }
      .sorted().map { folder.appendingPathComponent($0) }
    let notes = root.appendingPathComponent("Sources/Keychain/Headers/Security.apinotes")
    var timings = Pipeline.Timings()
    let model = try Pipeline.model(headers: headers, apiNotes: notes, timings: &timings)
    let outputs = try Pipeline.generate(
      headers: headers, apiNotes: notes, templates: root.appendingPathComponent("Templates"), timings: &timings)
    return (model, Dictionary(uniqueKeysWithValues: outputs.map { ($0.fileName, $0.contents) }))
  }

  @Test func everyAttributeOfEveryClassCanBeSetOrRead() throws {
    let (model, sources) = try Self.generated()
    let items = try #require(sources["ItemClasses.swift"])
    var uncovered: [String] = []
    for attribute in model.attributes where !attribute.classes.isEmpty {
      let setter = items.contains("with(\(attribute.constant),")
      let field = items.contains("(ResultKeys.\(attribute.constant))")
      // Read-only and Apple-private attributes are reported in results, not set by apps.
      let covered = setter || (field && (attribute.readOnly || attribute.isPrivate))
      if !covered && Self.settableExclusions[attribute.constant] == nil { uncovered.append(attribute.constant) }
    }
    #expect(uncovered.isEmpty, "attributes the DSL cannot express: \(uncovered)")
  }

  @Test func attributesOfNoClassAreAppleSPI() throws {
    let (model, _) = try Self.generated()
    // AppleShare and CRL legacy attributes and query-only flags are in no class table, so no builder
    // has them; all of them are Apple SPI, which apps cannot use either.
    let classless = model.attributes.filter(\.classes.isEmpty)
    let allPrivate = classless.allSatisfy { $0.isPrivate }
    #expect(allPrivate, "\(classless.filter { !$0.isPrivate }.map(\.constant))")
  }

  @Test func everyPublicValueConstantIsACaseOfItsEnumAndNoSPIValueIs() throws {
    let (model, sources) = try Self.generated()
    let values = try #require(sources["ValueConstants.swift"])
    for group in model.valueGroups where group.cases.contains(where: { !$0.isPrivate }) {
      #expect(values.contains("public enum \(group.swiftName):"), "\(group.key)")
    }
    for group in model.valueGroups {
      for valueCase in group.cases {
        // Apple's SPI values are not part of the public API there either.
        #expect(
          values.contains(": \(valueCase.constant)\n") == !valueCase.isPrivate,
          "\(valueCase.constant) (SPI: \(valueCase.isPrivate))")
      }
    }
  }

  @Test func everyStatusCodeTheItemFunctionsReturnIsAnErrorCase() throws {
    let (model, sources) = try Self.generated()
    let errors = try #require(sources["KeychainError.swift"])
    let returned = model.statusCodes.filter { $0.returnedByFunctions && $0.value != 0 }
    #expect(returned.count >= 15)
    for code in returned {
      #expect(errors.contains("case \(code.name): self = ."), "\(code.name)")
    }
    // The other codes (legacy CSSM, trust, import/export) are never returned by SecItem calls:
    // KeychainError.unknown(status) carries them, with the runtime's message.
    #expect(errors.contains("case unknown(OSStatus)"))
  }
}
