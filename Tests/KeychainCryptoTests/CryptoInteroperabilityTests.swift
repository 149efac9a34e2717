import Crypto
import Foundation
import KeychainCrypto
import Testing

/// The crypto module agrees byte for byte with swift-crypto (an independent implementation:
/// BoringSSL), with the RFCs' own vectors, and with the derivation stores made before it.
@Suite struct CryptoInteroperability {
  static func bytes(_ hex: String) -> [UInt8] {
    var result: [UInt8] = []
    var index = hex.startIndex
    while index < hex.endIndex {
      let next = hex.index(index, offsetBy: 2)
      result.append(UInt8(hex[index..<next], radix: 16)!)
      index = next
    }
    return result
  }

  static func random(_ count: Int, seed: UInt64) -> [UInt8] {
    var state = seed
    return (0..<count).map { _ in
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return UInt8(truncatingIfNeeded: state >> 33)
    }
  }

  @Test(arguments: [0, 1, 15, 16, 17, 1000])
  func aBoxSealedHereOpensInSwiftCryptoAndTheReverse(length: Int) throws {
    let key = Self.random(32, seed: UInt64(length))
    let plaintext = Self.random(length, seed: UInt64(length) + 1)
    let associated = Self.random(length % 7, seed: 9)
    let combined = try KeychainCrypto.AES.GCM.seal(plaintext, using: key, authenticating: associated)
    let box = try Crypto.AES.GCM.SealedBox(combined: combined)
    let opened = try Crypto.AES.GCM.open(box, using: SymmetricKey(data: key), authenticating: associated)
    #expect(Array(opened) == plaintext)

    let theirs = try Crypto.AES.GCM.seal(plaintext, using: SymmetricKey(data: key), authenticating: associated)
    let ours = try KeychainCrypto.AES.GCM.open(
      combined: Array(theirs.combined!), using: key, authenticating: associated)
    #expect(ours == plaintext)
  }

  @Test func aSixteenByteNonceAndAnAES128KeyMatchSwiftCrypto() throws {
    // Apple's ECIES framing: AES-GCM with a 16-byte IV (decision D12).
    let key = Self.random(16, seed: 3)
    let nonce = Self.random(16, seed: 4)
    let plaintext = Self.random(40, seed: 5)
    let (ciphertext, tag) = try KeychainCrypto.AES.GCM.seal(
      plaintext, using: key, nonce: nonce, authenticating: [1, 2])
    let theirs = try Crypto.AES.GCM.seal(
      plaintext, using: SymmetricKey(data: key), nonce: try Crypto.AES.GCM.Nonce(data: nonce), authenticating: [1, 2])
    #expect(ciphertext == Array(theirs.ciphertext))
    #expect(tag == Array(theirs.tag))
  }

  @Test func anyChangedByteKeyOrAssociatedDataFailsAuthentication() throws {
    let key = Self.random(32, seed: 11)
    let sealed = try KeychainCrypto.AES.GCM.seal(Array("secret".utf8), using: key, authenticating: [7])
    for index in sealed.indices {
      var altered = sealed
      altered[index] ^= 0x01
      #expect(throws: CryptoError.authenticationFailed) {
        try KeychainCrypto.AES.GCM.open(combined: altered, using: key, authenticating: [7])
      }
    }
    #expect(throws: CryptoError.authenticationFailed) {
      try KeychainCrypto.AES.GCM.open(combined: sealed, using: Self.random(32, seed: 12), authenticating: [7])
    }
    #expect(throws: CryptoError.authenticationFailed) {
      try KeychainCrypto.AES.GCM.open(combined: sealed, using: key, authenticating: [8])
    }
    #expect(throws: CryptoError.authenticationFailed) {
      try KeychainCrypto.AES.GCM.open(combined: Array(sealed.prefix(27)), using: key, authenticating: [7])
    }
    #expect(throws: CryptoError.invalidParameter("an AES key of 31 bytes")) {
      try KeychainCrypto.AES.GCM.seal([1], using: Self.random(31, seed: 1), authenticating: [])
    }
  }

  @Test func associatedDataInTwoPartsIsAuthenticatedAsOne() throws {
    let key = Self.random(32, seed: 21)
    let sealed = try KeychainCrypto.AES.GCM.seal([1, 2, 3], using: key, authenticating: [9, 8, 7, 6])
    #expect(
      try KeychainCrypto.AES.GCM.open(combined: sealed, using: key, authenticating: [9, 8], [7, 6][...]) == [1, 2, 3])
  }

  @Test func digestsAndHMACMatchSwiftCrypto() throws {
    for length in [0, 1, 55, 56, 64, 1000] {
      let message = Self.random(length, seed: UInt64(length))
      #expect(try KeychainCrypto.SHA256.hash(data: message) == Array(Crypto.SHA256.hash(data: message)))
      #expect(try KeychainCrypto.Insecure.SHA1.hash(data: message) == Array(Crypto.Insecure.SHA1.hash(data: message)))
      #expect(try HashFunction.sha384.hash(message) == Array(Crypto.SHA384.hash(data: message)))
      let key = Self.random(32, seed: UInt64(length) + 100)
      let theirs = Crypto.HMAC<Crypto.SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key))
      #expect(try KeychainCrypto.HMAC.sha256(message, key: key) == Array(theirs))
      #expect(try KeychainCrypto.HMAC.Prepared(key: key).authenticationCode(for: message) == Array(theirs))
    }
  }

  @Test func aPreparedHMACMatchesSwiftCryptoForEveryKeyAndMessageLength() throws {
    // The prepared key keeps SHA-256's states after HMAC's pads, so the lengths around the 64-byte
    // block (a longer key is hashed first; a message may end a block exactly) are where it could
    // differ from HMAC's definition.
    for keyLength in [0, 1, 20, 32, 63, 64, 65, 131] {
      let key = Self.random(keyLength, seed: UInt64(keyLength) + 7)
      let prepared = try KeychainCrypto.HMAC.Prepared(key: key)
      for length in [0, 1, 55, 56, 63, 64, 65, 200] {
        let message = Self.random(length, seed: UInt64(length * 1000 + keyLength))
        let theirs = Array(
          Crypto.HMAC<Crypto.SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key)))
        #expect(try prepared.authenticationCode(for: message) == theirs, "key \(keyLength), message \(length)")
        // A message that is not one contiguous array takes the copying path.
        #expect(try prepared.authenticationCode(for: message.lazy.map { $0 }) == theirs)
      }
    }
    // RFC 4231, test case 6: a 131-byte key, hashed before use.
    let rfcKey = [UInt8](repeating: 0xaa, count: 131)
    let rfcMessage = Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)
    #expect(
      try KeychainCrypto.HMAC.Prepared(key: rfcKey).authenticationCode(for: rfcMessage)
        == Self.bytes("60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"))
  }

  @Test func hkdfExpandMatchesRFC5869AndSwiftCrypto() throws {
    // RFC 5869, A.1: the Expand step from its PRK.
    let prk = Self.bytes("077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5")
    let info = Self.bytes("f0f1f2f3f4f5f6f7f8f9")
    let okm = try KeychainCrypto.HKDF.expand(pseudoRandomKey: prk, info: info, outputByteCount: 42)
    #expect(okm == Self.bytes("3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"))
    let theirs = Crypto.HKDF<Crypto.SHA256>.expand(pseudoRandomKey: prk, info: info, outputByteCount: 42)
    #expect(okm == theirs.withUnsafeBytes { Array($0) })
    #expect(throws: CryptoError.self) {
      try KeychainCrypto.HKDF.expand(pseudoRandomKey: prk, info: info, outputByteCount: 0)
    }
  }

  @Test func aSubkeyIsTheOneBlockHMACStoresWereMadeWith() throws {
    // Stores made before this module derived each subkey as HMAC-SHA-256(key, label ‖ 0x01):
    // HKDF-Expand's first block, so every existing store's keys are unchanged.
    for seed in 0..<8 {
      let key = Self.random(32, seed: UInt64(seed))
      let label = "keychain-bridge/class/ak/v\(seed)"
      let expanded = try KeychainCrypto.HKDF.expand(pseudoRandomKey: key, info: Array(label.utf8), outputByteCount: 32)
      #expect(expanded == (try KeychainCrypto.HMAC.sha256(Array(label.utf8) + [1], key: key)))
    }
  }

  @Test func scryptMatchesRFC7914() throws {
    // RFC 7914, section 12, the second vector (its first 32 bytes: scrypt's output is PBKDF2's,
    // whose blocks do not depend on the length asked for).
    let key = try Scrypt.deriveKey(passphrase: Array("password".utf8), salt: Array("NaCl".utf8), logN: 10, r: 8, p: 16)
    #expect(key == Self.bytes("fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b373162"))
    #expect(throws: CryptoError.self) { try Scrypt.deriveKey(passphrase: [1], salt: [2], logN: 0, r: 8, p: 1) }
    #expect(throws: CryptoError.self) { try Scrypt.deriveKey(passphrase: [1], salt: [2], logN: 62, r: 8, p: 1) }
  }

  @Test func randomBytesAreFreshAndWipingEmpties() throws {
    let first = try SecureBytes.random(count: 32)
    let second = try SecureBytes.random(count: 32)
    #expect(first != second)
    #expect(try SecureBytes.random(count: 0).isEmpty)
    var secret = first
    SecureBytes.wipe(&secret)
    #expect(secret.isEmpty)
  }

  @Test func oneDERCertificateIsRecognizedAndTrailingBytesAreNot() throws {
    let key = P256.Signing.PrivateKey()
    // A certificate is out of this module's reach to make; the openssl command line makes one.
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("x509-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    try key.pemRepresentation.write(to: directory.appendingPathComponent("key.pem"), atomically: true, encoding: .utf8)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.currentDirectoryURL = directory
    process.arguments = [
      "openssl", "req", "-new", "-x509", "-key", "key.pem", "-subj", "/CN=crypto test", "-days", "1", "-outform", "DER",
      "-out", "cert.der",
    ]
    try process.run()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    let der = Array(try Data(contentsOf: directory.appendingPathComponent("cert.der")))
    #expect(X509Certificate.isSingleDER(der))
    #expect(!X509Certificate.isSingleDER(der + [0]))
    #expect(!X509Certificate.isSingleDER(Array(der.dropLast())))
    #expect(!X509Certificate.isSingleDER([]))
  }
}
