import Foundation
import KeychainSync
import Security
import Testing

/// What the server keeps of a group's passphrase (issue 27: an operator found "sunshine" in 10
/// guesses at 61 ms each). The wrapping is scrypt at N = 2^20, r = 8, p = 1; weak passphrases are
/// refused at creation; a wrapped key whose header names another cost is refused before scrypt
/// runs. Each test failed before the change.
@Suite struct GroupPassphrase {
  let server: PostgresTestServer
  let url: String
  var database: String { databaseName(url) }

  init() throws {
    server = try PostgresTestServer.shared()
    url = try server.makeDatabase()
  }

  private func createStatus(_ passphrase: String) async -> OSStatus {
    do {
      let store = try TestStore()
      try await KeychainSyncGroup.create(store: store.store, server: url, passphrase: passphrase)
      return errSecSuccess
    } catch let error as KeychainSyncError {
      return error.status
    } catch {
      return errSecInternalComponent
    }
  }

  @Test func passphrasesAGuesserTriesFirstAreRefused() async throws {
    // "sunshine sunshine" and "password letmein": words of the list put together (issue 49, case 13).
    for weak in [
      "sunshine", "pw", "sunshine2024!", "Password1234", "correct horse battery staple", "aaaaaaaaaaaaaaaa",
      "sunshine sunshine", "password letmein", "tulipgarden tulipgarden",
    ] {
      #expect(await createStatus(weak) == errSecParam, "\(weak)")
    }
    // Nothing reached the server: not even its schema was made.
    #expect(
      try server.sql("SELECT count(*) FROM pg_tables WHERE tablename = 'keychain_bridge_group'", database: database)
        == "0\n")
  }

  @Test func theServerKeepsTheKeyWrappedAtTheExpensiveCost() async throws {
    #expect(await createStatus("four random words here") == errSecSuccess)
    // The key file's header: magic, mode 1, log2 N, then r and p as little-endian UInt32s.
    let header = try server.sql(
      "SELECT get_byte(wrapped_key, 5) || ',' || get_byte(wrapped_key, 6) || ',' || get_byte(wrapped_key, 10) FROM keychain_bridge_group",
      database: database)
    #expect(header == "20,8,1\n")
  }

  @Test func aWrappedKeyNamingAnotherCostIsRefusedBeforeScryptRuns() async throws {
    #expect(await createStatus("four random words here") == errSecSuccess)
    // The server doubles r in the header (which is associated data, so the key would fail to
    // open anyway): the join must refuse the header (errSecDecode) instead of spending 2 GiB on
    // scrypt and then answering "wrong passphrase" (errSecAuthFailed).
    try server.sql("UPDATE keychain_bridge_group SET wrapped_key = set_byte(wrapped_key, 6, 16)", database: database)
    let joiner = try TestStore()
    do {
      try await KeychainSyncGroup.join(store: joiner.store, server: url, passphrase: "four random words here")
      Issue.record("a wrapped key naming another cost was accepted")
    } catch {
      #expect(error.status == errSecDecode, "\(error)")
    }
  }
}
