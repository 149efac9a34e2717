// The part of libclang's stable C ABI that secgen uses, declared by KeychainBridge from libclang's
// documentation (clang-c/Index.h is its reference). secgen loads libclang with dlopen and calls it
// through these types only, so building secgen needs no clang headers and no pkg-config file: a
// package that depends on this one builds with nothing beyond a Swift toolchain.
//
// libclang keeps this ABI stable across releases; every layout and value below is unchanged since
// LLVM 3.x, and the enumerations list only the values secgen compares against.
#ifndef KEYCHAIN_BRIDGE_LIBCLANG_ABI_H
#define KEYCHAIN_BRIDGE_LIBCLANG_ABI_H

// Opaque handles.
typedef void *CXIndex;
typedef struct CXTranslationUnitImpl *CXTranslationUnit;
typedef void *CXClientData;
typedef void *CXFile;
typedef void *CXDiagnostic;

// A string owned by libclang, read with clang_getCString and released with clang_disposeString.
typedef struct {
  const void *data;
  unsigned private_flags;
} CXString;

// A file's contents handed to the parser instead of reading it from disk.
struct CXUnsavedFile {
  const char *Filename;
  const char *Contents;
  unsigned long Length;
};

typedef struct {
  const void *ptr_data[2];
  unsigned int_data;
} CXSourceLocation;

typedef struct {
  const void *ptr_data[2];
  unsigned begin_int_data;
  unsigned end_int_data;
} CXSourceRange;

// The declaration kinds secgen reads.
enum CXCursorKind {
  CXCursor_StructDecl = 2,
  CXCursor_UnionDecl = 3,
  CXCursor_EnumDecl = 5,
  CXCursor_EnumConstantDecl = 7,
  CXCursor_FunctionDecl = 8,
  CXCursor_VarDecl = 9,
  CXCursor_TypedefDecl = 20,
  CXCursor_AnnotateAttr = 406
};

typedef struct {
  enum CXCursorKind kind;
  int xdata;
  const void *data[3];
} CXCursor;

// secgen reads types through their spelling and nullability only, never their kind.
enum CXTypeKind { CXType_Invalid = 0 };

typedef struct {
  enum CXTypeKind kind;
  void *data[2];
} CXType;

enum CXChildVisitResult { CXChildVisit_Break = 0, CXChildVisit_Continue = 1, CXChildVisit_Recurse = 2 };

typedef enum CXChildVisitResult (*CXCursorVisitor)(CXCursor cursor, CXCursor parent, CXClientData client_data);

// clang_getInclusions calls it once per file of the translation unit, with the #include locations
// that led to it, innermost first (an empty stack for the main file).
typedef void (*CXInclusionVisitor)(
  CXFile included_file, CXSourceLocation *inclusion_stack, unsigned include_len, CXClientData client_data);

enum CXDiagnosticSeverity {
  CXDiagnostic_Ignored = 0,
  CXDiagnostic_Note = 1,
  CXDiagnostic_Warning = 2,
  CXDiagnostic_Error = 3,
  CXDiagnostic_Fatal = 4
};

enum CXErrorCode {
  CXError_Success = 0,
  CXError_Failure = 1,
  CXError_Crashed = 2,
  CXError_InvalidArguments = 3,
  CXError_ASTReadError = 4
};

// Flags of clang_parseTranslationUnit2.
enum CXTranslationUnit_Flags {
  CXTranslationUnit_None = 0x0,
  CXTranslationUnit_SkipFunctionBodies = 0x40,
  CXTranslationUnit_KeepGoing = 0x200,
  CXTranslationUnit_IncludeAttributedTypes = 0x1000
};

enum CXTypeNullabilityKind {
  CXTypeNullability_NonNull = 0,
  CXTypeNullability_Nullable = 1,
  CXTypeNullability_Unspecified = 2,
  CXTypeNullability_Invalid = 3,
  CXTypeNullability_NullableResult = 4
};

#endif
