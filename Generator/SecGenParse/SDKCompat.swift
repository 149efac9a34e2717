import Foundation

/// The SDK that Apple-style headers include, as small stand-in headers written for secgen.
///
/// A Security header includes `<TargetConditionals.h>`, `<Availability.h>`, `<os/availability.h>`,
/// `<CoreFoundation/...>` and `<sys/cdefs.h>`, none of which exist on Linux in Apple's form. These
/// stand-ins declare what secgen needs of them and nothing else: the CoreFoundation types as opaque
/// pointers, the integer typedefs, the platform conditionals for the chosen target, and the
/// availability macros, which become `annotate` attributes so that the parse stage can read each
/// declaration's availability back from libclang. They are not copies of Apple's headers.
enum SDKCompat {
  /// The target platform macro passed with `-D`, which `TargetConditionals.h` reads.
  static func platformDefine(_ platform: TargetPlatform) -> String {
    switch platform {
    case .ios: "SECGEN_PLATFORM_IOS=1"
    case .macos: "SECGEN_PLATFORM_MACOS=1"
    }
  }

  /// The annotation prefix of the runtime definitions' macros (`secgen-definition:value:kSecClass:class`).
  static let definitionPrefix = "secgen-definition:"
  /// The annotation prefix of availability macros (`secgen-availability:API_DEPRECATED(...)`).
  static let availabilityPrefix = "secgen-availability:"
  /// The annotation the stand-in `CF_ENUM(type, Name)` puts on the enum, followed by the type.
  static let enumPrefix = "secgen-enum:"
  /// The annotation the stand-in `CF_OPTIONS(type, Name)` puts on the enum, followed by the type.
  static let optionsPrefix = "secgen-options:"
  /// The annotation the stand-in `CF_STRING_ENUM` puts on a string typedef.
  static let stringEnumAnnotation = "secgen-string-enum"

  /// Every macro the availability stand-ins define (API_AVAILABLE, __OSX_AVAILABLE_STARTING...).
  static let availabilityMacroNames: Set<Substring> = {
    var names: Set<Substring> = []
    for file in ["os/availability.h", "Availability.h"] {
      for line in files[file]!.split(separator: "\n") where line.hasPrefix("#define ") {
        let name = line.dropFirst("#define ".count).prefix { $0.isLetter || $0.isNumber || $0 == "_" }
        names.insert(name)
      }
    }
    return names
  }()

  /// Relative path to contents.
  static let files: [String: String] = [
    "TargetConditionals.h": """
    /* secgen's stand-in: the platform conditionals for the target chosen with --platform. */
    #ifndef SECGEN_TARGET_CONDITIONALS_H
    #define SECGEN_TARGET_CONDITIONALS_H
    #define TARGET_OS_MAC 1
    #define TARGET_OS_WATCH 0
    #define TARGET_OS_TV 0
    #define TARGET_OS_BRIDGE 0
    #define TARGET_OS_VISION 0
    #define TARGET_OS_DRIVERKIT 0
    #define TARGET_OS_SIMULATOR 0
    #define TARGET_OS_IOSMAC 0
    #define TARGET_OS_MACCATALYST 0
    #define TARGET_RT_64_BIT 1
    #define TARGET_RT_LITTLE_ENDIAN 1
    #define TARGET_RT_BIG_ENDIAN 0
    #if defined(SECGEN_PLATFORM_MACOS)
    #define TARGET_OS_OSX 1
    #define TARGET_OS_IPHONE 0
    #define TARGET_OS_IOS 0
    #define TARGET_OS_EMBEDDED 0
    #else
    #define TARGET_OS_OSX 0
    #define TARGET_OS_IPHONE 1
    #define TARGET_OS_IOS 1
    #define TARGET_OS_EMBEDDED 1
    #endif
    #endif
    """,
    "os/availability.h": """
    /* secgen's stand-in: every availability macro keeps its arguments as an annotation. */
    #ifndef SECGEN_OS_AVAILABILITY_H
    #define SECGEN_OS_AVAILABILITY_H
    #define SECGEN_AVAILABILITY(text) __attribute__((annotate("secgen-availability:" text)))
    #define API_AVAILABLE(...) SECGEN_AVAILABILITY("API_AVAILABLE(" #__VA_ARGS__ ")")
    #define API_UNAVAILABLE(...) SECGEN_AVAILABILITY("API_UNAVAILABLE(" #__VA_ARGS__ ")")
    #define API_DEPRECATED(...) SECGEN_AVAILABILITY("API_DEPRECATED(" #__VA_ARGS__ ")")
    #define API_DEPRECATED_WITH_REPLACEMENT(...) \\
      SECGEN_AVAILABILITY("API_DEPRECATED_WITH_REPLACEMENT(" #__VA_ARGS__ ")")
    #define SPI_AVAILABLE(...) SECGEN_AVAILABILITY("SPI_AVAILABLE(" #__VA_ARGS__ ")")
    #define SPI_DEPRECATED(...) SECGEN_AVAILABILITY("SPI_DEPRECATED(" #__VA_ARGS__ ")")
    #define __API_AVAILABLE(...) API_AVAILABLE(__VA_ARGS__)
    #define __API_UNAVAILABLE(...) API_UNAVAILABLE(__VA_ARGS__)
    #define __API_DEPRECATED(...) API_DEPRECATED(__VA_ARGS__)
    #define API_AVAILABLE_BEGIN(...)
    #define API_AVAILABLE_END
    #endif
    """,
    "Availability.h": """
    /* secgen's stand-in: Availability.h's macros, kept as annotations like os/availability.h's. */
    #ifndef SECGEN_AVAILABILITY_H
    #define SECGEN_AVAILABILITY_H
    #include <os/availability.h>
    #define __OSX_AVAILABLE_STARTING(...) SECGEN_AVAILABILITY("__OSX_AVAILABLE_STARTING(" #__VA_ARGS__ ")")
    #define __OSX_AVAILABLE_BUT_DEPRECATED(...) \\
      SECGEN_AVAILABILITY("__OSX_AVAILABLE_BUT_DEPRECATED(" #__VA_ARGS__ ")")
    #define __OSX_AVAILABLE_BUT_DEPRECATED_MSG(...) \\
      SECGEN_AVAILABILITY("__OSX_AVAILABLE_BUT_DEPRECATED_MSG(" #__VA_ARGS__ ")")
    #define __OSX_AVAILABLE(...) SECGEN_AVAILABILITY("__OSX_AVAILABLE(" #__VA_ARGS__ ")")
    #define __IOS_AVAILABLE(...) SECGEN_AVAILABILITY("__IOS_AVAILABLE(" #__VA_ARGS__ ")")
    #define __OSX_DEPRECATED(...) SECGEN_AVAILABILITY("__OSX_DEPRECATED(" #__VA_ARGS__ ")")
    #define __IOS_DEPRECATED(...) SECGEN_AVAILABILITY("__IOS_DEPRECATED(" #__VA_ARGS__ ")")
    #define __OSX_UNAVAILABLE SECGEN_AVAILABILITY("__OSX_UNAVAILABLE()")
    #define __IOS_UNAVAILABLE SECGEN_AVAILABILITY("__IOS_UNAVAILABLE()")
    #define __TVOS_UNAVAILABLE
    #define __WATCHOS_UNAVAILABLE
    #define DEPRECATED_ATTRIBUTE SECGEN_AVAILABILITY("API_DEPRECATED()")
    #define DEPRECATED_MSG_ATTRIBUTE(message) SECGEN_AVAILABILITY("API_DEPRECATED(" #message ")")
    #endif
    """,
    "AvailabilityMacros.h": """
    /* secgen's stand-in. */
    #include <Availability.h>
    """,
    "sys/cdefs.h": """
    /* secgen's stand-in: C declarations need no C++ linkage blocks here. */
    #ifndef SECGEN_SYS_CDEFS_H
    #define SECGEN_SYS_CDEFS_H
    #define __BEGIN_DECLS
    #define __END_DECLS
    #endif
    """,
    "stddef.h": """
    /* secgen's stand-in: the C library's size types, which CoreFoundation's base brings in. */
    #ifndef SECGEN_STDDEF_H
    #define SECGEN_STDDEF_H
    typedef __SIZE_TYPE__ size_t;
    typedef __PTRDIFF_TYPE__ ptrdiff_t;
    #define NULL ((void *)0)
    #endif
    """,
    "stdint.h": """
    /* secgen's stand-in: the fixed-width integer types, which CoreFoundation's base brings in. */
    #ifndef SECGEN_STDINT_H
    #define SECGEN_STDINT_H
    typedef signed char int8_t;
    typedef unsigned char uint8_t;
    typedef short int16_t;
    typedef unsigned short uint16_t;
    typedef int int32_t;
    typedef unsigned int uint32_t;
    typedef long long int64_t;
    typedef unsigned long long uint64_t;
    typedef unsigned long uintptr_t;
    typedef long intptr_t;
    #endif
    """,
    "MacTypes.h": """
    /* secgen's stand-in: the integer and character types of Apple's MacTypes. */
    #ifndef SECGEN_MACTYPES_H
    #define SECGEN_MACTYPES_H
    typedef unsigned char UInt8;
    typedef signed char SInt8;
    typedef unsigned short UInt16;
    typedef signed short SInt16;
    typedef unsigned int UInt32;
    typedef signed int SInt32;
    typedef unsigned long long UInt64;
    typedef signed long long SInt64;
    typedef SInt32 OSStatus;
    typedef SInt16 OSErr;
    typedef UInt32 FourCharCode;
    typedef FourCharCode OSType;
    typedef unsigned char Boolean;
    typedef UInt16 UniChar;
    typedef unsigned long ByteCount;
    #endif
    """,
    "CoreFoundation/CFBase.h": """
    /* secgen's stand-in: CoreFoundation's types as opaque pointers, and its macros. */
    #ifndef SECGEN_CFBASE_H
    #define SECGEN_CFBASE_H
    #include <stddef.h>
    #include <stdint.h>
    #include <stdbool.h>
    #include <TargetConditionals.h>
    #include <MacTypes.h>
    #include <Availability.h>
    typedef long CFIndex;
    typedef unsigned long CFTypeID;
    typedef unsigned long CFOptionFlags;
    typedef unsigned long CFHashCode;
    typedef const void *CFTypeRef;
    typedef const struct __CFString *CFStringRef;
    typedef struct __CFString *CFMutableStringRef;
    typedef const struct __CFDictionary *CFDictionaryRef;
    typedef struct __CFDictionary *CFMutableDictionaryRef;
    typedef const struct __CFArray *CFArrayRef;
    typedef struct __CFArray *CFMutableArrayRef;
    typedef const struct __CFData *CFDataRef;
    typedef struct __CFData *CFMutableDataRef;
    typedef const struct __CFNumber *CFNumberRef;
    typedef const struct __CFBoolean *CFBooleanRef;
    typedef const struct __CFDate *CFDateRef;
    typedef const struct __CFAllocator *CFAllocatorRef;
    typedef struct __CFError *CFErrorRef;
    typedef const struct __CFURL *CFURLRef;
    typedef const struct __CFSet *CFSetRef;
    typedef struct __CFSet *CFMutableSetRef;
    typedef struct __CFRunLoop *CFRunLoopRef;
    typedef const struct __CFAttributedString *CFAttributedStringRef;
    typedef double CFTimeInterval;
    typedef CFTimeInterval CFAbsoluteTime;
    typedef struct { CFIndex location; CFIndex length; } CFRange;
    #define CF_EXPORT extern
    #define CF_EXTERN_C_BEGIN
    #define CF_EXTERN_C_END
    #define CF_INLINE static inline
    #define __SECGEN_ENUM_PICK(_1, _2, _macro, ...) _macro
    #define __SECGEN_ANONYMOUS_ENUM(_type) enum
    #define __SECGEN_NAMED_ENUM(_type, _name) \
        _type _name; enum __attribute__((annotate("secgen-enum:" #_type))) _name
    #define CF_ENUM(...) __SECGEN_ENUM_PICK(__VA_ARGS__, __SECGEN_NAMED_ENUM, __SECGEN_ANONYMOUS_ENUM, )(__VA_ARGS__)
    #define CF_CLOSED_ENUM(_type, _name) __SECGEN_NAMED_ENUM(_type, _name)
    #define CF_OPTIONS(_type, _name) \
        _type _name; enum __attribute__((annotate("secgen-options:" #_type))) _name
    #define CF_STRING_ENUM __attribute__((annotate("secgen-string-enum")))
    #define CF_EXTENSIBLE_STRING_ENUM __attribute__((annotate("secgen-string-enum")))
    /* CFAvailability.h's macros, on enumerators (SecTrust.h's results) as on declarations: kept
       as annotations, which the availability verdict reads as __OSX_AVAILABLE's. */
    #define CF_AVAILABLE(_mac, _ios) SECGEN_AVAILABILITY("CF_AVAILABLE(" #_mac ", " #_ios ")")
    #define CF_AVAILABLE_MAC(_mac) SECGEN_AVAILABILITY("CF_AVAILABLE_MAC(" #_mac ")")
    #define CF_AVAILABLE_IOS(_ios) SECGEN_AVAILABILITY("CF_AVAILABLE_IOS(" #_ios ")")
    #define CF_DEPRECATED(...) SECGEN_AVAILABILITY("CF_DEPRECATED(" #__VA_ARGS__ ")")
    #define CF_ENUM_AVAILABLE(_mac, _ios) CF_AVAILABLE(_mac, _ios)
    #define CF_ENUM_DEPRECATED(...) CF_DEPRECATED(__VA_ARGS__)
    #define CF_BRIDGED_TYPE(T)
    #define CF_BRIDGED_MUTABLE_TYPE(T)
    #define CF_RELATED_TYPE(T, C, I)
    #define CF_RETURNS_RETAINED __attribute__((cf_returns_retained))
    #define CF_RETURNS_NOT_RETAINED __attribute__((cf_returns_not_retained))
    #define CF_RELEASES_ARGUMENT __attribute__((cf_consumed))
    #define CF_CONSUMED __attribute__((cf_consumed))
    #define CF_ASSUME_NONNULL_BEGIN _Pragma("clang assume_nonnull begin")
    #define CF_ASSUME_NONNULL_END _Pragma("clang assume_nonnull end")
    #define CF_IMPLICIT_BRIDGING_ENABLED _Pragma("clang arc_cf_code_audited begin")
    #define CF_IMPLICIT_BRIDGING_DISABLED _Pragma("clang arc_cf_code_audited end")
    #define CF_SWIFT_NAME(name) __attribute__((swift_name(#name)))
    #define CF_REFINED_FOR_SWIFT __attribute__((swift_private))
    #define CF_SWIFT_UNAVAILABLE(message)
    #define CF_NOESCAPE __attribute__((noescape))
    #define CF_WARN_UNUSED_RESULT __attribute__((warn_unused_result))
    #define CF_FORMAT_FUNCTION(F, A)
    #define NS_REFINED_FOR_SWIFT __attribute__((swift_private))
    #define NS_SWIFT_NAME(name) __attribute__((swift_name(#name)))
    #define __nullable _Nullable
    #define __nonnull _Nonnull
    #define __null_unspecified _Null_unspecified
    #endif
    """,
    "CoreFoundation/CoreFoundation.h": """
    /* secgen's stand-in: every CoreFoundation header secgen provides. */
    #include <CoreFoundation/CFBase.h>
    #include <CoreFoundation/CFArray.h>
    #include <CoreFoundation/CFData.h>
    #include <CoreFoundation/CFDate.h>
    #include <CoreFoundation/CFDictionary.h>
    #include <CoreFoundation/CFError.h>
    #include <CoreFoundation/CFNumber.h>
    #include <CoreFoundation/CFString.h>
    /* Apple's CoreFoundation.h brings in libdispatch's types (through CFStream.h): SecTrust.h's
       asynchronous evaluations take a dispatch_queue_t without including it. */
    #include <dispatch/dispatch.h>
    """,
    "CoreFoundation/CFArray.h": "#include <CoreFoundation/CFBase.h>\n",
    "CoreFoundation/CFData.h": "#include <CoreFoundation/CFBase.h>\n",
    "CoreFoundation/CFDate.h": "#include <CoreFoundation/CFBase.h>\n",
    "CoreFoundation/CFDictionary.h": "#include <CoreFoundation/CFBase.h>\n",
    "CoreFoundation/CFError.h": "#include <CoreFoundation/CFBase.h>\n",
    "CoreFoundation/CFNumber.h": "#include <CoreFoundation/CFBase.h>\n",
    "CoreFoundation/CFString.h": "#include <CoreFoundation/CFBase.h>\n",
    "CoreFoundation/CFAvailability.h": "#include <CoreFoundation/CFBase.h>\n",
    "CoreFoundation/CFSet.h": "#include <CoreFoundation/CFBase.h>\n",
    "CoreFoundation/CFURL.h": "#include <CoreFoundation/CFBase.h>\n",
    "CoreFoundation/CFRunLoop.h": "#include <CoreFoundation/CFBase.h>\n",
    "CoreFoundation/CFAttributedString.h": "#include <CoreFoundation/CFBase.h>\n",
    "CoreFoundation/CFCalendar.h": "#include <CoreFoundation/CFBase.h>\n",
    "sys/types.h": """
    /* secgen's stand-in: the POSIX types SecKey.h and SecTrust.h's includes bring in. */
    #ifndef SECGEN_SYS_TYPES_H
    #define SECGEN_SYS_TYPES_H
    #include <stddef.h>
    #include <stdint.h>
    typedef long ssize_t;
    typedef long long off_t;
    typedef int pid_t;
    typedef unsigned int uid_t;
    typedef unsigned int gid_t;
    typedef unsigned short mode_t;
    #endif
    """,
    "stdbool.h": """
    /* secgen's stand-in: C99's bool. */
    #ifndef SECGEN_STDBOOL_H
    #define SECGEN_STDBOOL_H
    #define bool _Bool
    #define true 1
    #define false 0
    #endif
    """,
    "libkern/OSTypes.h": """
    /* secgen's stand-in: the kernel's spelling of MacTypes' integer types. */
    #include <MacTypes.h>
    """,
    "os/base.h": """
    /* secgen's stand-in: the attribute macros of os/ headers, as nothing. */
    #ifndef SECGEN_OS_BASE_H
    #define SECGEN_OS_BASE_H
    #define OS_EXPORT extern
    #define OS_NOTHROW
    #define OS_WARN_RESULT
    #define OS_OBJECT_RETURNS_RETAINED
    #endif
    """,
    "dispatch/dispatch.h": """
    /* secgen's stand-in: the queue and block types that asynchronous Security functions take
       (SecTrustEvaluateAsyncWithError's queue), as opaque types. */
    #ifndef SECGEN_DISPATCH_H
    #define SECGEN_DISPATCH_H
    #include <os/base.h>
    typedef struct dispatch_queue_s *dispatch_queue_t;
    typedef void (^dispatch_block_t)(void);
    #endif
    """,
    "AvailabilityVersions.h": """
    /* secgen's stand-in: the version numbers Availability.h's variants compare against. */
    #include <Availability.h>
    """,
    "AvailabilityInternal.h": """
    /* secgen's stand-in. */
    #include <Availability.h>
    """,
    "secgen-prelude.h": """
    /* secgen's prelude, included before every header: the CoreFoundation base, and the Security
       types a header written without SecBase.h's typedefs still uses. */
    #include <CoreFoundation/CFBase.h>
    typedef struct __SecAccessControl *SecAccessControlRef;
    typedef struct __SecAccess *SecAccessRef;

    /* The runtime's definitions files (SecItemDefinitions.c): each macro is a declaration whose
       annotation carries its arguments, and which takes the address of the constants it names, so
       that a misspelt name is a compiler error with its place. */
    #define __SECGEN_PASTE2(a, b) a##b
    #define __SECGEN_PASTE(a, b) __SECGEN_PASTE2(a, b)
    #define __SECGEN_DEFINITION(text, ...) \
        static const void *const __SECGEN_PASTE(__secgen_definition_, __COUNTER__)[] \
        __attribute__((annotate("secgen-definition:" text), unused)) = { __VA_ARGS__ }
    #define SEC_CONST_DECL(name, value) \
        const CFStringRef name __attribute__((annotate("secgen-definition:value:" #name ":" value))) = 0
    #define SEC_ATTR(attribute, kind, owner) \
        __SECGEN_DEFINITION("attribute:" #attribute ":" #kind ":" #owner, &attribute)
    #define SEC_ATTR_NOT_STORED(attribute) __SECGEN_DEFINITION("not-stored:" #attribute, &attribute)
    #define SEC_PRIMARY_KEY(itemClass, attribute, fallback) \
        __SECGEN_DEFINITION("primary-key:" #itemClass ":" #attribute ":" #fallback, &itemClass, &attribute)
    #define SEC_PROTECTION(value, availability) \
        __SECGEN_DEFINITION("protection:" #value ":" #availability, &value)
    """,
  ]

  /// Writes the stand-ins into `folder`, which the caller created for this run alone.
  ///
  /// Never a folder shared between runs: one in the temporary directory under a predictable name
  /// could be made first by another user, and its headers would then decide what is generated.
  static func write(into folder: URL) throws {
    for (path, text) in files {
      let file = folder.appendingPathComponent(path)
      try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
      try Data(text.utf8).write(to: file)
    }
  }
}

/// The platform whose branches of the headers are read.
public enum TargetPlatform: String, CaseIterable, Codable, Sendable {
  /// iOS, whose keychain is the data-protection keychain this project implements (the default).
  case ios
  /// macOS, whose headers add the legacy file-keychain declarations.
  case macos
}
