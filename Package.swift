// swift-tools-version: 6.1
import PackageDescription

let package = Package(
  name: "KeychainBridge",
  products: [
    // The API module and its backend (store, key engine, crypto), which Security finds by its type's
    // name the first time it needs it (see SecurityBackend.swift).
    .library(name: "Security", targets: ["Security", "KeychainBackend"]),
    .executable(name: "apple-style-demo", targets: ["AppleStyleDemo"]),
    // The typed API generated from the headers in the build step.
    .library(name: "Keychain", targets: ["Keychain"]),
    // Apple's LAContext: the user proves their presence with the store's passphrase (issue 32).
    .library(name: "LocalAuthentication", targets: ["LocalAuthentication"]),
    // Synchronizable items through a PostgreSQL server; links postgres-nio, so it is a product of its own.
    .library(name: "KeychainSync", targets: ["KeychainSync"]),
    .executable(name: "secgen", targets: ["secgen"]),
    .executable(name: "keychain-examples", targets: ["keychain-examples"]),
    .executable(name: "security", targets: ["SecurityTool"]),
    .executable(name: "security-sync", targets: ["SecuritySyncTool"]),
    .executable(name: "keychain-bench", targets: ["keychain-bench"]),
    .executable(name: "keychaind", targets: ["keychaind"]),
  ],
  dependencies: [
    // Test-only: an SQLite client independent of the store's own layer, with which tests alter
    // store files behind the runtime's back. The runtime itself uses SQLite's C API (CSQLite).
    .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/stencilproject/Stencil", from: "0.15.1"),
    // secgen reads the API notes in clang's YAML format (Security.apinotes).
    .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    // `swift package generate-documentation` for the Security and Keychain catalogs (make docs).
    .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    // The sync engine's PostgreSQL client (KeychainSync only; Security and Keychain do not link it).
    .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    // Test-only: an independent implementation (BoringSSL) the crypto module is checked against;
    // postgres-nio already brings it.
    .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    // Test-only: swift-certificates' `#if canImport(Security)` bridge, compiled against Security.
    .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
    // TLS to a sync server that is not on this machine (postgres-nio's own TLS library).
    .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
  ],
  targets: [
    // libcrypto (AES-256-GCM, HMAC, scrypt, RAND_bytes) through Debian's libssl-dev.
    .systemLibrary(
      name: "COpenSSL",
      path: "Sources/COpenSSL",
      pkgConfig: "libcrypto",
      providers: [.apt(["libssl-dev"])]
    ),
    // SQLite through Debian's libsqlite3-dev.
    .systemLibrary(
      name: "CSQLite",
      path: "Sources/CSQLite",
      pkgConfig: "sqlite3",
      providers: [.apt(["libsqlite3-dev"])]
    ),
    // The package's crypto primitives, shaped like swift-crypto's API (AES.GCM, HMAC, HKDF, SHA-1 and
    // SHA-2, scrypt, random bytes) over OpenSSL 3's EVP interface: everything that seals or digests
    // calls it. It imports nothing of the package but its C part, so every layer may use it.
    .target(name: "KeychainCrypto", dependencies: ["COpenSSL", "CKeychainCrypto"]),
    // HMAC-SHA-256 from a prepared key with no allocation per code: OpenSSL's SHA-256 states,
    // copied (C: OpenSSL 3 declares the copyable SHA256_CTX functions deprecated, and only a C
    // file can say it uses them on purpose); and the iteration counts a PKCS#12 file asks for,
    // read through OpenSSL's ASN.1 item macros.
    .target(name: "CKeychainCrypto", linkerSettings: [.linkedLibrary("crypto")]),
    // Apple's SecItem API: dictionaries, rules and results. Imports Foundation alone, so any
    // target can import it (swift-certificates does, under `#if canImport(Security)`); its backend
    // (KeychainBackend) is found by name at its first use, so Security imports no C module.
    .target(
      name: "Security",
      // The definitions secgen renders Generated/ from (make runtime-sources); not compiled.
      exclude: ["Definitions"]
    ),
    // Apple's LocalAuthentication for what Linux can do: LAContext over the authenticator of the
    // store SecItem calls use (Security/Authentication), LAPolicy, LAError.
    .target(name: "LocalAuthentication", dependencies: ["Security", "KeychainBackend"]),
    // Security's backend: the SQLite store, the OpenSSL key engine, the backup envelope and the
    // certificate parser behind one `SecurityBackend` value, which Security finds by its type's name.
    .target(
      name: "KeychainBackend",
      dependencies: [
        "Security", "KeychainStorageSQLite", "KeychainCryptoOpenSSL", "KeychainCrypto",
        "KeychainStorageAgent", "KeychainTPM",
      ]
    ),
    // The storage contract kept in memory: the second implementation StoreContractTests and the
    // storage differential test run against, and the Secret Service's session collection in the
    // agent (no C module, no file).
    .target(name: "KeychainStorageMemory", dependencies: ["Security"]),
    // The agent's protocol (issue 31): frames over a Unix socket, the storage contract's values in
    // TaggedBinaryForm. Plain POSIX sockets, not SwiftNIO: the contract is synchronous (a SecItem
    // call blocks its caller), so a blocking client needs no event loop, and Security's users are
    // spared NIO's build.
    .target(name: "KeychainAgentWire", dependencies: ["Security", "CKeychainAgent"]),
    // The storage contract served by keychaind: the third implementation of ItemStorage.
    .target(name: "KeychainStorageAgent", dependencies: ["Security", "KeychainAgentWire", "CKeychainAgent"]),
    // prctl(2) for keychaind (variadic, so not callable from Swift), and posix_spawn's GNU flags
    // for the library that starts it on demand.
    .target(name: "CKeychainAgent"),
    // sd-bus through Debian's libsystemd-dev: the session bus the Secret Service is served on
    // (issue 51). A maintained C library rather than a hand-written wire protocol: it authenticates
    // to the bus, marshals messages with their signatures checked, and asks the bus who sent one.
    .systemLibrary(
      name: "CSystemdBus",
      path: "Sources/CSystemdBus",
      pkgConfig: "libsystemd",
      providers: [.apt(["libsystemd-dev"])]
    ),
    // The per-user agent as a library (issue 50): who is calling, the policy, the idle lock, what
    // the user proved on a connection, and the service that runs the engine for each caller over
    // an event loop. Tests drive it without a process or a socket.
    .target(
      name: "KeychainAgent",
      dependencies: [
        "Security", "KeychainBackend", "KeychainAgentWire", "CKeychainAgent", "KeychainCrypto", "CSystemdBus",
        // The Secret Service's session collection, kept in the agent's memory.
        "KeychainStorageMemory",
        .product(name: "Logging", package: "swift-log"),
      ]
    ),
    // The per-user agent that alone opens the store and holds its keys (issue 31): its arguments,
    // and the front ends of KeychainAgent wired together.
    .executableTarget(
      name: "keychaind",
      dependencies: [
        "KeychainAgent", "Security", .product(name: "Logging", package: "swift-log"),
      ]
    ),
    // TPM 2.0 through tpm2-tss's ESAPI (Debian's libtss2-dev): the few operations the keychain
    // needs, in C (ESAPI's structures are unions of fixed arrays), and libcrypto's DER encoder.
    .target(
      name: "CKeychainTPM",
      linkerSettings: [
        .linkedLibrary("tss2-esys"), .linkedLibrary("tss2-tctildr"), .linkedLibrary("tss2-mu"),
        .linkedLibrary("tss2-rc"), .linkedLibrary("crypto"),
      ]
    ),
    // Secure Enclave keys on a TPM (issue 33): the token engine the backend installs.
    .target(name: "KeychainTPM", dependencies: ["Security", "CKeychainTPM", "KeychainCryptoOpenSSL"]),
    // The store under the API: SQLite through its C API, every row sealed with OpenSSL.
    .target(
      name: "KeychainStorageSQLite",
      dependencies: [
        "Security",
        "COpenSSL",
        "KeychainCrypto",
        // SQLite's C API: the store's one database layer (SQLiteConnection.swift).
        "CSQLite",
        // Operational events (skipped damaged rows, checkpoint failures), never values.
        .product(name: "Logging", package: "swift-log"),
      ]
    ),
    // SecKey's primitives (generate, import, export, sign, encrypt, derive) over OpenSSL 3's EVP
    // interface: the key engine of the backend Security finds installed (SecurityBackend.keyEngine).
    .target(
      name: "KeychainCryptoOpenSSL",
      // CKeychainCrypto: the PKCS#12 iteration counts, read before any key is derived.
      dependencies: ["Security", "COpenSSL", "KeychainCrypto", "CKeychainCrypto"]
    ),
    // Synchronizable items replicated through a PostgreSQL server (issue 16): the transport and
    // the background engine; the records themselves are sealed by the store.
    .target(
      name: "KeychainSync",
      dependencies: [
        "Security", "KeychainBackend",
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),
    // secgen: headers -> libclang parse -> model -> Stencil render -> Swift. libclang is loaded at
    // run time; this module declares the part of its C ABI secgen calls (no clang headers needed).
    .systemLibrary(name: "CLibClangABI", path: "Generator/CLibClangABI"),
    .target(name: "SecGenParse", dependencies: ["CLibClangABI"], path: "Generator/SecGenParse"),
    .target(
      name: "SecGenModel", dependencies: ["SecGenParse", .product(name: "Yams", package: "Yams")],
      path: "Generator/SecGenModel"),
    .target(
      name: "SecGenRender",
      dependencies: ["SecGenModel", .product(name: "Stencil", package: "Stencil")],
      path: "Generator/SecGenRender"
    ),
    .target(
      name: "SecGen",
      dependencies: ["SecGenParse", "SecGenModel", "SecGenRender"],
      path: "Generator/SecGen"
    ),
    .executableTarget(
      name: "secgen",
      dependencies: ["SecGen", .product(name: "ArgumentParser", package: "swift-argument-parser")],
      path: "Generator/secgen"
    ),
    // What the plugin runs: secgen's generate step without a command-line parser, so that a
    // package depending on Keychain builds no ArgumentParser for it.
    .executableTarget(name: "SecGenBuildTool", dependencies: ["SecGen"], path: "Generator/SecGenBuildTool"),
    .plugin(
      name: "SecGenPlugin",
      capability: .buildTool(),
      dependencies: ["SecGenBuildTool"],
      path: "Plugins/SecGenPlugin"
    ),
    // The typed API: hand-written support plus what secgen generates from Headers/ and Templates/.
    .target(
      name: "Keychain",
      dependencies: ["Security", "KeychainBackend"],
      exclude: ["Headers"],
      plugins: ["SecGenPlugin"]
    ),
    // Keychain tasks written twice, with the raw API and with the DSL (issue: the equivalence proof).
    .target(
      name: "KeychainExamples",
      dependencies: ["Keychain", "Security", "KeychainBackend"],
      path: "Examples/KeychainExamples"
    ),
    .executableTarget(
      name: "keychain-examples",
      dependencies: [
        "KeychainExamples", "Keychain", "Security",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      path: "Examples/keychain-examples"
    ),
    // What `security` and `security-sync` share: the store option, failures, passwords.
    .target(
      name: "SecurityCommandLine",
      dependencies: ["Security", .product(name: "ArgumentParser", package: "swift-argument-parser")]
    ),
    // `security`: macOS's keychain command-line tool over the store, built on the typed API. It
    // does not link KeychainSync (PostgreSQL, SwiftNIO): a cold build takes about a minute.
    .executableTarget(
      name: "SecurityTool",
      dependencies: [
        "Keychain", "Security", "KeychainBackend", "KeychainCrypto", "SecurityCommandLine",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),
    // `security-sync` (also `security sync-group`): the keychain's sync group through PostgreSQL.
    .executableTarget(
      name: "SecuritySyncTool",
      dependencies: [
        "Security", "KeychainSync", "SecurityCommandLine",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),
    // The benchmark's C baseline: the same work done directly with sqlite3 and OpenSSL.
    .target(
      name: "CKeychainBaseline",
      // The same-work baseline digests with the store's own HMAC function.
      dependencies: ["CKeychainCrypto"],
      path: "Benchmarks/CKeychainBaseline",
      linkerSettings: [.linkedLibrary("sqlite3"), .linkedLibrary("crypto")]
    ),
    .executableTarget(
      name: "keychain-bench",
      dependencies: [
        "CKeychainBaseline", "Keychain", "Security", "KeychainBackend",
        "KeychainSync",
        "LocalPostgres",
        // keychaind started on a private socket for the agent rows (issue 31).
        "AgentProcess",
        // swtpm for the Secure Enclave rows (issue 33).
        "SoftwareTPM", "KeychainTPM",
        // The Secret Service rows' client (issue 51), and the agent's framing for its floor.
        "KeychainAgent", "KeychainAgentWire", "KeychainStorageAgent",
        // The ssh-agent rows' messages (issue 65).
        "KeychainCrypto",
      ],
      path: "Benchmarks/keychain-bench"
    ),
    // A program written for Apple's keychain, compiled unchanged against this runtime.
    .executableTarget(
      name: "AppleStyleDemo",
      dependencies: ["Security", "KeychainBackend"],
      path: "Examples/AppleStyleDemo"
    ),
    // A program written for iOS that protects a token with user presence and reads it with an
    // LAContext (issue 32), compiled unchanged; LocalAuthenticationTests run it.
    .executableTarget(
      name: "protected-token-demo",
      dependencies: ["Security", "KeychainBackend", "LocalAuthentication"],
      path: "Examples/ProtectedTokenDemo"
    ),
    // A program written for iOS that makes a Secure Enclave signing key (issue 33), compiled
    // unchanged; SecureEnclaveTests run it against a software TPM.
    .executableTarget(
      name: "enclave-key-demo",
      dependencies: ["Security", "KeychainBackend"],
      path: "Examples/EnclaveKeyDemo"
    ),
    // Whether a test that needs a program make test installs runs: skipped visibly where it is
    // missing, except under CI (CI=true), where it runs and fails.
    .target(name: "TestTools", path: "Tests/TestTools"),
    // swtpm started for a test (SecureEnclaveTests, keychain-bench).
    .target(name: "SoftwareTPM", path: "Tests/SoftwareTPM"),
    // A child process for tests that cannot run in the test process (file-size limits, kills).
    .executableTarget(
      name: "keychain-store-helper",
      dependencies: ["Security", "KeychainBackend", "KeychainCrypto"],
      path: "Tests/StoreHelper"
    ),
    // A PostgreSQL server made by initdb for the sync tests and the sync benchmark.
    .target(name: "LocalPostgres", dependencies: ["Security"], path: "Tests/LocalPostgres"),
    // keychaind started as a real process for a test, on a private socket (SecurityTests, SecurityToolTests).
    .target(
      name: "AgentProcess", dependencies: ["Security", "KeychainAgentWire", "KeychainStorageAgent"],
      path: "Tests/AgentProcess"),
    // A store in a process of its own, for the sync convergence test (kills, restarts).
    .executableTarget(
      name: "keychain-sync-worker",
      dependencies: ["KeychainSync", "Security", "KeychainBackend"],
      path: "Tests/SyncWorker"
    ),
    // A program linking the Security target alone (no store), run by SecurityTests.
    .executableTarget(name: "security-alone", dependencies: ["Security"], path: "Tests/SecurityAlone"),
    // swift-certificates' Security bridge and swift-crypto's keys against Security and SecKey:
    // what a package using both with KeychainBridge compiles and runs.
    .testTarget(
      name: "InteropTests",
      dependencies: [
        "Security", "KeychainBackend", "Keychain",
        .product(name: "X509", package: "swift-certificates"),
        .product(name: "Crypto", package: "swift-crypto"),
      ]
    ),
    .testTarget(
      name: "KeychainCryptoTests",
      dependencies: ["KeychainCrypto", .product(name: "Crypto", package: "swift-crypto")]
    ),
    .testTarget(
      name: "SecGenTests",
      dependencies: [
        "SecGen", "SecGenModel", "SecGenParse", "Security", "KeychainBackend", "secgen",
      ],
      exclude: ["Fixtures"]
    ),
    .testTarget(
      name: "EquivalenceTests",
      dependencies: ["KeychainExamples", "Keychain", "Security", "SecGen", "SecGenModel"]
    ),
    .testTarget(
      name: "SecurityToolTests",
      dependencies: [
        "TestTools",
        "SecurityTool", "SecuritySyncTool", "Keychain", "Security", "AgentProcess", "keychaind",
        .product(name: "GRDB", package: "GRDB.swift"),
      ]
    ),
    .testTarget(
      name: "KeychainSyncTests",
      dependencies: [
        "LocalPostgres", "KeychainSync", "Security", "KeychainStorageSQLite", "KeychainStorageMemory",
        "KeychainCryptoOpenSSL", "KeychainBackend",
        "KeychainCrypto",
        "keychain-sync-worker", "SecurityTool", "SecuritySyncTool",
        // Test-only: ages journal entries behind the store's back.
        .product(name: "GRDB", package: "GRDB.swift"),
      ]
    ),
    .testTarget(
      name: "LocalAuthenticationTests",
      dependencies: [
        "LocalAuthentication", "Security", "KeychainBackend", "protected-token-demo", "AgentProcess",
        "KeychainStorageAgent", "keychaind",
      ]
    ),
    .testTarget(
      name: "SecureEnclaveTests",
      dependencies: ["Security", "Keychain", "KeychainBackend", "KeychainTPM", "SoftwareTPM", "enclave-key-demo"]
    ),
    .testTarget(
      name: "KeychainAgentTests",
      dependencies: [
        "TestTools",
        "KeychainAgent", "KeychainAgentWire", "Security", "KeychainBackend", "KeychainStorageMemory", "KeychainCrypto",
        "AgentProcess", "keychaind", "SecurityTool", .product(name: "Logging", package: "swift-log"),
      ]
    ),
    .testTarget(
      name: "KeychainTests",
      dependencies: ["TestTools", "Keychain", "Security"]
    ),
    .testTarget(
      name: "SecurityTests",
      dependencies: [
        "TestTools",
        "Security",
        "KeychainStorageSQLite", "KeychainBackend", "KeychainStorageMemory", "KeychainStorageAgent",
        "KeychainAgentWire", "AgentProcess", "keychain-store-helper", "keychaind", "KeychainCrypto",
        "security-alone", "KeychainTPM", "SoftwareTPM",
        .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "Logging", package: "swift-log"),
      ],
      exclude: ["Fixtures"]
    ),
  ],
  swiftLanguageModes: [.v6]
)
