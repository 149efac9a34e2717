import Foundation
import Testing

/// What --help says where macOS users look for it.
@Suite struct SecurityToolHelp {
  @Test func theDefaultStorePathNamesEveryFallbackAndKIsSaidWhereItIsNotTaken() throws {
    let tool = SecurityToolTests.Harness()
    let find = try tool.run("find-generic-password", "--help")
    #expect(find.output.contains("~/.local/share/keychain-bridge"), "\(find.output)")
    #expect(find.output.contains("KEYCHAIN_BRIDGE_HOME"))
    #expect(
      try tool.run("create-keychain", "--help").output.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        .contains("-k is not taken"))
    // Help text is wrapped to the terminal's width: compare with the line breaks as spaces.
    let defaultKeychain = try tool.run("default-keychain", "--help").output.split(whereSeparator: \.isWhitespace)
      .joined(separator: " ")
    #expect(defaultKeychain.contains("-k is not taken") && defaultKeychain.contains("~/.local/share/keychain-bridge"))
  }
}
