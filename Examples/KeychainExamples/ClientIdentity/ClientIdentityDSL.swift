import Foundation
import Keychain

/// Example 9: import a client identity from PKCS#12, keep it, and find it again for TLS.
public enum ClientIdentityExample: KeychainExample {
  public static let name = "client-identity"
  public static let title = "Import a PKCS#12 client identity, store it, and find it by its label"
  public static let dslSource = #filePath

  public static func dsl(_ environment: ExampleEnvironment) -> [String] {
    var log = ["import with a wrong passphrase: \(describe(Identity.importPKCS12(file, passphrase: "guess")))"]
    guard case .success(let imported) = Identity.importPKCS12(file, passphrase: "example"), let first = imported.first
    else { return log + ["import: failed"] }
    log.append("import: \(imported.count) identity, label \(first.label ?? "none")")
    log.append("certificate: \((try? first.identity.certificate().get())?.subjectSummary ?? "no summary")")
    let stored = IdentityQuery().label("Example Client")
    log.append("store: \(describe(IdentityQuery().add(first.identity)))")
    log.append("store again: \(describe(IdentityQuery().add(first.identity)))")
    guard case .success(let found?) = stored.identity() else { return log + ["find: failed"] }
    log.append("found the same identity: \(found == first.identity)")
    return log
  }
}
