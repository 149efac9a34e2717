import CLibClangABI
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// libclang's functions, loaded with dlopen.
///
/// Loading at run time (as rust-bindgen does) keeps secgen free of a link-time dependency: when
/// libclang is missing, secgen says what to install instead of failing in the dynamic loader.
struct LibClang: @unchecked Sendable {
  /// The loaded library's path and where it was found.
  let path: String
  let origin: Origin
  // The function pointers are immutable after loading; @unchecked because C pointers are not Sendable.
  let createIndex: @convention(c) (Int32, Int32) -> CXIndex?
  let disposeIndex: @convention(c) (CXIndex?) -> Void
  let parseTranslationUnit2:
    @convention(c) (
      CXIndex?, UnsafePointer<CChar>?, UnsafePointer<UnsafePointer<CChar>?>?, Int32,
      UnsafeMutablePointer<CXUnsavedFile>?, UInt32, UInt32, UnsafeMutablePointer<CXTranslationUnit?>?
    ) -> CXErrorCode
  let disposeTranslationUnit: @convention(c) (CXTranslationUnit?) -> Void
  let getTranslationUnitCursor: @convention(c) (CXTranslationUnit?) -> CXCursor
  let visitChildren: @convention(c) (CXCursor, CXCursorVisitor?, CXClientData?) -> UInt32
  let getCursorKind: @convention(c) (CXCursor) -> CXCursorKind
  let getCursorSpelling: @convention(c) (CXCursor) -> CXString
  let getCString: @convention(c) (CXString) -> UnsafePointer<CChar>?
  let disposeString: @convention(c) (CXString) -> Void
  let getCursorLocation: @convention(c) (CXCursor) -> CXSourceLocation
  let getCursorExtent: @convention(c) (CXCursor) -> CXSourceRange
  let getRangeEnd: @convention(c) (CXSourceRange) -> CXSourceLocation
  let getExpansionLocation:
    @convention(c) (
      CXSourceLocation, UnsafeMutablePointer<CXFile?>?, UnsafeMutablePointer<UInt32>?, UnsafeMutablePointer<UInt32>?,
      UnsafeMutablePointer<UInt32>?
    ) -> Void
  let getFileName: @convention(c) (CXFile?) -> CXString
  let getCursorType: @convention(c) (CXCursor) -> CXType
  let getTypeSpelling: @convention(c) (CXType) -> CXString
  let getEnumConstantDeclValue: @convention(c) (CXCursor) -> Int64
  let getEnumConstantDeclUnsignedValue: @convention(c) (CXCursor) -> UInt64
  let getRawCommentText: @convention(c) (CXCursor) -> CXString
  let getNumDiagnostics: @convention(c) (CXTranslationUnit?) -> UInt32
  let getDiagnostic: @convention(c) (CXTranslationUnit?, UInt32) -> CXDiagnostic?
  let getDiagnosticSeverity: @convention(c) (CXDiagnostic?) -> CXDiagnosticSeverity
  let getDiagnosticLocation: @convention(c) (CXDiagnostic?) -> CXSourceLocation
  let getDiagnosticSpelling: @convention(c) (CXDiagnostic?) -> CXString
  let disposeDiagnostic: @convention(c) (CXDiagnostic?) -> Void
  let getNumArguments: @convention(c) (CXCursor) -> Int32
  let getArgument: @convention(c) (CXCursor, UInt32) -> CXCursor
  let getCursorResultType: @convention(c) (CXCursor) -> CXType
  let getNullability: @convention(c) (CXType) -> CXTypeNullabilityKind
  let getInclusions: @convention(c) (CXTranslationUnit?, CXInclusionVisitor?, CXClientData?) -> Void

  /// Where the loaded library came from, for `--verbose`.
  enum Origin: String, Sendable {
    case environment = "SECGEN_LIBCLANG"
    case toolchain = "the Swift toolchain"
    case system = "the system"
  }

  /// The system's library names tried last, newest LLVM first.
  static let systemNames: [String] =
    ["libclang.so"]
    + (11...21).reversed().flatMap { ["libclang-\($0).so", "libclang-\($0).so.1", "libclang.so.\($0)"] }
    + ["libclang-14.so.13"]

  /// The loaded library, or a diagnostic that says what to install.
  static let shared: Result<LibClang, Diagnostic> = Result { try load() }.mapError {
    $0 as? Diagnostic ?? Diagnostic(location: .none, severity: .error, message: "\($0)")
  }

  /// The libclang in use and where it came from, or why there is none (for `secgen --verbose`).
  static var description: String {
    switch shared {
    case .success(let library): "libclang: \(library.path) (from \(library.origin.rawValue))"
    case .failure(let diagnostic): "libclang: none (\(diagnostic.message))"
    }
  }

  /// The candidates in order: `SECGEN_LIBCLANG` alone when set; else the Swift toolchain's own
  /// library (every toolchain ships `lib/libclang.so` beside `bin/swift`), found from
  /// `SECGEN_SWIFT_TOOLCHAIN` (set by the build plugin) or from `swift` on the PATH; else the system's.
  static func candidates(environment: [String: String]) -> [(String, Origin)] {
    if let explicit = environment["SECGEN_LIBCLANG"], !explicit.isEmpty { return [(explicit, .environment)] }
    var toolchainBins: [String] = []
    if let bin = environment["SECGEN_SWIFT_TOOLCHAIN"], !bin.isEmpty { toolchainBins.append(bin) }
    for directory in (environment["PATH"] ?? "").split(separator: ":").map(String.init) {
      let swift = URL(fileURLWithPath: directory).appendingPathComponent("swift")
      guard FileManager.default.isExecutableFile(atPath: swift.path) else { continue }
      toolchainBins.append(swift.resolvingSymlinksInPath().deletingLastPathComponent().path)
    }
    let toolchain = toolchainBins.map {
      (
        URL(fileURLWithPath: $0).deletingLastPathComponent().appendingPathComponent("lib/libclang.so").path,
        Origin.toolchain
      )
    }
    // Debian keeps the unversioned name under LLVM's own library directory.
    let llvmDirectories =
      (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib"))?
      .filter { $0.hasPrefix("llvm-") }.sorted().reversed().map { "/usr/lib/\($0)/lib/libclang.so" } ?? []
    return toolchain + (systemNames + llvmDirectories).map { ($0, Origin.system) }
  }

  private static func openLibrary() -> (handle: UnsafeMutableRawPointer, path: String, origin: Origin)? {
    for (name, origin) in candidates(environment: ProcessInfo.processInfo.environment) {
      guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) else { continue }
      guard !name.contains("/") else { return (handle, name, origin) }
      // A bare name was resolved by the dynamic loader: report the file it mapped.
      let maps = (try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8)) ?? ""
      let mapped = maps.split(separator: "\n").lazy.compactMap { $0.split(separator: " ").last }
        .first { $0.contains("/libclang") }
      return (handle, mapped.map(String.init) ?? name, origin)
    }
    return nil
  }

  private static func load() throws -> LibClang {
    guard let (handle, path, origin) = openLibrary() else {
      throw Diagnostic(
        location: .none, severity: .error,
        message:
          "secgen needs libclang, which was not found beside the Swift toolchain or on the system: "
          + "install it with `apt-get install libclang-dev` (or set SECGEN_LIBCLANG to the path of libclang.so)")
    }
    func symbol<T>(_ name: String, as type: T.Type) throws -> T {
      guard let address = dlsym(handle, name) else {
        throw Diagnostic(
          location: .none, severity: .error, message: "the libclang that was found lacks \(name); install libclang-dev")
      }
      return unsafeBitCast(address, to: type)
    }
    return LibClang(
      path: path, origin: origin,
      createIndex: try symbol("clang_createIndex", as: (@convention(c) (Int32, Int32) -> CXIndex?).self),
      disposeIndex: try symbol("clang_disposeIndex", as: (@convention(c) (CXIndex?) -> Void).self),
      parseTranslationUnit2: try symbol(
        "clang_parseTranslationUnit2",
        as: (@convention(c) (
          CXIndex?, UnsafePointer<CChar>?, UnsafePointer<UnsafePointer<CChar>?>?, Int32,
          UnsafeMutablePointer<CXUnsavedFile>?, UInt32, UInt32, UnsafeMutablePointer<CXTranslationUnit?>?
        ) -> CXErrorCode).self),
      disposeTranslationUnit: try symbol(
        "clang_disposeTranslationUnit", as: (@convention(c) (CXTranslationUnit?) -> Void).self),
      getTranslationUnitCursor: try symbol(
        "clang_getTranslationUnitCursor", as: (@convention(c) (CXTranslationUnit?) -> CXCursor).self),
      visitChildren: try symbol(
        "clang_visitChildren", as: (@convention(c) (CXCursor, CXCursorVisitor?, CXClientData?) -> UInt32).self),
      getCursorKind: try symbol("clang_getCursorKind", as: (@convention(c) (CXCursor) -> CXCursorKind).self),
      getCursorSpelling: try symbol("clang_getCursorSpelling", as: (@convention(c) (CXCursor) -> CXString).self),
      getCString: try symbol("clang_getCString", as: (@convention(c) (CXString) -> UnsafePointer<CChar>?).self),
      disposeString: try symbol("clang_disposeString", as: (@convention(c) (CXString) -> Void).self),
      getCursorLocation: try symbol(
        "clang_getCursorLocation", as: (@convention(c) (CXCursor) -> CXSourceLocation).self),
      getCursorExtent: try symbol("clang_getCursorExtent", as: (@convention(c) (CXCursor) -> CXSourceRange).self),
      getRangeEnd: try symbol("clang_getRangeEnd", as: (@convention(c) (CXSourceRange) -> CXSourceLocation).self),
      getExpansionLocation: try symbol(
        "clang_getExpansionLocation",
        as: (@convention(c) (
          CXSourceLocation, UnsafeMutablePointer<CXFile?>?, UnsafeMutablePointer<UInt32>?,
          UnsafeMutablePointer<UInt32>?, UnsafeMutablePointer<UInt32>?
        ) -> Void).self),
      getFileName: try symbol("clang_getFileName", as: (@convention(c) (CXFile?) -> CXString).self),
      getCursorType: try symbol("clang_getCursorType", as: (@convention(c) (CXCursor) -> CXType).self),
      getTypeSpelling: try symbol("clang_getTypeSpelling", as: (@convention(c) (CXType) -> CXString).self),
      getEnumConstantDeclValue: try symbol(
        "clang_getEnumConstantDeclValue", as: (@convention(c) (CXCursor) -> Int64).self),
      getEnumConstantDeclUnsignedValue: try symbol(
        "clang_getEnumConstantDeclUnsignedValue", as: (@convention(c) (CXCursor) -> UInt64).self),
      getRawCommentText: try symbol(
        "clang_Cursor_getRawCommentText", as: (@convention(c) (CXCursor) -> CXString).self),
      getNumDiagnostics: try symbol(
        "clang_getNumDiagnostics", as: (@convention(c) (CXTranslationUnit?) -> UInt32).self),
      getDiagnostic: try symbol(
        "clang_getDiagnostic", as: (@convention(c) (CXTranslationUnit?, UInt32) -> CXDiagnostic?).self),
      getDiagnosticSeverity: try symbol(
        "clang_getDiagnosticSeverity", as: (@convention(c) (CXDiagnostic?) -> CXDiagnosticSeverity).self),
      getDiagnosticLocation: try symbol(
        "clang_getDiagnosticLocation", as: (@convention(c) (CXDiagnostic?) -> CXSourceLocation).self),
      getDiagnosticSpelling: try symbol(
        "clang_getDiagnosticSpelling", as: (@convention(c) (CXDiagnostic?) -> CXString).self),
      disposeDiagnostic: try symbol("clang_disposeDiagnostic", as: (@convention(c) (CXDiagnostic?) -> Void).self),
      getNumArguments: try symbol("clang_Cursor_getNumArguments", as: (@convention(c) (CXCursor) -> Int32).self),
      getArgument: try symbol("clang_Cursor_getArgument", as: (@convention(c) (CXCursor, UInt32) -> CXCursor).self),
      getCursorResultType: try symbol("clang_getCursorResultType", as: (@convention(c) (CXCursor) -> CXType).self),
      getNullability: try symbol(
        "clang_Type_getNullability", as: (@convention(c) (CXType) -> CXTypeNullabilityKind).self),
      getInclusions: try symbol(
        "clang_getInclusions",
        as: (@convention(c) (CXTranslationUnit?, CXInclusionVisitor?, CXClientData?) -> Void).self)
    )
  }

  /// A CXString's text, disposed after reading.
  func string(_ value: CXString) -> String {
    defer { disposeString(value) }
    return getCString(value).map { String(cString: $0) } ?? ""
  }

  /// Where a location expands to: file, line, column and byte offset.
  func expansion(_ location: CXSourceLocation) -> (file: String, line: Int, column: Int, offset: Int) {
    var file: CXFile?
    var line: UInt32 = 0
    var column: UInt32 = 0
    var offset: UInt32 = 0
    getExpansionLocation(location, &file, &line, &column, &offset)
    return (file.map { string(getFileName($0)) } ?? "", Int(line), Int(column), Int(offset))
  }
}
