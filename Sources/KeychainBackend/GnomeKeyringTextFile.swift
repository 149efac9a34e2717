import Foundation
import KeychainCrypto
import Security

/// GNOME Keyring's textual format: what it writes for a keyring whose password is empty (its
/// gkm-secret-textual.c), a GLib key file holding everything in the clear:
///
/// ```
/// [keyring]
/// display-name=Login
/// ctime=1700000000
/// mtime=1700000000
///
/// [1]
/// item-type=0
/// display-name=Mail
/// secret=hunter2            (or binary-secret=HEX for bytes that are not UTF-8)
/// mtime=1700000000
/// ctime=1700000000
///
/// [1:attribute0]
/// name=service
/// type=string               (or uint32, its value in decimal)
/// value=mail
/// ```
///
/// Read here rather than through GLib so that the importer links nothing more; the key-file rules
/// it needs are few (groups, `key=value`, comments, GLib's escapes), and every value is bounded by
/// the file, which is read only after its size is checked.
extension GnomeKeyringFile {
  /// Whether `contents` is a keyring in the textual format: GLib's key file whose first group is
  /// `[keyring]`.
  package static func isTextual(_ contents: [UInt8]) -> Bool {
    guard !contents.starts(with: magic), let text = String(validating: contents.prefix(4096), as: UTF8.self)
    else { return false }
    let first = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
      .first { !$0.isEmpty && !$0.hasPrefix("#") }
    return first == "[keyring]"
  }

  /// Reads a keyring in the textual format (it has no password).
  package init(textual contents: [UInt8]) throws(ReadError) {
    guard contents.count <= Self.maximumLength else { throw .damaged("it is longer than 64 MiB") }
    guard let text = String(validating: contents, as: UTF8.self) else { throw .damaged("it is not UTF-8 text") }
    let groups = try Self.keyFileGroups(text)
    guard groups.first?.name == "keyring" else { throw .notAKeyring }
    label = try groups[0].string("display-name") ?? ""
    let byName = Dictionary(groups.map { ($0.name, $0) }, uniquingKeysWith: { _, last in last })
    var items: [Item] = []
    for group in groups where group.name != "keyring" && !group.name.contains(":") {
      let type = UInt32(group.values["item-type"] ?? "0") ?? 0
      let secret: [UInt8]
      if let text = try group.string("secret") {
        secret = Array(text.utf8)
      } else if let hex = group.values["binary-secret"] {
        guard let bytes = Hex.decode(hex) else {
          throw .damaged("the secret of item \(group.name) is not hexadecimal")
        }
        secret = bytes
      } else {
        secret = []
      }
      var attributes: [String: String] = [:]
      var index = 0
      while let attribute = byName["\(group.name):attribute\(index)"] {
        index += 1
        guard let name = try attribute.string("name") else { continue }
        if attribute.values["type"] == "uint32" {
          // GNOME keeps a number attribute only when it reads as one.
          if let number = attribute.values["value"].flatMap({ UInt32($0) }) { attributes[name] = String(number) }
        } else {
          attributes[name] = try attribute.string("value") ?? ""
        }
      }
      if attributes["xdg:schema"] == nil, let schema = Self.schema(ofType: type) { attributes["xdg:schema"] = schema }
      items.append(
        Item(
          label: try group.string("display-name") ?? "", secret: secret, created: Self.time(group.values["ctime"]),
          modified: Self.time(group.values["mtime"]), attributes: attributes))
    }
    self.items = items
  }

  /// One `[group]` of a key file and its `key=value` lines, values as written (still escaped).
  struct KeyFileGroup {
    var name: String
    var values: [String: String] = [:]

    /// A value with GLib's escapes undone (`\s`, `\n`, `\t`, `\r`, `\\`), or nil when absent.
    func string(_ key: String) throws(ReadError) -> String? {
      guard let raw = values[key] else { return nil }
      var result = ""
      var escaped = false
      for character in raw {
        if escaped {
          switch character {
          case "s": result.append(" ")
          case "n": result.append("\n")
          case "t": result.append("\t")
          case "r": result.append("\r")
          case "\\": result.append("\\")
          default: throw .damaged("the value of \(key) in [\(name)] has an unknown escape \\\(character)")
          }
          escaped = false
        } else if character == "\\" {
          escaped = true
        } else {
          result.append(character)
        }
      }
      guard !escaped else { throw .damaged("the value of \(key) in [\(name)] ends with a lone backslash") }
      return result
    }
  }

  /// The groups of a key file in order: blank lines and `#` comments skipped, keys and values
  /// trimmed around `=` as GLib does, a key with a locale (`key[fr]`) ignored.
  static func keyFileGroups(_ text: String) throws(ReadError) -> [KeyFileGroup] {
    var groups: [KeyFileGroup] = []
    for (number, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      let line = rawLine.hasSuffix("\r") ? rawLine.dropLast() : rawLine
      let trimmed = line.drop { $0 == " " || $0 == "\t" }
      if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
      if trimmed.hasPrefix("[") {
        guard trimmed.hasSuffix("]"), trimmed.count > 2 else { throw .damaged("line \(number + 1) is not a group") }
        groups.append(KeyFileGroup(name: String(trimmed.dropFirst().dropLast())))
        continue
      }
      guard let equals = trimmed.firstIndex(of: "="), !groups.isEmpty else {
        throw .damaged("line \(number + 1) is neither a group nor key=value")
      }
      let key = trimmed[..<equals].trimmingCharacters(in: .whitespaces)
      guard !key.contains("[") else { continue }
      let value = trimmed[trimmed.index(after: equals)...].drop { $0 == " " || $0 == "\t" }
      groups[groups.count - 1].values[key] = String(value)
    }
    return groups
  }

  /// A time in seconds since 1970, or the epoch when absent or out of range (GNOME's default, 0).
  static func time(_ value: String?) -> Date {
    guard let seconds = value.flatMap({ UInt64($0) }), seconds < 1 << 40 else { return Date(timeIntervalSince1970: 0) }
    return Date(timeIntervalSince1970: TimeInterval(seconds))
  }
}
