import Foundation
import PackagePlugin

/// Runs secgen on the target's `Headers/*.h` (and `Headers/*.apinotes`, clang's YAML API notes) with the
/// package's `Templates/*.swift.stencil`, writing one Swift file per template into the plugin's work
/// folder. SwiftPM reruns it only when one of those inputs changes.
@main
struct SecGenPlugin: BuildToolPlugin {
  func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
    let headersFolder = target.directoryURL.appending(path: "Headers")
    let templatesFolder = context.package.directoryURL.appending(path: "Templates")
    // Headers are never in target.sourceFiles, so the folders are listed here.
    let headers = try files(in: headersFolder, endingWith: ".h")
    let apiNotes = try files(in: headersFolder, endingWith: ".apinotes")
    let templates = try files(in: templatesFolder, endingWith: ".swift.stencil")
    let outputFolder = context.pluginWorkDirectoryURL.appending(path: "Generated")
    let outputs = templates.map {
      outputFolder.appending(path: String($0.lastPathComponent.dropLast(".stencil".count)))
    }

    // secgen loads libclang at run time; the toolchain building this package ships one, so it is
    // found without any system package.
    var environment: [String: String] = [:]
    if let swiftc = try? context.tool(named: "swiftc") {
      environment["SECGEN_SWIFT_TOOLCHAIN"] = swiftc.url.deletingLastPathComponent().path
    }
    var arguments = headers.flatMap { ["--header", $0.path] }
    if let notes = apiNotes.first { arguments += ["--api-notes", notes.path] }
    // The project's headers are kept free of warnings: a gap in their documentation fails the build.
    arguments += ["--strict", "--templates", templatesFolder.path, "--output", outputFolder.path]
    return [
      .buildCommand(
        displayName: "secgen: generating \(target.name) from \(headers.count) headers",
        executable: try context.tool(named: "SecGenBuildTool").url,
        arguments: arguments,
        environment: environment,
        inputFiles: headers + apiNotes + templates,
        outputFiles: outputs)
    ]
  }

  private func files(in folder: URL, endingWith suffix: String) throws -> [URL] {
    try FileManager.default.contentsOfDirectory(atPath: folder.path)
      .filter { $0.hasSuffix(suffix) }
      .sorted()
      .map { folder.appending(path: $0) }
  }
}
