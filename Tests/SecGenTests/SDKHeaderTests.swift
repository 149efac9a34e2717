import Foundation
import SecGen
import SecGenModel
import SecGenParse
import Testing

/// Headers written as an SDK's are read unchanged: includes, conditionals per platform,
/// declarations skipped by kind, availability, and every error reported.
@Suite struct SDKHeaderTests {
  static let fixture = Paths.fixtures.appendingPathComponent("sdk-layout")
  static let headers = ["FixtureBase.h", "FixtureItem.h"].map { fixture.appendingPathComponent($0) }

  static func model(_ platform: TargetPlatform) throws -> SecurityModel {
    var timings = Pipeline.Timings()
    return try Pipeline.model(headers: headers, apiNotes: nil, platform: platform, timings: &timings)
  }

  @Test func thePlatformDecidesTheBranchesAndTheAvailabilityThatAreRead() throws {
    let ios = try Self.model(.ios)
    let macos = try Self.model(.macos)
    #expect(ios.platform == .ios && macos.platform == .macos)
    // The macOS-only attribute is left out on iOS with its reason, and in the class on macOS.
    #expect(ios.excluded.map(\.name) == ["kSecAttrLegacyTag", "errSecFileKeychainOnly"])
    #expect(ios.excluded.first?.reason.contains("API_UNAVAILABLE(ios, watchos, tvos)") == true)
    #expect(macos.excluded.isEmpty)
    #expect(ios.itemClasses.first?.attributes.contains("kSecAttrLegacyTag") == false)
    #expect(macos.itemClasses.first?.attributes.contains("kSecAttrLegacyTag") == true)
    #expect(macos.statusCodes.contains { $0.name == "errSecFileKeychainOnly" })
    // The #if TARGET_OS_OSX struct exists only in the macOS branch; both skip it by kind.
    #expect(!ios.skipped.contains { $0.name == "SecLegacyRecord" })
    #expect(macos.skipped.contains { $0.kind == "struct" && $0.name == "SecLegacyRecord" })
    #expect(ios.skipped.contains { $0.kind == "typedef" && $0.name == "SecGadgetRef" })
  }

  @Test func deprecationsAreKeptAndRenderedAsAvailability() throws {
    let model = try Self.model(.ios)
    let comment = try #require(model.attributes.first { $0.constant == "kSecAttrComment" })
    #expect(comment.deprecation == "describe items with kSecAttrService")
    #expect(model.statusCodes.first { $0.name == "errSecWrongGadget" }?.deprecation == "use errSecParam")
    var timings = Pipeline.Timings()
    let outputs = try Pipeline.render(model, templates: Paths.templates, timings: &timings)
    let items = try #require(outputs.first { $0.fileName == "ItemClasses.swift" }?.contents)
    #expect(
      items.contains(
        "@available(*, deprecated, message: \"describe items with kSecAttrService\")\n  public func comment("))
  }

  @Test func availabilityMacrosMeanWhatApplesHeadersMakeThemMean() {
    #expect(AvailabilityVerdict(["API_UNAVAILABLE(ios, watchos)"], on: .ios).unavailable != nil)
    #expect(AvailabilityVerdict(["API_UNAVAILABLE(ios, watchos)"], on: .macos).unavailable == nil)
    #expect(AvailabilityVerdict(["API_AVAILABLE(macos(10.15))"], on: .ios).unavailable == nil)
    #expect(AvailabilityVerdict(["API_DEPRECATED(\"gone\", macos(10.0, 10.7))"], on: .ios).deprecation == nil)
    #expect(AvailabilityVerdict(["API_DEPRECATED(\"gone\", macos(10.0, 10.7))"], on: .macos).deprecation == "gone")
    #expect(
      AvailabilityVerdict(["API_DEPRECATED_WITH_REPLACEMENT(\"kSecNew\", ios(2.0, 9.0))"], on: .ios).deprecation
        == "use kSecNew instead")
    #expect(
      AvailabilityVerdict(["__OSX_AVAILABLE_STARTING(__MAC_10_3, __IPHONE_NA)"], on: .ios).unavailable != nil)
    #expect(
      AvailabilityVerdict(
        ["__OSX_AVAILABLE_BUT_DEPRECATED(__MAC_10_0, __MAC_10_7, __IPHONE_2_0, __IPHONE_NA)"], on: .macos
      )
      .deprecation == "")
    #expect(AvailabilityVerdict(["API_DEPRECATED()"], on: .ios).deprecation == "")
  }

  @Test func everyErrorIsReportedNotJustClangsFirstTwenty() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("secgen-errors-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let header = folder.appendingPathComponent("Broken.h")
    let lines = (1...30).map { "extern const CFWidgetRef kSecBroken\($0);" }
    try lines.joined(separator: "\n").write(to: header, atomically: true, encoding: .utf8)
    #expect {
      _ = try HeaderParser.parse([header])
    } throws: { error in
      let diagnostics = (error as? DiagnosticsError)?.diagnostics ?? []
      let located = Set(diagnostics.filter { $0.location.file == header.path }.map(\.location.line))
      return located.count == 30
    }
  }
}

/// What Apple's SecTrust.h and SecPolicy.h do beyond the other headers, in a fixture written in
/// their style (Fixtures/sdk-slips, not Apple's text): read with no error, the slips of their
/// documentation as warnings that name them. Before issue 66 the fixture stopped secgen with 10
/// clang and model errors.
@Suite struct SDKSlipsTests {
  static let header = Paths.fixtures.appendingPathComponent("sdk-slips/FixtureTrust.h")

  @Test func availabilityOnEnumeratorsBoolAndDispatchParse() throws {
    var timings = Pipeline.Timings()
    let model = try Pipeline.model(headers: [Self.header], apiNotes: nil, platform: .ios, timings: &timings)
    let result = try #require(model.typedEnums.first { $0.name == "FixtureTrustResult" })
    #expect(
      result.cases.map(\.constant) == ["kFixtureResultInvalid", "kFixtureResultProceed", "kFixtureResultConfirm"])
    // CF_ENUM_DEPRECATED(10_3, 10_9, 2_0, 7_0): deprecated on iOS since 7.0; the others are not.
    #expect(result.cases.map { $0.deprecation != nil } == [false, false, true])
    let functions = Dictionary(model.functions.map { ($0.name, $0) }) { first, _ in first }
    #expect(functions["FixtureTrustEvaluateWithError"]?.resultType == "_Bool")  // stdbool's macro, as clang spells it
    #expect(
      functions["FixtureTrustEvaluateAsync"]?.parameters.contains { $0.type.contains("dispatch_queue_t") } == true)
  }

  @Test func theDocumentationsSlipsAreWarningsThatNameThem() throws {
    var timings = Pipeline.Timings()
    let model = try Pipeline.model(headers: [Self.header], apiNotes: nil, platform: .ios, timings: &timings)
    let slips = model.warnings.filter { $0.kind == "misnamed documentation" }.map(\.message)
    #expect(slips.count == 3, "\(model.warnings)")
    #expect(slips.contains { $0.contains("kFixturePolicyChat is declared only in a branch of an #if") })
    #expect(slips.contains { $0.contains("\"Policy Value Constants\" names Policy") })
    #expect(slips.contains { $0.contains("@function FixtureTrustTimestamps documents FixtureTrustSetTimestamps") })
    // The misnamed group's constant is a key of a group of its own; the macOS-only policy exists there.
    #expect(model.keyGroups.contains { $0.constants.contains { $0.constant == "kFixturePolicyName" } })
    let macos = try Pipeline.model(headers: [Self.header], apiNotes: nil, platform: .macos, timings: &timings)
    #expect(macos.keyGroups.contains { $0.constants.contains { $0.constant == "kFixturePolicyChat" } })
  }
}

/// The error-out-parameter rule, which no function of the runtime uses yet (SecKey's will):
/// rendered from a declaration and type-checked against a function of that shape.
@Suite struct ErrorOutParameterWrapper {
  @Test func aCFErrorOutParameterBecomesAResultWithTheErrorsCode() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("secgen-errorout-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let header = folder.appendingPathComponent("Signing.h")
    try """
    #include <CoreFoundation/CoreFoundation.h>
    CF_ASSUME_NONNULL_BEGIN
    CF_ENUM(OSStatus) { errSecSuccess = 0, /* It worked. */ errSecParam = -50, /* A parameter was wrong. */ };
    /*!
        @function SecThingCreateSignature
        @abstract Signs data.
        @param data What to sign.
        @param error Why it failed.
        @result The signature, or NULL.
    */
    CFDataRef __nullable SecThingCreateSignature(CFDataRef data, CFErrorRef * __nullable error);
    CF_ASSUME_NONNULL_END
    """.write(to: header, atomically: true, encoding: .utf8)
    var timings = Pipeline.Timings()
    let model = try Pipeline.model(headers: [header], apiNotes: nil, timings: &timings)
    let wrapper = try #require(model.functions.first?.wrapper)
    #expect(wrapper.convention == .errorOutParameter)
    #expect(wrapper.returnType == "Result<CFData, KeychainError>")
    #expect(wrapper.resultOwnership == .retained)
    #expect(wrapper.parameters.map(\.name) == ["data"])
    let outputs = try Pipeline.render(model, templates: Paths.templates, timings: &timings)
    let functions = try #require(outputs.first { $0.fileName == "Functions.swift" }?.contents)
    #expect(functions.contains("var error: Unmanaged<CFError>?"))
    let errors = try #require(outputs.first { $0.fileName == "KeychainError.swift" }?.contents)
    // A function of the declared shape, as Apple's Swift overlay imports it.
    let stand = """
      import Foundation
      import Security
      func SecThingCreateSignature(_ data: CFData, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData? {
        nil
      }
      """
    let files = [("Stand.swift", stand), ("Functions.swift", functions), ("KeychainError.swift", errors)].map {
      name, text in
      let file = folder.appendingPathComponent(name)
      try? text.write(to: file, atomically: true, encoding: .utf8)
      return file.path
    }
    let result = try run(
      URL(fileURLWithPath: "/usr/bin/env"),
      ["swiftc", "-typecheck", "-swift-version", "6", "-I", Paths.products.appendingPathComponent("Modules").path]
        + files)
    #expect(result.status == 0, "\(result.errors)")
  }
}

/// Names that would not be identifiers get a default Swift name, as ClangImporter gives one.
@Suite struct DefaultSwiftNames {
  @Test func aValueWhoseNameStartsWithADigitKeepsOneMoreWordOfThePrefix() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("secgen-names-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let header = folder.appendingPathComponent("Names.h")
    try """
    /*!
        @enum Class Value Constants
        @constant kSecClassKey Keys.
    */
    extern const CFStringRef kSecClassKey;
    /*!
        @enum Attribute Key Constants
        kSecClassKey item attributes:
            kSecAttrKeyType
        @constant kSecAttrKeyType The key's type (see "kSecAttrKeyType Value Constants".)
    */
    extern const CFStringRef kSecAttrKeyType;
    /*!
        @enum kSecAttrKeyType Value Constants
        @constant kSecAttrKeyType3DES Triple DES.
        @constant kSecAttrKeyTypeAES AES.
    */
    extern const CFStringRef kSecAttrKeyType3DES;
    extern const CFStringRef kSecAttrKeyTypeAES;
    """.write(to: header, atomically: true, encoding: .utf8)
    var timings = Pipeline.Timings()
    let model = try Pipeline.model(headers: [header], apiNotes: nil, timings: &timings)
    #expect(model.valueGroups.first?.cases.map(\.swiftName) == ["type3DES", "aes"])
  }
}
