import Foundation
import Keychain
import Security
import Testing

/// The typed backup calls: `KeychainBackup.export` and `KeychainBackup.restore`.
@Suite struct KeychainBackupDSL {
  let token = GenericPassword().service("com.example.api").account("alice")
  let website = InternetPassword().server("example.com").account("bob").port(443)

  @Test func anExportedBackupRestoresIntoAnotherStore() throws {
    let backup = try withStore { _ throws in
      try token.add("s3cret").get()
      try website.add("hunter2").get()
      try GenericPassword().service("device").account("only").accessibility(.whenUnlockedThisDeviceOnly).add("x").get()
      return try KeychainBackup.export(passphrase: "backup pass").get()
    }
    #expect(backup.itemCount == 2)
    #expect(backup.skippedDeviceOnlyItemCount == 1)
    try withStore { _ throws in
      let report = try KeychainBackup.restore(backup.file, passphrase: "backup pass").get()
      #expect(report.addedItemCount == 2 && report.duplicateItemCount == 0 && report.rejections.isEmpty)
      #expect(try token.string().get() == "s3cret")
      #expect(try website.string().get() == "hunter2")
      #expect(try GenericPassword().service("device").exists().get() == false)
    }
  }

  @Test func aWrongPassphraseFailsAsAuthFailedWithTheReason() throws {
    let backup = try withStore { _ throws in
      try token.add("s3cret").get()
      return try KeychainBackup.export(passphrase: "backup pass").get()
    }
    try withStore { _ throws in
      let error = try #require(KeychainBackup.restore(backup.file, passphrase: "guess").failure)
      #expect(error == .authFailed)
      #expect(error.message.contains("the passphrase is wrong, or the file was altered or cut short"))
      #expect(try token.exists().get() == false)
    }
  }
}
