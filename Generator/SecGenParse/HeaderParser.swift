import CLibClangABI
import Foundation

/// Stage 1: reads C headers in Apple's Security style with libclang.
public enum HeaderParser {
  /// The libclang in use and where it was found, or why none was (for `secgen --verbose`).
  public static var libclangDescription: String { LibClang.description }

  /// Parses `files`; every libclang warning or error, and every declaration secgen does not
  /// understand, is a diagnostic.
  ///
  /// Headers are read as an SDK's are: `<Security/X.h>` resolves against the folder of the header
  /// being read (and `includeDirectories`), `<CoreFoundation/...>`, `<TargetConditionals.h>`,
  /// `<Availability.h>`, `<os/availability.h>` and `<sys/cdefs.h>` against secgen's own stand-ins
  /// (SDKCompat), and `platform` decides which conditional branches are read. The system's headers
  /// are never read, so the result is the same on every machine.
  ///
  /// `definitions` are the runtime's definitions files (C files using `SEC_CONST_DECL`, `SEC_ATTR`
  /// and the other definition macros): there `<Security/X.h>` resolves to the first header's folder.
  public static func parse(
    _ files: [URL], definitions: [URL] = [], platform: TargetPlatform = .ios, includeDirectories: [URL] = []
  ) throws(DiagnosticsError) -> ParsedHeaders {
    let library: LibClang
    switch LibClang.shared {
    case .success(let loaded): library = loaded
    case .failure(let diagnostic): throw DiagnosticsError([diagnostic])
    }
    // One private folder per run (0700, a name no one can guess): the stand-ins and the
    // Security/ link that the includes resolve through are read from nowhere else.
    let work = FileManager.default.temporaryDirectory.appendingPathComponent(
      "secgen-\(UUID().uuidString)", isDirectory: true)
    let compat = work.appendingPathComponent("sdk", isDirectory: true)
    let frameworks = work.appendingPathComponent("frameworks", isDirectory: true)
    do {
      try FileManager.default.createDirectory(
        at: work, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
      try FileManager.default.createDirectory(at: frameworks, withIntermediateDirectories: false)
      try SDKCompat.write(into: compat)
    } catch {
      try? FileManager.default.removeItem(at: work)
      throw DiagnosticsError([
        Diagnostic(location: .none, severity: .error, message: "cannot write secgen's SDK stand-ins: \(error)")
      ])
    }
    defer { try? FileManager.default.removeItem(at: work) }
    let headerFolder = files.first?.deletingLastPathComponent()
    let sources =
      files.map { ($0, $0.deletingLastPathComponent()) }
      + definitions.map { ($0, headerFolder ?? $0.deletingLastPathComponent()) }
    // <Security/X.h> names a header of the set being read: each folder of headers gets its own
    // frameworks folder whose Security/ links to it, made before any parse starts.
    var frameworksOf: [String: URL] = [:]
    for (index, folder) in Set(sources.map(\.1.path)).sorted().enumerated() {
      let linkFolder = frameworks.appendingPathComponent("\(index)", isDirectory: true)
      do {
        try FileManager.default.createDirectory(at: linkFolder, withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(
          at: linkFolder.appendingPathComponent("Security"), withDestinationURL: URL(fileURLWithPath: folder))
      } catch {
        throw DiagnosticsError([
          Diagnostic(location: .none, severity: .error, message: "cannot link secgen's Security/ folder: \(error)")
        ])
      }
      frameworksOf[folder] = linkFolder
    }
    // Each header is a translation unit of its own, so they parse side by side (libclang may be
    // used from several threads, each with its own index); what they declare is merged in the
    // order the files were given, so the model does not depend on the schedule.
    let results = ParseResults(count: sources.count)
    let linkFolders = frameworksOf
    DispatchQueue.concurrentPerform(iterations: sources.count) { index in
      let (file, securityFolder) = sources[index]
      var fragment = ParsedHeaders(files: [])
      do throws(DiagnosticsError) {
        try parseFile(
          file, library, compat: compat, frameworks: linkFolders[securityFolder.path] ?? frameworks,
          securityFolder: securityFolder, platform: platform, includeDirectories: includeDirectories, into: &fragment)
        results.store(.success(fragment), at: index)
      } catch {
        results.store(.failure(error), at: index)
      }
    }
    var result = ParsedHeaders(files: (files + definitions).map(\.path))
    var diagnostics: [Diagnostic] = []
    for outcome in results.all() {
      switch outcome {
      case .success(let fragment): result.append(fragment)
      case .failure(let error): diagnostics += error.diagnostics
      }
    }
    guard diagnostics.isEmpty else { throw DiagnosticsError(diagnostics) }
    return result
  }

  /// The compiler arguments for one header: C, every error reported (clang stops at 20 by
  /// default), no system headers, the stand-ins, and `Security/` as the header's own folder.
  static func arguments(
    for file: URL, compat: URL, frameworks: URL, platform: TargetPlatform, includeDirectories: [URL]
  ) -> [String] {
    // -fparse-all-comments: a group opened with a plain /* (not /*!) still introduces its constants.
    // -fblocks: SecTrust's and dispatch's callback types are blocks.
    ["-x", "c", "-std=gnu11", "-ferror-limit=0", "-nostdlibinc", "-fparse-all-comments", "-fblocks"]
      + ["-D", SDKCompat.platformDefine(platform)]
      + ["-isystem", compat.path, "-I", frameworks.path, "-I", file.deletingLastPathComponent().path]
      + includeDirectories.flatMap { ["-I", $0.path] }
      + ["-include", compat.appendingPathComponent("secgen-prelude.h").path]
  }

  private static func readableText(_ file: URL) throws(DiagnosticsError) -> String {
    let start = SourceLocation(file: file.path, line: 1, column: 1)
    guard let data = FileManager.default.contents(atPath: file.path) else {
      throw DiagnosticsError([Diagnostic(location: start, severity: .error, message: "cannot read the header")])
    }
    guard !data.contains(0), let text = String(data: data, encoding: .utf8) else {
      throw DiagnosticsError([Diagnostic(location: start, severity: .error, message: "the header is not UTF-8 text")])
    }
    guard !text.allSatisfy(\.isWhitespace) else {
      throw DiagnosticsError([Diagnostic(location: start, severity: .error, message: "the header is empty")])
    }
    return text
  }

  private static func parseFile(
    _ file: URL, _ library: LibClang, compat: URL, frameworks: URL, securityFolder: URL, platform: TargetPlatform,
    includeDirectories: [URL], into result: inout ParsedHeaders
  ) throws(DiagnosticsError) {
    let text = try readableText(file)
    let path = file.standardizedFileURL.path
    // <Security/X.h> names a header of the set being read: Security/ links to the headers' folder.
    let security = frameworks.appendingPathComponent("Security")
    guard let index = library.createIndex(0, 0) else {
      throw DiagnosticsError([
        Diagnostic(location: .none, severity: .error, message: "libclang could not create an index")
      ])
    }
    defer { library.disposeIndex(index) }
    let arguments = Self.arguments(
      for: file, compat: compat, frameworks: frameworks, platform: platform, includeDirectories: includeDirectories)
    var unit: CXTranslationUnit?
    let options =
      CXTranslationUnit_IncludeAttributedTypes.rawValue | CXTranslationUnit_SkipFunctionBodies.rawValue
      | CXTranslationUnit_KeepGoing.rawValue
    let code = withCStrings(arguments) { argumentPointers in
      path.withCString { sourcePath in
        library.parseTranslationUnit2(
          index, sourcePath, argumentPointers, Int32(arguments.count), nil, 0, options, &unit)
      }
    }
    guard code == CXError_Success, let unit else {
      throw DiagnosticsError([
        Diagnostic(
          location: SourceLocation(file: path, line: 1, column: 1), severity: .error,
          message: "libclang could not parse the header (error \(code.rawValue))")
      ])
    }
    defer { library.disposeTranslationUnit(unit) }

    var diagnostics = compilerDiagnostics(unit, library) { path in
      // The temporary folder's paths would name nothing once the run is over.
      if path.hasPrefix(compat.path + "/") { return "secgen's stand-in <\(path.dropFirst(compat.path.count + 1))>" }
      let linked = security.path + "/"
      if path.hasPrefix(linked) {
        return securityFolder.appendingPathComponent(String(path.dropFirst(linked.count))).path
      }
      return path
    }
    let collector = DeclarationCollector(library: library, mainFile: path, source: Array(text.utf8))
    let context = Unmanaged.passUnretained(collector).toOpaque()
    _ = library.visitChildren(library.getTranslationUnitCursor(unit), topLevelVisitor, context)
    diagnostics += collector.diagnostics
    guard diagnostics.isEmpty else { throw DiagnosticsError(diagnostics) }
    result.constants += collector.constants
    result.enumerations += collector.enumerations
    result.functions += collector.functions
    result.stringEnums += collector.stringEnums
    result.skipped += collector.skipped
    result.definitions += collector.definitions
  }

  private static func compilerDiagnostics(
    _ unit: CXTranslationUnit, _ library: LibClang, displayPath: @escaping (String) -> String
  ) -> [Diagnostic] {
    var chains: [String: String]?
    return (0..<library.getNumDiagnostics(unit)).compactMap { number in
      guard let diagnostic = library.getDiagnostic(unit, number) else { return nil }
      defer { library.disposeDiagnostic(diagnostic) }
      let severity = library.getDiagnosticSeverity(diagnostic)
      guard severity.rawValue >= CXDiagnostic_Warning.rawValue else { return nil }
      let place = library.expansion(library.getDiagnosticLocation(diagnostic))
      var message = library.string(library.getDiagnosticSpelling(diagnostic))
      // A problem inside an included header (a missing include, most often) says how that header
      // was reached, as clang's own "In file included from" lines do.
      if chains == nil { chains = includeChains(unit, library, displayPath) }
      if let chain = chains?[place.file] { message += "; \(displayPath(place.file)) \(chain)" }
      return Diagnostic(
        location: SourceLocation(
          file: place.file.isEmpty ? "<command line>" : displayPath(place.file), line: place.line,
          column: place.column),
        severity: severity == CXDiagnostic_Warning ? .warning : .error,
        message: message)
    }
  }

  /// For each header the translation unit included, how it was reached: "is included from
  /// A.h:3:10, which is included from Main.h:5:10".
  private static func includeChains(
    _ unit: CXTranslationUnit, _ library: LibClang, _ displayPath: @escaping (String) -> String
  ) -> [String: String] {
    final class Chains {
      let library: LibClang
      let displayPath: (String) -> String
      var byFile: [String: String] = [:]
      init(_ library: LibClang, _ displayPath: @escaping (String) -> String) {
        self.library = library
        self.displayPath = displayPath
      }
    }
    let chains = Chains(library, displayPath)
    library.getInclusions(
      unit,
      { file, stack, depth, data in
        guard let data, let stack, depth > 0 else { return }
        let chains = Unmanaged<Chains>.fromOpaque(data).takeUnretainedValue()
        let places = (0..<Int(depth)).map { index -> String in
          let place = chains.library.expansion(stack[index])
          return "\(chains.displayPath(place.file)):\(place.line):\(place.column)"
        }
        let name = chains.library.string(chains.library.getFileName(file))
        chains.byFile[name] = "is included from " + places.joined(separator: ", which is included from ")
      }, Unmanaged.passUnretained(chains).toOpaque())
    return chains.byFile
  }

  private static func withCStrings<T>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> T) -> T {
    let pointers = strings.map { strdup($0) }
    defer { pointers.forEach { free($0) } }
    let constPointers = pointers.map { UnsafePointer($0) }
    return constPointers.withUnsafeBufferPointer { body($0.baseAddress!) }
  }
}

/// Collects the declarations of one file while libclang walks its translation unit.
private final class DeclarationCollector {
  let library: LibClang
  let mainFile: String
  let source: [UInt8]
  var constants: [ConstantDeclaration] = []
  var enumerations: [EnumDeclaration] = []
  var functions: [FunctionDeclaration] = []
  var skipped: [SkippedDeclaration] = []
  var stringEnums: [String] = []
  var definitions: [DefinitionDeclaration] = []
  var diagnostics: [Diagnostic] = []
  var currentEnumConstants: [EnumConstantDeclaration] = []
  var currentAvailability: [String] = []
  var currentAnnotations: [String] = []
  var currentUnsignedValues: [UInt64] = []

  init(library: LibClang, mainFile: String, source: [UInt8]) {
    self.library = library
    self.mainFile = mainFile
    self.source = source
  }

  func location(_ cursor: CXCursor) -> (location: SourceLocation, inMainFile: Bool) {
    let place = library.expansion(library.getCursorLocation(cursor))
    // Declarations made by macro expansion (CF_ENUM) belong to the file they are expanded in.
    let inMain = standardizedPath(place.file) == mainFile
    return (SourceLocation(file: place.file, line: place.line, column: place.column), inMain)
  }

  /// Each file's standardized path, computed once: every cursor of the translation unit asks
  /// (those of the included headers too), and a standardized URL reads the file system.
  private var standardizedPaths: [String: String] = [:]

  func standardizedPath(_ file: String) -> String {
    if let known = standardizedPaths[file] { return known }
    let path = URL(fileURLWithPath: file).standardizedFileURL.path
    standardizedPaths[file] = path
    return path
  }

  func comment(_ cursor: CXCursor) -> String? {
    let text = library.string(library.getRawCommentText(cursor))
    return text.isEmpty ? nil : text
  }

  /// The `/* ... */` or `// ...` comment after an enumerator, on the same line.
  func trailingComment(after cursor: CXCursor) -> String? {
    let end = library.expansion(library.getRangeEnd(library.getCursorExtent(cursor))).offset
    guard end <= source.count else { return nil }
    let rest = source[end...].prefix { $0 != UInt8(ascii: "\n") }
    let line = String(decoding: rest, as: UTF8.self)
    if let open = line.range(of: "/*"), let close = line.range(of: "*/", range: open.upperBound..<line.endIndex) {
      return line[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces)
    }
    if let slashes = line.range(of: "//") {
      return line[slashes.upperBound...].trimmingCharacters(in: .whitespaces)
    }
    return nil
  }

  func visitTopLevel(_ cursor: CXCursor) {
    let (location, inMainFile) = location(cursor)
    guard inMainFile else { return }
    let kind = library.getCursorKind(cursor)
    let name = library.string(library.getCursorSpelling(cursor))
    switch kind {
    case CXCursor_VarDecl:
      let definitions = annotations(cursor).filter { $0.hasPrefix(SDKCompat.definitionPrefix) }
      if !definitions.isEmpty {
        self.definitions += definitions.map {
          DefinitionDeclaration(text: String($0.dropFirst(SDKCompat.definitionPrefix.count)), location: location)
        }
        return
      }
      let type = Self.typeWithoutAvailability(library.string(library.getTypeSpelling(library.getCursorType(cursor))))
      constants.append(
        ConstantDeclaration(
          name: name, type: type, comment: comment(cursor), location: location, availability: availability(cursor)))
    case CXCursor_EnumDecl:
      currentEnumConstants = []
      currentUnsignedValues = []
      let context = Unmanaged.passUnretained(self).toOpaque()
      _ = library.visitChildren(cursor, enumVisitor, context)
      let anonymous = name.isEmpty || name.contains("(unnamed") || name.contains("(anonymous")
      let kind = enumKind(cursor)
      if kind?.isOptions == true {
        // Option bits are unsigned: 1u << 31 is 2147483648, not the signed reading.
        for (index, bits) in zip(currentEnumConstants.indices, currentUnsignedValues) where bits <= UInt64(Int64.max) {
          currentEnumConstants[index].value = Int64(bits)
        }
      }
      enumerations.append(
        EnumDeclaration(
          name: anonymous ? nil : name, underlyingType: kind?.underlyingType, isOptions: kind?.isOptions ?? false,
          comment: comment(cursor), constants: currentEnumConstants, location: location))
    case CXCursor_FunctionDecl:
      functions.append(function(cursor, name: name, location: location))
    case CXCursor_TypedefDecl where annotations(cursor).contains(SDKCompat.stringEnumAnnotation):
      stringEnums.append(name)
    case CXCursor_TypedefDecl, CXCursor_StructDecl, CXCursor_UnionDecl:
      // Legacy keychain structs, CF type typedefs, integer typedefs: recognised, not modelled.
      skipped.append(SkippedDeclaration(kind: kindName(kind), name: name, location: location))
    default:
      let what = library.string(library.getCursorSpelling(cursor))
      diagnostics.append(
        Diagnostic(
          location: location, severity: .error,
          message: "secgen does not understand this declaration (\(kindName(kind))\(what.isEmpty ? "" : " \(what)")); "
            + "the headers may declare only constants, CF_ENUMs and functions"))
    }
  }

  func visitEnumConstant(_ cursor: CXCursor) {
    guard library.getCursorKind(cursor) == CXCursor_EnumConstantDecl else { return }
    currentUnsignedValues.append(library.getEnumConstantDeclUnsignedValue(cursor))
    currentEnumConstants.append(
      EnumConstantDeclaration(
        name: library.string(library.getCursorSpelling(cursor)), value: library.getEnumConstantDeclValue(cursor),
        trailingComment: trailingComment(after: cursor), location: location(cursor).location,
        availability: availability(cursor)))
  }

  /// Availability macro names as libclang prints them inside an attributed type
  /// ("API_AVAILABLE const CFStringRef"): they say nothing about the type.
  private static let availabilityMacroNames = SDKCompat.availabilityMacroNames

  static func typeWithoutAvailability(_ spelling: String) -> String {
    guard spelling.contains("_") else { return spelling }
    return spelling.split(separator: " ").filter { !availabilityMacroNames.contains($0) }.joined(separator: " ")
  }

  /// The availability macros of a declaration, which secgen's stand-in headers turn into
  /// `annotate` attributes holding the macro as written.
  func availability(_ cursor: CXCursor) -> [String] {
    currentAvailability = []
    let context = Unmanaged.passUnretained(self).toOpaque()
    _ = library.visitChildren(cursor, attributeVisitor, context)
    return currentAvailability
  }

  /// Every `annotate` attribute of a declaration.
  func annotations(_ cursor: CXCursor) -> [String] {
    currentAnnotations = []
    let context = Unmanaged.passUnretained(self).toOpaque()
    _ = library.visitChildren(cursor, attributeVisitor, context)
    return currentAnnotations
  }

  /// The integer type and kind of a named `CF_ENUM` or `CF_OPTIONS`, which the stand-in
  /// headers record as an `annotate` attribute; nil for a plain C enum.
  func enumKind(_ cursor: CXCursor) -> (underlyingType: String, isOptions: Bool)? {
    for annotation in annotations(cursor) {
      if annotation.hasPrefix(SDKCompat.enumPrefix) {
        return (String(annotation.dropFirst(SDKCompat.enumPrefix.count)), false)
      }
      if annotation.hasPrefix(SDKCompat.optionsPrefix) {
        return (String(annotation.dropFirst(SDKCompat.optionsPrefix.count)), true)
      }
    }
    return nil
  }

  func visitAttribute(_ cursor: CXCursor) {
    guard library.getCursorKind(cursor) == CXCursor_AnnotateAttr else { return }
    let text = library.string(library.getCursorSpelling(cursor))
    currentAnnotations.append(text)
    if text.hasPrefix(SDKCompat.availabilityPrefix) {
      currentAvailability.append(String(text.dropFirst(SDKCompat.availabilityPrefix.count)))
    }
  }

  func function(_ cursor: CXCursor, name: String, location: SourceLocation) -> FunctionDeclaration {
    let count = max(0, Int(library.getNumArguments(cursor)))
    let parameters = (0..<count).map { index -> ParameterDeclaration in
      let argument = library.getArgument(cursor, UInt32(index))
      let type = library.getCursorType(argument)
      let nullability: ParameterDeclaration.Nullability
      switch library.getNullability(type) {
      case CXTypeNullability_NonNull: nullability = .nonnull
      case CXTypeNullability_Nullable, CXTypeNullability_NullableResult: nullability = .nullable
      default: nullability = .unspecified
      }
      return ParameterDeclaration(
        name: library.string(library.getCursorSpelling(argument)), type: library.string(library.getTypeSpelling(type)),
        nullability: nullability)
    }
    return FunctionDeclaration(
      name: name, resultType: library.string(library.getTypeSpelling(library.getCursorResultType(cursor))),
      parameters: parameters, comment: comment(cursor), location: location, availability: availability(cursor))
  }

  private func kindName(_ kind: CXCursorKind) -> String {
    switch kind {
    case CXCursor_TypedefDecl: "typedef"
    case CXCursor_StructDecl: "struct"
    case CXCursor_UnionDecl: "union"
    default: "declaration kind \(kind.rawValue)"
    }
  }
}

private let topLevelVisitor: CXCursorVisitor = { cursor, _, context in
  Unmanaged<DeclarationCollector>.fromOpaque(context!).takeUnretainedValue().visitTopLevel(cursor)
  return CXChildVisit_Continue
}

private let enumVisitor: CXCursorVisitor = { cursor, _, context in
  Unmanaged<DeclarationCollector>.fromOpaque(context!).takeUnretainedValue().visitEnumConstant(cursor)
  return CXChildVisit_Continue
}

private let attributeVisitor: CXCursorVisitor = { cursor, _, context in
  Unmanaged<DeclarationCollector>.fromOpaque(context!).takeUnretainedValue().visitAttribute(cursor)
  return CXChildVisit_Continue
}

/// The parse of each file, stored from the threads that parse them and read in the files' order.
private final class ParseResults: @unchecked Sendable {
  // @unchecked: every access to `results` holds `lock`.
  private let lock = NSLock()
  private var results: [Result<ParsedHeaders, DiagnosticsError>?]

  init(count: Int) { results = Array(repeating: nil, count: count) }

  func store(_ result: Result<ParsedHeaders, DiagnosticsError>, at index: Int) {
    lock.withLock { results[index] = result }
  }

  func all() -> [Result<ParsedHeaders, DiagnosticsError>] { lock.withLock { results.compactMap { $0 } } }
}
