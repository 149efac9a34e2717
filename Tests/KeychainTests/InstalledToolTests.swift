import Foundation
import TestTools
import Testing

/// The rule the suites' tool traits follow: skipped visibly on a developer's machine without the
/// program, never skipped under CI, where the missing program fails the test.
@Suite("Tests needing a program make test installs")
struct InstalledToolTests {
  @Test("A missing program skips a test only outside CI; a present one always runs it")
  func missingProgramsSkipOnlyOutsideCI() {
    #expect(InstalledTool.runs(needing: "/no/such/program") == InstalledTool.underCI)
    #expect(InstalledTool.runs(needing: "/bin/sh"))
    #expect(InstalledTool.underCI == (ProcessInfo.processInfo.environment["CI"] == "true"))
  }
}
