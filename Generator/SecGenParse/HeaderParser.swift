import CLibClangABI
import Foundation

/// Stage 1: reads C headers in Apple's Security style with libclang.
public enum HeaderParser {
  /// The CoreFoundation names and macros Apple's headers rely on, which do not exist on Linux.
  public static let prelude = """
    /* secgen's prelude: opaque CoreFoundation types and empty availability macros. */
    typedef const void *CFTypeRef;
    typedef const struct __CFString *CFStringRef;
    typedef const struct __CFDictionary *CFDictionaryRef;
    typedef const struct __CFData *CFDataRef;
    typedef const struct __CFNumber *CFNumberRef;
    typedef const struct __CFBoolean *CFBooleanRef;
    typedef const struct __CFDate *CFDateRef;
    typedef const struct __CFArray *CFArrayRef;
    typedef struct __SecAccessControl *SecAccessControlRef;
    typedef struct __SecAccess *SecAccessRef;
    typedef int OSStatus;
    #define CF_ENUM(_type, ...) enum __VA_ARGS__
    #define CF_OPTIONS(_type, ...) enum __VA_ARGS__
    #define API_AVAILABLE(...)
    #define API_UNAVAILABLE(...)
    #define API_DEPRECATED(...)
    #define API_DEPRECATED_WITH_REPLACEMENT(...)
    #define __OSX_AVAILABLE_STARTING(...)
    #define __OSX_AVAILABLE_BUT_DEPRECATED(...)
    #define __API_AVAILABLE(...)
    #define CF_ASSUME_NONNULL_BEGIN _Pragma("clang assume_nonnull begin")
    #define CF_ASSUME_NONNULL_END _Pragma("clang assume_nonnull end")
    #define CF_IMPLICIT_BRIDGING_ENABLED
    #define CF_IMPLICIT_BRIDGING_DISABLED
    #define CF_RETURNS_RETAINED
    #define CF_EXPORT extern
    #define __nullable _Nullable
    #define __nonnull _Nonnull

    """

  private static let preludePath = "/secgen/prelude.h"

  /// The libclang in use and where it was found, or why none was (for `secgen --verbose`).
  public static var libclangDescription: String { LibClang.description }

  /// Parses `files`; every libclang warning or error, and every declaration secgen does not
  /// understand, is a diagnostic.
  public static func parse(_ files: [URL]) throws(DiagnosticsError) -> ParsedHeaders {
    let library: LibClang
    switch LibClang.shared {
    case .success(let loaded): library = loaded
    case .failure(let diagnostic): throw DiagnosticsError([diagnostic])
    }
    var result = ParsedHeaders(files: files.map(\.path))
    var diagnostics: [Diagnostic] = []
    for file in files {
      do {
        try parseFile(file, library, into: &result)
      } catch {
        diagnostics += error.diagnostics
      }
    }
    guard diagnostics.isEmpty else { throw DiagnosticsError(diagnostics) }
    return result
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

  private static func parseFile(_ file: URL, _ library: LibClang, into result: inout ParsedHeaders)
    throws(DiagnosticsError)
  {
    let text = try readableText(file)
    let path = file.standardizedFileURL.path
    guard let index = library.createIndex(0, 0) else {
      throw DiagnosticsError([
        Diagnostic(location: .none, severity: .error, message: "libclang could not create an index")
      ])
    }
    defer { library.disposeIndex(index) }
    let arguments = ["-x", "c", "-std=gnu11", "-include", preludePath, "-I", file.deletingLastPathComponent().path]
    var unit: CXTranslationUnit?
    let options =
      CXTranslationUnit_IncludeAttributedTypes.rawValue | CXTranslationUnit_SkipFunctionBodies.rawValue
      | CXTranslationUnit_KeepGoing.rawValue
    let code = withCStrings(arguments) { argumentPointers in
      preludePath.withCString { preludeName in
        prelude.withCString { preludeText in
          path.withCString { sourcePath in
            var unsaved = CXUnsavedFile(Filename: preludeName, Contents: preludeText, Length: UInt(prelude.utf8.count))
            return library.parseTranslationUnit2(
              index, sourcePath, argumentPointers, Int32(arguments.count), &unsaved, 1, options, &unit)
          }
        }
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

    var diagnostics = compilerDiagnostics(unit, library)
    let collector = DeclarationCollector(library: library, mainFile: path, source: Array(text.utf8))
    let context = Unmanaged.passUnretained(collector).toOpaque()
    _ = library.visitChildren(library.getTranslationUnitCursor(unit), topLevelVisitor, context)
    diagnostics += collector.diagnostics
    guard diagnostics.isEmpty else { throw DiagnosticsError(diagnostics) }
    result.constants += collector.constants
    result.enumerations += collector.enumerations
    result.functions += collector.functions
  }

  private static func compilerDiagnostics(_ unit: CXTranslationUnit, _ library: LibClang) -> [Diagnostic] {
    (0..<library.getNumDiagnostics(unit)).compactMap { number in
      guard let diagnostic = library.getDiagnostic(unit, number) else { return nil }
      defer { library.disposeDiagnostic(diagnostic) }
      let severity = library.getDiagnosticSeverity(diagnostic)
      guard severity.rawValue >= CXDiagnostic_Warning.rawValue else { return nil }
      let place = library.expansion(library.getDiagnosticLocation(diagnostic))
      return Diagnostic(
        location: SourceLocation(
          file: place.file.isEmpty ? "<command line>" : place.file, line: place.line, column: place.column),
        severity: severity == CXDiagnostic_Warning ? .warning : .error,
        message: library.string(library.getDiagnosticSpelling(diagnostic)))
    }
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
  var diagnostics: [Diagnostic] = []
  var currentEnumConstants: [EnumConstantDeclaration] = []

  init(library: LibClang, mainFile: String, source: [UInt8]) {
    self.library = library
    self.mainFile = mainFile
    self.source = source
  }

  func location(_ cursor: CXCursor) -> (location: SourceLocation, inMainFile: Bool) {
    let place = library.expansion(library.getCursorLocation(cursor))
    // Declarations made by macro expansion (CF_ENUM) belong to the file they are expanded in.
    let inMain = URL(fileURLWithPath: place.file).standardizedFileURL.path == mainFile
    return (SourceLocation(file: place.file, line: place.line, column: place.column), inMain)
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
      let type = library.string(library.getTypeSpelling(library.getCursorType(cursor)))
      constants.append(ConstantDeclaration(name: name, type: type, comment: comment(cursor), location: location))
    case CXCursor_EnumDecl:
      currentEnumConstants = []
      let context = Unmanaged.passUnretained(self).toOpaque()
      _ = library.visitChildren(cursor, enumVisitor, context)
      let anonymous = name.isEmpty || name.contains("(unnamed") || name.contains("(anonymous")
      enumerations.append(
        EnumDeclaration(
          name: anonymous ? nil : name, comment: comment(cursor), constants: currentEnumConstants, location: location))
    case CXCursor_FunctionDecl:
      functions.append(function(cursor, name: name, location: location))
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
    currentEnumConstants.append(
      EnumConstantDeclaration(
        name: library.string(library.getCursorSpelling(cursor)), value: library.getEnumConstantDeclValue(cursor),
        trailingComment: trailingComment(after: cursor), location: location(cursor).location))
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
      parameters: parameters, comment: comment(cursor), location: location)
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
