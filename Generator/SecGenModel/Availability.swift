import Foundation
import SecGenParse

/// What a declaration's availability macros mean on the target platform.
public struct AvailabilityVerdict: Equatable, Sendable {
  /// Why the declaration does not exist on the platform (it is left out of the model), or nil.
  public var unavailable: String?
  /// The deprecation message ("" when deprecated without one), or nil when not deprecated.
  public var deprecation: String?

  /// Reads the macros as written (`API_DEPRECATED("msg", macos(10.0, 10.7))`), the way Apple's
  /// availability headers define them.
  public init(_ macros: [String], on platform: TargetPlatform) {
    for macro in macros {
      guard let open = macro.firstIndex(of: "("), macro.hasSuffix(")") else { continue }
      let name = String(macro[..<open])
      let arguments = Self.split(String(macro[macro.index(after: open)..<macro.index(before: macro.endIndex)]))
      let platforms = arguments.compactMap(Self.platformName)
      let mentionsPlatform = platforms.contains(Self.name(of: platform))
      switch name {
      case "API_UNAVAILABLE":
        if platforms.contains(Self.name(of: platform)) { unavailable = "\(macro) on \(platform.rawValue)" }
      case "API_DEPRECATED", "SPI_DEPRECATED":
        if platforms.isEmpty || mentionsPlatform { deprecation = Self.unquoted(arguments.first) ?? "" }
      case "API_DEPRECATED_WITH_REPLACEMENT":
        if platforms.isEmpty || mentionsPlatform {
          deprecation = Self.unquoted(arguments.first).map { "use \($0) instead" } ?? ""
        }
      case "__OSX_AVAILABLE_STARTING", "__OSX_AVAILABLE_BUT_DEPRECATED", "__OSX_AVAILABLE_BUT_DEPRECATED_MSG":
        // (mac introduced, iOS introduced) or (mac introduced, mac deprecated, iOS introduced, iOS deprecated).
        let starting = name == "__OSX_AVAILABLE_STARTING"
        let introduced = platform == .macos ? arguments.first : arguments.dropFirst(starting ? 1 : 2).first
        let deprecated =
          starting ? nil : (platform == .macos ? arguments.dropFirst().first : arguments.dropFirst(3).first)
        if let introduced, introduced.hasSuffix("_NA") { unavailable = "\(macro) on \(platform.rawValue)" }
        if let deprecated, !deprecated.hasSuffix("_NA") {
          deprecation = name.hasSuffix("_MSG") ? (Self.unquoted(arguments.last) ?? "") : ""
        }
      case "CF_AVAILABLE", "CF_AVAILABLE_MAC", "CF_AVAILABLE_IOS", "CF_DEPRECATED":
        // CFAvailability.h's: (mac, iOS), (mac), (iOS), or (mac introduced, mac deprecated, iOS
        // introduced, iOS deprecated[, message]); NA where the declaration does not exist.
        let (introduced, deprecated): (String?, String?) =
          switch (name, platform) {
          case ("CF_AVAILABLE", .macos), ("CF_AVAILABLE_MAC", .macos): (arguments.first, nil)
          case ("CF_AVAILABLE", .ios): (arguments.dropFirst().first, nil)
          case ("CF_AVAILABLE_IOS", .ios): (arguments.first, nil)
          case ("CF_AVAILABLE_MAC", .ios): ("NA", nil)
          case ("CF_AVAILABLE_IOS", .macos): ("NA", nil)
          case (_, .macos): (arguments.first, arguments.dropFirst().first)
          default: (arguments.dropFirst(2).first, arguments.dropFirst(3).first)
          }
        if let introduced, introduced.hasSuffix("NA") { unavailable = "\(macro) on \(platform.rawValue)" }
        if let deprecated, !deprecated.hasSuffix("NA") {
          deprecation = Self.unquoted(arguments.dropFirst(4).first) ?? ""
        }
      default:
        break
      }
    }
  }

  private static func name(of platform: TargetPlatform) -> String {
    platform == .macos ? "macos" : "ios"
  }

  /// `macos(10.7)` and `macosx` give "macos"; `ios(2.0)` gives "ios"; anything else is no platform.
  private static func platformName(_ argument: String) -> String? {
    let base = argument.prefix { $0.isLetter }.lowercased()
    switch base {
    case "macos", "macosx", "osx": return "macos"
    case "ios": return "ios"
    case "watchos", "tvos", "bridgeos", "iosmac", "maccatalyst", "visionos", "driverkit": return base
    default: return nil
    }
  }

  private static func unquoted(_ argument: String?) -> String? {
    guard let argument, argument.hasPrefix("\""), argument.hasSuffix("\""), argument.count >= 2 else { return nil }
    return String(argument.dropFirst().dropLast())
  }

  /// Splits macro arguments at top-level commas (not inside parentheses or strings).
  private static func split(_ text: String) -> [String] {
    var parts: [String] = []
    var current = ""
    var depth = 0
    var inString = false
    var previous: Character = " "
    for character in text {
      if character == "\"" && previous != "\\" { inString.toggle() }
      if !inString {
        if character == "(" { depth += 1 }
        if character == ")" { depth -= 1 }
        if character == "," && depth == 0 {
          parts.append(current.trimmingCharacters(in: .whitespaces))
          current = ""
          previous = character
          continue
        }
      }
      current.append(character)
      previous = character
    }
    let last = current.trimmingCharacters(in: .whitespaces)
    if !last.isEmpty { parts.append(last) }
    return parts
  }
}

/// A declaration left out of the model, with the reason.
public struct ExcludedDeclarationModel: Codable, Equatable, Sendable {
  /// What left a declaration out.
  public enum Cause: String, Codable, Sendable {
    /// Its availability macros: it does not exist on the target platform.
    case platform
    /// clang's `Availability: nonswift` (or `none`) in the API notes: the runtime does not
    /// implement it, so nothing in Swift may name it.
    case apiNotes
    /// A status code of another family than errSec in the same enum.
    case otherFamily
  }

  /// The declaration's name.
  public var name: String
  /// Why it was left out (its availability on the platform, or the notes' AvailabilityMsg).
  public var reason: String
  /// What left it out.
  public var cause: Cause = .platform
}

/// A declaration of a kind the model has no use for (a typedef, a struct), recognised and skipped.
public struct SkippedDeclarationModel: Codable, Equatable, Sendable {
  /// `typedef`, `struct` or `union`.
  public var kind: String
  /// Its name.
  public var name: String
}

extension ParsedHeaders {
  /// The declarations that exist on `platform`, and those that do not with the reason.
  ///
  /// `unavailable` names what the API notes keep out of Swift (clang's `Availability: nonswift`),
  /// with the reason: functions, constants and enumerators by their names, and a whole enumeration
  /// by its type's name.
  public func available(on platform: TargetPlatform, unavailable: [String: String] = [:]) -> (
    headers: ParsedHeaders, excluded: [ExcludedDeclarationModel], deprecations: [String: String]
  ) {
    var headers = self
    var excluded: [ExcludedDeclarationModel] = []
    var deprecations: [String: String] = [:]
    func keep(_ name: String, _ macros: [String]) -> Bool {
      if let reason = unavailable[name] {
        excluded.append(ExcludedDeclarationModel(name: name, reason: reason, cause: .apiNotes))
        return false
      }
      let verdict = AvailabilityVerdict(macros, on: platform)
      if let reason = verdict.unavailable {
        excluded.append(ExcludedDeclarationModel(name: name, reason: reason))
        return false
      }
      if let deprecation = verdict.deprecation { deprecations[name] = deprecation }
      return true
    }
    headers.constants = constants.filter { keep($0.name, $0.availability) }
    headers.functions = functions.filter { keep($0.name, $0.availability) }
    headers.enumerations = enumerations.filter { enumeration in
      guard let name = enumeration.name, let reason = unavailable[name] else { return true }
      excluded.append(ExcludedDeclarationModel(name: name, reason: reason, cause: .apiNotes))
      return false
    }.map { enumeration in
      var enumeration = enumeration
      enumeration.constants = enumeration.constants.filter { keep($0.name, $0.availability) }
      return enumeration
    }
    return (headers, excluded, deprecations)
  }
}
