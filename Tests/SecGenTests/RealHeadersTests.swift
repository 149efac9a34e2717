import Foundation
import SecGen
import SecGenModel
import SecGenParse
import Testing

@testable import Security

/// The project's own headers, against the specification and against the runtime.
@Suite struct RealHeadersTests {
  struct Specification: Decodable {
    struct Constant: Decodable {
      let name: String
      let group: String
      let valueType: String?
      let classes: [String]?
    }

    struct StatusCode: Decodable {
      let name: String
      let code: Int64
    }

    let constants: [Constant]
    let errors: [StatusCode]
  }

  static let specification: Specification = {
    let data = try! Data(contentsOf: Paths.root.appendingPathComponent("Spec/security-constants.json"))
    return try! JSONDecoder().decode(Specification.self, from: data)
  }()

  static func model() throws -> SecurityModel {
    var timings = Pipeline.Timings()
    return try Pipeline.model(headers: Paths.realHeaders, apiNotes: Paths.realNotes, timings: &timings)
  }

  /// The Swift-side value type the specification's valueType text implies.
  static func expectedType(_ valueType: String) -> ValueType {
    if valueType.hasPrefix("typed constant") { return .valueConstant }
    if valueType.hasPrefix("SecAccessControlRef") { return .accessControl }
    if valueType.hasPrefix("SecAccessRef") { return .unsupported }
    if valueType.hasPrefix("CFBoolean") { return .boolean }
    if valueType.hasPrefix("CFNumber") { return .number }
    if valueType.hasPrefix("CFDate") { return .date }
    if valueType.hasPrefix("CFString") { return .string }
    return .data
  }

  @Test(arguments: [("genp", "kSecClassGenericPassword"), ("inet", "kSecClassInternetPassword")])
  func everyAttributeOfThePasswordClassesIsThereWithItsType(tag: String, classConstant: String) throws {
    let model = try Self.model()
    let itemClass = try #require(model.itemClasses.first { $0.constant == classConstant })
    let expected = Self.specification.constants.filter { $0.group == "attr" && ($0.classes ?? []).contains(tag) }
    #expect(Set(itemClass.attributes) == Set(expected.map(\.name)))
    let attributes = Dictionary(model.attributes.map { ($0.constant, $0) }) { first, _ in first }
    // The API notes may override a type (kSecAttrPersistantReference, Apple's misspelled alias, is
    // kept out of the DSL that way); every other type is the specification's.
    let overrides = try APINotes.load(Paths.realNotes).types
    for constant in expected {
      let attribute = try #require(attributes[constant.name])
      let type =
        overrides[constant.name].flatMap(ValueType.init(rawValue:)) ?? Self.expectedType(constant.valueType ?? "")
      #expect(attribute.valueType == type, "\(constant.name)")
      #expect(attribute.classes.contains(classConstant))
    }
    #expect(attributes["kSecAttrCreationDate"]?.readOnly == true)
    #expect(attributes["kSecAttrAccount"]?.readOnly == false)
    #expect(attributes["kSecAttrAccessible"]?.valueGroup == "kSecAttrAccessible")
  }

  @Test func everyStatusCodeIsThereWithItsValue() throws {
    let model = try Self.model()
    #expect(model.statusCodes.map(\.name) == Self.specification.errors.map(\.name))
    #expect(model.statusCodes.map(\.value) == Self.specification.errors.map(\.code))
    #expect(model.statusCodes.allSatisfy { !$0.meaning.isEmpty })
    let returned = Set(model.statusCodes.filter(\.returnedByFunctions).map(\.name))
    #expect(
      returned.isSuperset(of: [
        "errSecDuplicateItem", "errSecItemNotFound", "errSecParam", "errSecInteractionNotAllowed",
      ]))
  }

  @Test func theHeadersDeclareExactlyTheRuntimesConstantsAndCodes() throws {
    let model = try Self.model()
    var declared = Set(model.attributes.map(\.constant))
    declared.formUnion(model.itemClasses.map(\.constant))
    declared.formUnion(model.valueGroups.flatMap { $0.cases.map(\.constant) })
    declared.formUnion(model.keyGroups.flatMap { $0.constants.map(\.constant) })
    let runtime = Set(secItemConstantTable.map(\.name))
    #expect(
      declared.subtracting(runtime).isEmpty,
      "declared but not in the runtime: \(declared.subtracting(runtime).sorted())")
    #expect(
      runtime.subtracting(declared).isEmpty,
      "in the runtime but not declared: \(runtime.subtracting(declared).sorted())")
    let runtimeCodes = Dictionary(secStatusCodeTable.map { ($0.name, Int64($0.code)) }) { first, _ in first }
    for code in model.statusCodes {
      #expect(runtimeCodes[code.name] == code.value, "\(code.name)")
    }
    #expect(runtimeCodes.count == model.statusCodes.count)
  }

  @Test func everyPublicKeyAlgorithmHasTheSpecificationsStringInTheRuntime() throws {
    struct KeysSpecification: Decodable {
      struct Constant: Decodable {
        var name: String
        var value: String
        var `public`: Bool
      }
      var constants: [Constant]
    }
    let data = try Data(contentsOf: Paths.root.appendingPathComponent("Spec/keys-constants.json"))
    let specification = try JSONDecoder().decode(KeysSpecification.self, from: data)
    let runtime = Dictionary(secItemConstantTable.map { ($0.name, $0.value as String) }) { first, _ in first }
    let algorithms = specification.constants.filter { $0.public && $0.name.hasPrefix("kSecKeyAlgorithm") }
    #expect(algorithms.count == 87)
    for algorithm in algorithms {
      #expect(runtime[algorithm.name] == algorithm.value, "\(algorithm.name)")
    }
    #expect(
      SecKeyAlgorithm.ecdsaSignatureMessageX962SHA256.rawValue as String == "algid:sign:ECDSA:message-X962:SHA256")
  }

  @Test func theFunctionsHaveTheirParametersAndNullability() throws {
    let functions = Dictionary(try Self.model().functions.map { ($0.name, $0) }) { first, _ in first }
    let copyMatching = try #require(functions["SecItemCopyMatching"])
    #expect(copyMatching.parameters.map(\.name) == ["query", "result"])
    #expect(copyMatching.parameters.map(\.nullable) == [false, true])
    #expect(copyMatching.resultType == "OSStatus")
    #expect(
      Set(functions.keys) == [
        "SecItemAdd", "SecItemCopyMatching", "SecItemUpdate", "SecItemDelete", "SecItemUpsert", "SecItemAddEntries",
        "SecItemCopyMatchingEntries", "SecItemUpdateEntries", "SecItemDeleteEntries",
        "SecCopyErrorMessageString",
        "SecAccessControlCreateWithFlags", "SecKeyCreateRandomKey", "SecKeyCreateWithData", "SecKeyGetBlockSize",
        "SecKeyCopyExternalRepresentation", "SecKeyCopyAttributes", "SecKeyCopyPublicKey", "SecKeyCreateSignature",
        "SecKeyVerifySignature", "SecKeyCreateEncryptedData", "SecKeyCreateDecryptedData",
        "SecKeyCopyKeyExchangeResult", "SecKeyIsAlgorithmSupported", "SecIdentityCreate", "SecIdentityCopyCertificate",
        "SecIdentityCopyPrivateKey", "SecPKCS12Import", "SecCertificateCreateWithData", "SecCertificateCopyData",
        "SecCertificateCopySubjectSummary", "SecCertificateCopyCommonName", "SecCertificateCopyEmailAddresses",
        "SecCertificateCopyKey", "SecCertificateCopySerialNumberData", "SecCertificateCopyNotValidBeforeDate",
        "SecCertificateCopyNotValidAfterDate", "SecKeyGeneratePair", "SecKeyRawSign", "SecKeyRawVerify",
        "SecKeyEncrypt", "SecKeyDecrypt", "SecRandomCopyBytes", "SecKeyGetTypeID", "SecCertificateGetTypeID",
        "SecIdentityGetTypeID", "SecAccessControlGetTypeID", "SecCertificateCopyNormalizedIssuerSequence",
        "SecCertificateCopyNormalizedSubjectSequence", "SecCertificateCopyPublicKey",
        // SecPolicy.h and SecTrust.h (issue 53).
        "SecPolicyGetTypeID", "SecPolicyCopyProperties", "SecPolicyCreateBasicX509", "SecPolicyCreateSSL",
        "SecPolicyCreateRevocation", "SecPolicyCreateWithProperties", "SecTrustGetTypeID",
        "SecTrustCreateWithCertificates", "SecTrustSetPolicies", "SecTrustCopyPolicies",
        "SecTrustSetAnchorCertificates", "SecTrustCopyCustomAnchorCertificates", "SecTrustSetAnchorCertificatesOnly",
        "SecTrustSetVerifyDate", "SecTrustGetVerifyTime", "SecTrustSetNetworkFetchAllowed",
        "SecTrustGetNetworkFetchAllowed", "SecTrustEvaluateWithError", "SecTrustEvaluate", "SecTrustGetTrustResult",
        "SecTrustCopyKey", "SecTrustCopyPublicKey", "SecTrustGetCertificateCount", "SecTrustGetCertificateAtIndex",
        "SecTrustCopyCertificateChain", "SecTrustCopyResult", "SecTrustCopyExceptions", "SecTrustSetExceptions",
      ])
    // Rule 2's typed form: the typed search's result is its own type, nothing found nil, with an
    // existence test; SecIdentityCopyPrivateKey's non-null out-parameter stays an object.
    let typedSearch = try #require(functions["SecItemCopyMatchingEntries"]?.wrapper)
    #expect(typedSearch.returnType == "Result<SecItemFoundValues?, KeychainError>")
    #expect(typedSearch.notFoundIsNil && typedSearch.existenceTestName == "itemCopyMatchingEntriesExists")
    #expect(functions["SecIdentityCopyPrivateKey"]?.wrapper?.returnType == "Result<SecKey, KeychainError>")
    // Rule 10: a pointer to a value the function writes is its result.
    #expect(functions["SecTrustGetTrustResult"]?.wrapper?.returnType == "Result<SecTrustResultType, KeychainError>")
    #expect(functions["SecTrustGetTrustResult"]?.wrapper?.resultInitialValue == ".invalid")
    #expect(functions["SecTrustGetNetworkFetchAllowed"]?.wrapper?.returnType == "Result<Bool, KeychainError>")
    // An error out-parameter declared CF_RETURNS_RETAINED is managed, as Swift imports it.
    #expect(functions["SecTrustEvaluateWithError"]?.wrapper?.errorIsManaged == true)
    #expect(functions["SecKeyCreateSignature"]?.wrapper?.errorIsManaged == nil)
    // The buffer shapes (rule 7), two objects at once (rule 8) and an int status (rule 9).
    #expect(functions["SecKeyRawSign"]?.wrapper?.parameters.map(\.type) == ["SecKey", "SecPadding", "Data", "Int"])
    #expect(functions["SecKeyRawSign"]?.wrapper?.returnType == "Result<Data, KeychainError>")
    #expect(
      functions["SecKeyGeneratePair"]?.wrapper?.returnType
        == "Result<(publicKey: SecKey, privateKey: SecKey), KeychainError>")
    #expect(functions["SecRandomCopyBytes"]?.wrapper?.parameters.map(\.type) == ["SecRandom?", "Int"])
    // An object handed back through a typed out-parameter is the Result's value.
    #expect(functions["SecIdentityCopyCertificate"]?.wrapper?.returnType == "Result<SecCertificate, KeychainError>")
    // A verdict with an error report is success or the error; a verdict without one stays a Bool.
    #expect(functions["SecKeyVerifySignature"]?.wrapper?.returnType == "Result<Void, KeychainError>")
    #expect(functions["SecKeyIsAlgorithmSupported"]?.wrapper?.returnType == "Bool")
    #expect(
      functions["SecKeyCreateSignature"]?.wrapper?.parameters.map(\.type) == ["SecKey", "SecKeyAlgorithm", "CFData"])
    let createWithFlags = try #require(functions["SecAccessControlCreateWithFlags"]?.wrapper)
    #expect(createWithFlags.convention == .errorOutParameter)
    #expect(createWithFlags.returnType == "Result<SecAccessControl, KeychainError>")
  }

  /// What the runtime implements and what Swift sees agree: each `Sec` function of the Security
  /// module (public, or package for SecItemPriv.h's) is declared by the headers and wrapped, for
  /// iOS or, for the macOS-only ones, for macOS; each wrapper calls a function the module has; and
  /// each function the notes leave out ("not implemented by the runtime") is indeed not in the
  /// module. The runtime's functions are read from its sources, so that a function implemented
  /// later and not declared, or still left out by the notes, fails here.
  @Test func theWrappedFunctionsAreExactlyTheOnesTheRuntimeImplements() throws {
    let sources = Paths.root.appendingPathComponent("Sources/Security")
    let walker = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
    var implemented: Set<String> = []
    for case let url as URL in walker where url.pathExtension == "swift" {
      let text = try String(contentsOf: url, encoding: .utf8)
      for match in text.matches(of: #/(?:public|package) func (Sec[A-Z][A-Za-z0-9]+)\(/#) {
        implemented.insert(String(match.1))
      }
    }
    // Functions of the runtime that are not C API: the backup of the store, a status's name. And
    // one that is, but whose block and dispatch queue have no stand-in among secgen's SDK headers.
    let notCAPI: Set<String> = [
      "SecKeychainExportBackup", "SecKeychainImportBackup", "SecStatusCodeName", "SecItemImport",
      "SecTrustEvaluateAsyncWithError",
    ]
    var timings = Pipeline.Timings()
    var wrapped: Set<String> = []
    for platform in [TargetPlatform.ios, .macos] {
      let model = try Pipeline.model(
        headers: Paths.realHeaders, apiNotes: Paths.realNotes, platform: platform, timings: &timings)
      let platformWrapped = model.functions.filter { $0.wrapper?.unavailableReason == nil }.map(\.name)
      #expect(platformWrapped.count == model.functions.count, "every modelled function is wrapped (\(platform))")
      wrapped.formUnion(platformWrapped)
      let leftOut = model.excluded.filter { $0.cause == .apiNotes && $0.name.wholeMatch(of: #/Sec[A-Z]\w+/#) != nil }
      // SecTrust.h and SecPolicy.h are implemented (issue 53): no function is left out any more.
      #expect(leftOut.isEmpty, "\(leftOut.map(\.name))")
      for function in leftOut {
        #expect(!implemented.contains(function.name), "\(function.name) is implemented: take it out of the notes")
        #expect(function.reason == "not implemented by the runtime")
      }
    }
    #expect(wrapped.subtracting(implemented).isEmpty, "wrapped, not implemented: \(wrapped.subtracting(implemented))")
    let unwrapped = implemented.subtracting(notCAPI).subtracting(wrapped)
    #expect(unwrapped.isEmpty, "implemented, not declared and wrapped: \(unwrapped)")
  }

  @Test func theCommandDumpsTheModelAsJSON() throws {
    let result = try run(
      Paths.products.appendingPathComponent("secgen"),
      ["dump", "--api-notes", Paths.realNotes.path] + Paths.realHeaders.flatMap { ["--header", $0.path] })
    #expect(result.status == 0, "\(result.errors)")
    let decoded = try JSONDecoder().decode(SecurityModel.self, from: Data(result.output.utf8))
    #expect(decoded == (try Self.model()))
  }

  @Test func theSummaryCountsWhatTheProjectsHeadersGive() throws {
    let result = try run(
      Paths.products.appendingPathComponent("secgen"),
      ["dump", "--summary", "--api-notes", Paths.realNotes.path] + Paths.realHeaders.flatMap { ["--header", $0.path] })
    #expect(result.status == 0, "\(result.errors)")
    let lines = result.output.split(separator: "\n").map(String.init)
    #expect(lines.contains("errSec status codes: \(Self.specification.errors.count)"), "\(lines)")
    // Every function the headers declare for Swift has a wrapper: the deprecated raw-buffer ones,
    // SecKeyGeneratePair, SecTrust.h's and SecPolicy.h's too. The notes leave out only Apple's own
    // S/MIME and code-signing policies.
    #expect(lines.contains { $0.hasPrefix("functions: 77; with wrappers: 77") }, "\(lines)")
    #expect(lines.contains { $0.hasSuffix("left out for the platform: 0; left out by the API notes: 2") }, "\(lines)")
    #expect(lines.contains("warnings: 0"), "\(lines)")
    #expect(lines.contains("typed enums: 4 (2 option sets) with 36 values"), "\(lines)")
    // Every public kSecAttr constant is typed and in a class (issue 66): kSecAttrAccess as an opaque
    // reference, Apple's misspelled persistent-reference alias as the attribute it names.
    #expect(lines.contains("public kSecAttr constants typed and class-assigned: 53 of 53 (100.0%)"), "\(lines)")
    #expect(lines.last == "errors: 0")
  }
}
