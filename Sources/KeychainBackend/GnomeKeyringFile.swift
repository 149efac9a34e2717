import Foundation
import KeychainCrypto
import Security

/// A GNOME Keyring keyring file (`~/.local/share/keyrings/NAME.keyring`, the binary format GNOME
/// Keyring writes for a keyring with a password), read so that `security import-gnome-keyring`
/// can move its items into the store.
///
/// The format (GNOME Keyring's pkcs11/secret-store/file-format.txt): a 16-byte magic, version
/// 0.0 with AES and MD5, the keyring's name and times, a salt and an iteration count, each item's
/// identifier, type and attributes with their values hashed, then the items' labels, secrets,
/// times and attributes encrypted with AES-128-CBC under a key and IV made by hashing the password
/// and salt with SHA-256 that many times; the first 16 decrypted bytes are the MD5 of the rest,
/// which is how a wrong password shows. Big-endian 32-bit integers; a string is its length and
/// bytes, 0xffffffff for none.
///
/// Every count and length is checked against the bytes left before it is used: the file comes
/// from disk, possibly from another machine.
package struct GnomeKeyringFile {
  /// One item of the keyring.
  package struct Item {
    /// The label (GNOME Keyring's display name).
    package var label: String
    /// The secret; the caller wipes it.
    package var secret: [UInt8]
    package var created: Date
    package var modified: Date
    /// The attributes, a number attribute written in decimal, with `xdg:schema` from the item's
    /// type when it has none (as GNOME Keyring shows it over the bus).
    package var attributes: [String: String]
  }

  /// Why a file could not be read.
  package enum ReadError: Error, Equatable, CustomStringConvertible {
    /// Not a keyring file of GNOME Keyring's binary format.
    case notAKeyring
    /// A keyring of a version or algorithm this reader does not know.
    case unsupported(String)
    /// Cut short or inconsistent.
    case damaged(String)
    /// The password does not decrypt it.
    case wrongPassword

    package var description: String {
      switch self {
      case .notAKeyring: "it is not a GNOME Keyring file with a password (a .keyring file of the binary format)"
      case .unsupported(let what): "it uses \(what), which this reader does not know"
      case .damaged(let why): "it is damaged: \(why)"
      case .wrongPassword: "the password does not open it"
      }
    }
  }

  /// The keyring's name.
  package let label: String
  /// Its items, in the file's order.
  package var items: [Item]

  /// The largest file read: keyrings are kilobytes; a larger one is not a keyring.
  package static let maximumLength = 64 << 20
  /// The most hashing rounds accepted: GNOME Keyring picks 1,000 to 4,095; more would only make
  /// a crafted file a way to keep the importer busy.
  static let maximumIterations: UInt32 = 1 << 20
  static let magic = Array("GnomeKeyring\n\r\u{0}\n".utf8)

  /// Reads `contents` with `password`.
  package init(contents: [UInt8], password: [UInt8]) throws(ReadError) {
    guard contents.count <= Self.maximumLength else { throw .damaged("it is longer than 64 MiB") }
    guard contents.starts(with: Self.magic) else { throw .notAKeyring }
    var header = Reader(contents[Self.magic.count...])
    let version = try header.bytes(4)
    guard version == [0, 0, 0, 0] else {
      throw .unsupported("version \(version[0]).\(version[1]) with cipher \(version[2]) and hash \(version[3])")
    }
    label = try header.string() ?? ""
    _ = try header.time()  // the keyring's times: a store has none of its own to keep them in
    _ = try header.time()
    _ = try header.uint32()  // flags
    _ = try header.uint32()  // lock timeout
    let iterations = try header.uint32()
    guard (1...Self.maximumIterations).contains(iterations) else {
      throw .damaged("its key is hashed \(iterations) times")
    }
    let salt = try header.bytes(8)
    for _ in 0..<4 { _ = try header.uint32() }
    let count = try header.count(minimumBytesEach: 12)
    var types: [UInt32] = []
    for _ in 0..<count {
      _ = try header.uint32()  // identifier
      types.append(try header.uint32())
      try header.skipAttributes()
    }
    let encryptedLength = Int(try header.uint32())
    guard encryptedLength % 16 == 0, encryptedLength >= 16 else {
      throw .damaged("its encrypted part is \(encryptedLength) bytes, not whole blocks")
    }
    let encrypted = try header.bytes(encryptedLength)
    var decrypted = try Self.decrypt(encrypted, password: password, salt: salt, iterations: iterations)
    defer { SecureBytes.wipe(&decrypted) }
    guard (try? Insecure.MD5.hash(data: decrypted[16...])) == Array(decrypted[..<16]) else { throw .wrongPassword }
    var body = Reader(decrypted[16...])
    items = []
    for index in 0..<count {
      let label = try body.string() ?? ""
      let secret = try body.byteArray()
      let created = try body.time()
      let modified = try body.time()
      _ = try body.string()
      for _ in 0..<4 { _ = try body.uint32() }
      var attributes = try body.attributes()
      // GNOME Keyring shows an item without a schema attribute with the one its type names.
      if attributes["xdg:schema"] == nil, let schema = Self.schema(ofType: types[index]) {
        attributes["xdg:schema"] = schema
      }
      let entries = try body.count(minimumBytesEach: 20)
      for _ in 0..<entries {
        _ = try body.uint32()
        for _ in 0..<3 { _ = try body.string() }
        _ = try body.uint32()
      }
      items.append(Item(label: label, secret: secret, created: created, modified: modified, attributes: attributes))
    }
  }

  /// The schema GNOME Keyring gives an item of `type` (its gkm_secret_compat_format_item_type).
  static func schema(ofType type: UInt32) -> String? {
    switch type & 0xffff {
    case 0: "org.freedesktop.Secret.Generic"
    case 1: "org.gnome.keyring.NetworkPassword"
    case 2: "org.gnome.keyring.Note"
    case 3: "org.gnome.keyring.ChainedKeyring"
    case 4: "org.gnome.keyring.EncryptionKey"
    case 0x100: "org.gnome.keyring.PkStorage"
    default: nil
    }
  }

  /// The decrypted part: key and IV from SHA-256 of the password and salt, hashed again
  /// `iterations - 1` times (GNOME's egg_symkey_generate_simple: 32 bytes are the key's 16 and the
  /// IV's 16), then AES-128-CBC without padding.
  private static func decrypt(_ encrypted: [UInt8], password: [UInt8], salt: [UInt8], iterations: UInt32)
    throws(ReadError) -> [UInt8]
  {
    do {
      var material = password + salt
      defer { SecureBytes.wipe(&material) }
      var digest = try SHA256.hash(data: material)
      defer { SecureBytes.wipe(&digest) }
      for _ in 1..<iterations {
        var next = try SHA256.hash(data: digest)
        swap(&digest, &next)
        SecureBytes.wipe(&next)
      }
      let key = try SecretKey(byteCount: 16) { (output: UnsafeMutableRawBufferPointer) throws(CryptoError) in
        digest.withUnsafeBytes { output.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[..<16])) }
      }
      return try AES.CBC.transform(encrypted, key: key, iv: Array(digest[16..<32]), encrypting: false, padding: false)
    } catch {
      throw .damaged("it could not be decrypted (\(error))")
    }
  }

  /// Reads big-endian integers, strings and attribute lists from bytes, never past their end.
  private struct Reader {
    var bytes: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }

    mutating func bytes(_ count: Int) throws(ReadError) -> [UInt8] {
      guard count >= 0, bytes.count >= count else { throw .damaged("it ends early") }
      defer { bytes = bytes.dropFirst(count) }
      return Array(bytes.prefix(count))
    }

    mutating func uint32() throws(ReadError) -> UInt32 {
      try bytes(4).reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// A count of things each at least `minimumBytesEach` long, checked against what is left.
    mutating func count(minimumBytesEach: Int) throws(ReadError) -> Int {
      let count = Int(try uint32())
      guard count <= bytes.count / minimumBytesEach else {
        throw .damaged("it lists \(count) entries it has no room for")
      }
      return count
    }

    /// A time: two 32-bit halves of seconds since 1970.
    mutating func time() throws(ReadError) -> Date {
      let high = UInt64(try uint32())
      let low = UInt64(try uint32())
      let seconds = high << 32 | low
      guard seconds < 1 << 40 else { throw .damaged("a time is out of range") }
      return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// Bytes with their length in front, or nil for 0xffffffff.
    mutating func byteArray() throws(ReadError) -> [UInt8] {
      let length = try uint32()
      guard length != 0xffff_ffff else { return [] }
      return try bytes(Int(length))
    }

    mutating func string() throws(ReadError) -> String? {
      let length = try uint32()
      guard length != 0xffff_ffff else { return nil }
      let utf8 = try bytes(Int(length))
      guard let string = String(validating: utf8, as: UTF8.self) else { throw .damaged("a string is not UTF-8") }
      return string
    }

    /// Attributes as the encrypted part holds them: a name, a type (0 a string, 1 a number), a value.
    mutating func attributes() throws(ReadError) -> [String: String] {
      var attributes: [String: String] = [:]
      for _ in 0..<(try count(minimumBytesEach: 12)) {
        let name = try string() ?? ""
        switch try uint32() {
        case 0: attributes[name] = try string() ?? ""
        case 1: attributes[name] = String(try uint32())
        case let type: throw .damaged("an attribute has type \(type)")
        }
      }
      return attributes
    }

    /// The hashed attributes of the clear part: read past.
    mutating func skipAttributes() throws(ReadError) {
      for _ in 0..<(try count(minimumBytesEach: 12)) {
        _ = try string()
        switch try uint32() {
        case 0: _ = try string()
        case 1: _ = try uint32()
        case let type: throw .damaged("an attribute has type \(type)")
        }
      }
    }
  }
}
