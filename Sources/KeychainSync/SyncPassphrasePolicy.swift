import Foundation
import Security

/// What a sync group's passphrase must be.
///
/// The server keeps the group key wrapped under scrypt of the passphrase (`ScryptCost.syncGroup`),
/// so its operator can guess offline; scrypt makes each guess cost about 1 GiB and a few seconds,
/// and this check keeps out the passphrases any guesser tries first. It is applied when a group
/// is created; joining takes whatever passphrase the group has.
enum SyncPassphrasePolicy {
  /// The shortest passphrase accepted, in characters.
  static let minimumLength = 12

  /// Passphrases at the top of every guessing list (the most common passwords, written here from
  /// the published top-20 lists, compared case-insensitively with trailing digits and punctuation
  /// removed). Length already rules out most; these are the long ones people still choose.
  private static let common: Set<String> = [
    "password", "passphrase", "passw0rd", "qwerty", "qwertyuiop", "asdfghjkl", "zxcvbnm", "abcdefghijkl",
    "iloveyou", "sunshine", "princess", "football", "baseball", "basketball", "superman", "batman",
    "starwars", "letmein", "welcome", "changeme", "administrator", "admin", "trustno", "whatever",
    "monkey", "dragon", "master", "shadow", "michael", "jennifer", "computer", "internet", "secret",
    "mysecret", "keychain", "keychainbridge", "correcthorsebatterystaple", "correct horse battery staple",
    "1q2w3e4r5t6y", "qazwsxedcrfv", "aaaaaaaaaaaa", "passwordpassword", "letmeinletmein", "opensesame",
  ]

  /// errSecParam, with the reason, for a passphrase a guesser would try early.
  static func check(_ passphrase: String) throws(SecStatus) {
    guard passphrase.count >= minimumLength else {
      throw SecStatus(
        errSecParam,
        detail:
          "Sync: the group passphrase must have at least \(minimumLength) characters (the server can guess it offline)")
    }
    let lowered = passphrase.lowercased()
    let stem = String(lowered.reversed().drop { $0.isNumber || $0.isPunctuation || $0.isSymbol }.reversed())
    let distinct = Set(lowered.filter { !$0.isWhitespace })
    // Words of the list put together, or one word said again ("sunshine sunshine"), are what a
    // guesser's rules try right after the list itself.
    let words = lowered.split { !$0.isLetter && !$0.isNumber }.map(String.init)
    let madeOfGuesses =
      !words.isEmpty && (words.allSatisfy(common.contains) || (words.count > 1 && Set(words).count == 1))
    guard !common.contains(lowered), !common.contains(stem), distinct.count > 3, !madeOfGuesses else {
      throw SecStatus(
        errSecParam, detail: "Sync: the group passphrase is among the first any guesser tries; choose another")
    }
  }
}
