import Foundation
import SecGenModel
import SecGenParse

/// The three stages tied together.
public enum Pipeline {
  /// Parses `headers` and builds their model, with the sidecar `apiNotes` when given.
  public static func model(headers: [URL], apiNotes: URL?) throws(DiagnosticsError) -> SecurityModel {
    let notes = try apiNotes.map { url throws(DiagnosticsError) in try APINotes.load(url) } ?? .empty
    let parsed = try HeaderParser.parse(headers)
    return try ModelBuilder.build(parsed, notes: notes)
  }
}
