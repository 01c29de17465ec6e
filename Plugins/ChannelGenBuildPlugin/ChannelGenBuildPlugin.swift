import Foundation
import PackagePlugin

/// Runs `channelgen generate` for a target that holds a `channelgen.yaml`.
///
/// Inputs are the config, every YAML/JSON file in the spec's folder (and below), and every file
/// the last generation read wherever it lives in the package (`channelgen` records them with
/// `--inputs-record`), with the YAML/JSON files beside them so files added there later count too.
/// Editing any of them reruns generation; a build with no change does not. Hidden folders (`.build`,
/// `.git`, …) are never walked. SwiftPM needs the output files named up front, so the set is fixed;
/// see `ChannelCodegen.OutputFile`.
@main
struct ChannelGenBuildPlugin: BuildToolPlugin {
    static let configFileName = "channelgen.yaml"
    static let outputFiles = ["Models.swift", "Channels.swift", "Subscriptions.swift", "Notifier.swift", "Mocks.swift"]

    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let config = target.directoryURL.appending(component: Self.configFileName)
        guard FileManager.default.fileExists(atPath: config.path(percentEncoded: false)) else {
            throw PluginFailure("target '\(target.name)' applies ChannelGenBuildPlugin but has no \(Self.configFileName) in \(target.directoryURL.path(percentEncoded: false))")
        }
        return try Self.commands(config: config, targetName: target.name, tool: context.tool(named: "channelgen").url, workDirectory: context.pluginWorkDirectoryURL)
    }

    static func commands(config: URL, targetName: String, tool: URL, workDirectory: URL) throws -> [Command] {
        let output = workDirectory.appending(component: "GeneratedSources")
        let record = workDirectory.appending(component: "channelgen-inputs.txt")
        let declared = workDirectory.appending(component: "channelgen-declared-inputs.txt")
        let specFiles = Set(try specFiles(configuredIn: config) + recordedInputs(record)).sorted { $0.path < $1.path }
        if !FileManager.default.fileExists(atPath: record.path(percentEncoded: false)) {
            try Data().write(to: record)  // a declared input must exist; the first run fills it in
        }
        // What this plan watches, for the generator to compare with what it reads (see `--declared-inputs`).
        try (([config] + specFiles).map { $0.path(percentEncoded: false) }.joined(separator: "\n") + "\n")
            .write(to: declared, atomically: true, encoding: .utf8)
        return [
            .buildCommand(
                displayName: "Generating channel client for \(targetName)",
                executable: tool,
                arguments: [
                    "generate",
                    "--config", config.path(percentEncoded: false),
                    "--output", output.path(percentEncoded: false),
                    "--inputs-record", record.path(percentEncoded: false),
                    "--declared-inputs", declared.path(percentEncoded: false),
                    "--quiet",
                ],
                // The record is an input too: the generator touches it while this plan misses a file it
                // read, so every build reruns it until SwiftPM plans again (which it does only when a
                // target's folder structure or a manifest changes) and picks the file up from the record.
                inputFiles: [config, record] + specFiles,
                outputFiles: outputFiles.map { output.appending(component: $0) }
            )
        ]
    }

    /// Every spec file generation may read: the folder of the config's `spec:` file, recursively.
    /// The config's `spec:` line is read directly so the plugin needs no YAML parser.
    static func specFiles(configuredIn config: URL) throws -> [URL] {
        let text = try String(contentsOf: config, encoding: .utf8)
        guard let specPath = text.split(whereSeparator: \.isNewline).lazy.compactMap(specValue).first else {
            return []  // channelgen reports the missing key with its location.
        }
        let spec = URL(fileURLWithPath: specPath, relativeTo: config.deletingLastPathComponent()).standardizedFileURL
        var files = specDocuments(in: spec.deletingLastPathComponent(), recursive: true)
        if !files.contains(spec) { files.append(spec) }
        return files.sorted { $0.path < $1.path }
    }

    /// The files the last run read (none before the first run), and the spec documents beside them.
    static func recordedInputs(_ record: URL) -> [URL] {
        guard let text = try? String(contentsOf: record, encoding: .utf8) else { return [] }
        let files = text.split(whereSeparator: \.isNewline).map { URL(fileURLWithPath: String($0)).standardizedFileURL }
            .filter { FileManager.default.fileExists(atPath: $0.path(percentEncoded: false)) }
        let folders = Set(files.map { $0.deletingLastPathComponent() })
        return files + folders.flatMap { specDocuments(in: $0, recursive: false) }
    }

    /// YAML and JSON files in `folder`, skipping hidden files and folders (`.build`, `.git`, `.swiftpm`).
    static func specDocuments(in folder: URL, recursive: Bool) -> [URL] {
        let options: FileManager.DirectoryEnumerationOptions = recursive ? [.skipsHiddenFiles] : [.skipsHiddenFiles, .skipsSubdirectoryDescendants]
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil, options: options) else { return [] }
        var files: [URL] = []
        for case let url as URL in walker where ["yaml", "yml", "json"].contains(url.pathExtension) && url.lastPathComponent != "Package.resolved" {
            files.append(url.standardizedFileURL)
        }
        return files
    }

    private static func specValue(_ line: Substring) -> String? {
        guard line.hasPrefix("spec:") else { return nil }
        var value = line.dropFirst("spec:".count)
        if let comment = value.range(of: " #") { value = value[..<comment.lowerBound] }
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        let unquoted = trimmed.trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
        return unquoted.isEmpty ? nil : unquoted
    }
}

#if canImport(XcodeProjectPlugin)
import XcodeProjectPlugin

/// Xcode app projects: add `channelgen.yaml` to the target's files; the spec path in it is relative
/// to the config, as in packages.
extension ChannelGenBuildPlugin: XcodeBuildToolPlugin {
    func createBuildCommands(context: XcodePluginContext, target: XcodeTarget) throws -> [Command] {
        guard let config = target.inputFiles.first(where: { $0.url.lastPathComponent == Self.configFileName })?.url else {
            throw PluginFailure("Xcode target '\(target.displayName)' applies ChannelGenBuildPlugin but has no \(Self.configFileName) among its files")
        }
        return try Self.commands(config: config, targetName: target.displayName, tool: context.tool(named: "channelgen").url, workDirectory: context.pluginWorkDirectoryURL)
    }
}
#endif

struct PluginFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
