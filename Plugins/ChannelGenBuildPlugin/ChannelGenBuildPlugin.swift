import Foundation
import PackagePlugin

/// Runs `channelgen generate` for a target that holds a `channelgen.yaml`.
///
/// Inputs are the config and every YAML/JSON file in the spec's folder (and below), so editing
/// anything there reruns generation while a build with no change does not. SwiftPM needs the
/// output files named up front, so the set is fixed; see `ChannelCodegen.OutputFile`.
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
        let specFiles = try specFiles(configuredIn: config)
        return [
            .buildCommand(
                displayName: "Generating channel client for \(targetName)",
                executable: tool,
                arguments: [
                    "generate",
                    "--config", config.path(percentEncoded: false),
                    "--output", output.path(percentEncoded: false),
                    "--quiet",
                ],
                inputFiles: [config] + specFiles,
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
        let folder = spec.deletingLastPathComponent()
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else {
            return [spec]
        }
        var files: [URL] = []
        for case let url as URL in walker where ["yaml", "yml", "json"].contains(url.pathExtension) {
            files.append(url.standardizedFileURL)
        }
        if !files.contains(spec) { files.append(spec) }
        return files.sorted { $0.path < $1.path }
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
