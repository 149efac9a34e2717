import Foundation

/// Whether a test that needs a program `make test` installs (`scripts/setup.sh`) should run.
///
/// Where the program is missing, a developer's run skips the test and says why; under CI
/// (`CI=true`) the test runs anyway and fails on the missing program, so a set-up step that
/// stopped installing it cannot turn a suite into silent skips.
package enum InstalledTool {
  /// Whether this run is CI's, which must never skip what `make test` installs.
  package static let underCI = ProcessInfo.processInfo.environment["CI"] == "true"

  /// Whether the test may run: `present`, or under CI whatever `present` says.
  package static func runs(_ present: Bool) -> Bool { present || underCI }

  /// Whether the test needing the executable at `path` may run.
  package static func runs(needing path: String) -> Bool {
    runs(FileManager.default.isExecutableFile(atPath: path))
  }
}
