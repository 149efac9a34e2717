import Foundation
import SecGen
import SecGenModel
import Testing

/// Apple's own seven headers (apple-oss-distributions/Security, Security-61901.0.87.0.1:
/// base/SecBase.h, keychain/headers/SecItem.h, SecKey.h, SecIdentity.h, trust/headers/
/// SecCertificate.h, SecTrust.h, SecPolicy.h) read unchanged with the project's API notes (issue 66).
///
/// They are another project's code, so they are not in this repository, and `make test` cannot
/// fetch them (CI has no network): `KEYCHAIN_BRIDGE_APPLE_HEADERS` names a folder holding them
/// (`scripts/apple-headers.sh` makes one from a clone), and without it the suite is skipped,
/// saying so, on CI too.
@Suite(
  .enabled(
    if: AppleHeaderFolder.url != nil,
    "set KEYCHAIN_BRIDGE_APPLE_HEADERS to a folder of Apple's seven headers (scripts/apple-headers.sh)"))
struct AppleSDKHeaders {
  static let names = [
    "SecBase.h", "SecItem.h", "SecKey.h", "SecCertificate.h", "SecIdentity.h", "SecTrust.h", "SecPolicy.h",
  ]

  static func model() throws -> SecurityModel {
    let folder = try #require(AppleHeaderFolder.url)
    var timings = Pipeline.Timings()
    return try Pipeline.model(
      headers: names.map { folder.appendingPathComponent($0) }, apiNotes: Paths.realNotes, timings: &timings)
  }

  @Test func everyAttributeKeyIsTypedAndAssignedToItsClasses() throws {
    let model = try Self.model()
    let keys = model.attributes.filter { $0.constant.hasPrefix("kSecAttr") }
    #expect(keys.count == 53)
    let untyped = keys.filter { $0.valueType == .unsupported }.map(\.constant)
    let unassigned = keys.filter(\.classes.isEmpty).map(\.constant)
    #expect(untyped.isEmpty, "\(untyped)")
    #expect(unassigned.isEmpty, "\(unassigned)")
    let byName = Dictionary(keys.map { ($0.constant, $0) }) { first, _ in first }
    // The eight the header leaves out, as the API notes give them.
    #expect(byName["kSecAttrAccess"]?.valueType == .opaqueReference)
    #expect(byName["kSecAttrRounds"]?.valueType == .number)
    #expect(byName["kSecAttrPersistantReference"]?.aliasOf == "kSecAttrPersistentReference")
    #expect(byName["kSecAttrPersistentReference"]?.valueType == .data)
    for key in ["kSecAttrIsExtractable", "kSecAttrIsSensitive", "kSecAttrTokenID"] {
      #expect(byName[key]?.classes.contains("kSecClassKey") == true, "\(key)")
    }
    #expect(byName["kSecAttrSyncViewHint"]?.classes.count == 5)
  }

  /// The count: every `kSecAttr` constant SecItem.h declares (121) is a key typed and in a
  /// class, or a case of a key's value group.
  @Test func everyKSecAttrConstantOfSecItemIsTypedOrAValue() throws {
    let model = try Self.model()
    let folder = try #require(AppleHeaderFolder.url)
    let text = try String(contentsOf: folder.appendingPathComponent("SecItem.h"), encoding: .utf8)
    let declared = text.split(separator: "\n").compactMap { line -> String? in
      guard line.hasPrefix("extern const CFStringRef kSecAttr") else { return nil }
      return String(
        line.dropFirst("extern const CFStringRef ".count).prefix { $0.isLetter || $0.isNumber || $0 == "_" })
    }
    let keys = Set(model.attributes.filter { $0.valueType != .unsupported && !$0.classes.isEmpty }.map(\.constant))
    let values = Set(model.valueGroups.flatMap { $0.cases.map(\.constant) })
    #expect(declared.count == 121)
    #expect(declared.filter { !keys.contains($0) && !values.contains($0) }.isEmpty)
  }

  @Test func everyStatusCodeAndFunctionIsThere() throws {
    let model = try Self.model()
    #expect(model.statusCodes.count >= 381)
    // Every function of the seven headers is wrapped, SecTrust.h's and SecPolicy.h's as the
    // others; the two that take a dispatch queue say why they are not (Linux's Swift has no
    // DispatchQueue bridged to dispatch_queue_t here).
    #expect(model.functions.count == 74)
    let refused = model.functions.filter { $0.wrapper?.unavailableReason != nil }.map(\.name)
    #expect(Set(refused) == ["SecTrustEvaluateAsync", "SecTrustEvaluateAsyncWithError"])
    #expect(model.functions.allSatisfy { $0.wrapper != nil })
    let trust = model.functions.filter { $0.name.hasPrefix("SecTrust") || $0.name.hasPrefix("SecPolicy") }
    #expect(trust.count == 33)
    #expect(model.functions.first { $0.name == "SecTrustEvaluateWithError" }?.wrapper?.convention == .errorOutParameter)
  }
}

/// The folder `KEYCHAIN_BRIDGE_APPLE_HEADERS` names, if any.
enum AppleHeaderFolder {
  static var url: URL? {
    guard let path = ProcessInfo.processInfo.environment["KEYCHAIN_BRIDGE_APPLE_HEADERS"], !path.isEmpty else {
      return nil
    }
    return URL(fileURLWithPath: path, isDirectory: true)
  }
}
