import Foundation

/// PEM (RFC 7468): DER between `-----BEGIN LABEL-----` and `-----END LABEL-----` lines, in base64.
///
/// Written here rather than through OpenSSL's PEM reader because the tool needs each block's
/// label to decide what it holds (a certificate, which key form) before anything is parsed, and
/// the format is a few lines of text.
enum PEMFile {
  /// One block: its label ("CERTIFICATE", "PRIVATE KEY", ...) and its DER.
  struct Block: Equatable {
    var label: String
    var der: Data
  }

  /// Why a text is not PEM.
  enum Malformation: Error, CustomStringConvertible {
    case unterminated(label: String, line: Int)
    case notBase64(label: String, line: Int)
    case noBlock

    var description: String {
      switch self {
      case .unterminated(let label, let line):
        "the PEM block \(label) that starts on line \(line) has no END line"
      case .notBase64(let label, let line): "the PEM block \(label) that starts on line \(line) is not base64"
      case .noBlock: "the file holds no PEM block"
      }
    }
  }

  /// Whether `bytes` looks like PEM (a BEGIN line in its first kilobytes), not DER.
  static func isPEM(_ bytes: Data) -> Bool {
    String(decoding: bytes.prefix(4096), as: UTF8.self).contains("-----BEGIN ")
  }

  /// The blocks of `text`, in order; text between them (OpenSSL's "Bag Attributes" lines,
  /// comments) is ignored, as OpenSSL ignores it.
  static func blocks(in text: String) throws(Malformation) -> [Block] {
    var blocks: [Block] = []
    var open: (label: String, line: Int, body: String)?
    for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      let line = rawLine.trimmingCharacters(in: .whitespaces.union(.init(charactersIn: "\r")))
      if let current = open {
        if line == "-----END \(current.label)-----" {
          guard let der = Data(base64Encoded: current.body) else {
            throw .notBase64(label: current.label, line: current.line)
          }
          blocks.append(Block(label: current.label, der: der))
          open = nil
        } else if !line.contains(":") {
          // Encapsulated headers ("Proc-Type: ...") are skipped; only base64 lines are kept.
          open?.body += line
        }
      } else if line.hasPrefix("-----BEGIN "), line.hasSuffix("-----") {
        open = (String(line.dropFirst(11).dropLast(5)), index + 1, "")
      }
    }
    if let open { throw .unterminated(label: open.label, line: open.line) }
    guard !blocks.isEmpty else { throw .noBlock }
    return blocks
  }

  /// `der` as a PEM block: base64 in lines of 64 between the markers.
  static func encode(_ der: Data, label: String) -> String {
    let encoded = der.base64EncodedString()
    var lines = ["-----BEGIN \(label)-----"]
    var start = encoded.startIndex
    while start < encoded.endIndex {
      let end = encoded.index(start, offsetBy: 64, limitedBy: encoded.endIndex) ?? encoded.endIndex
      lines.append(String(encoded[start..<end]))
      start = end
    }
    return (lines + ["-----END \(label)-----"]).joined(separator: "\n") + "\n"
  }
}
