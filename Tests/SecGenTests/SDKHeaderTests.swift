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
