import Foundation
import PackagePlugin

/// `swift package --allow-writing-to-package-directory generate-channels [--target <name>]…`
///
/// Writes `Generated/<Target>/` for every target that holds a `channelgen.yaml`: the committed,
/// reviewable copy of what the build plugin generates. `channelgen check` verifies it is current,
/// finding the targets through `Generated/targets.yaml`, which this command keeps up to date
/// (it is how `check` knows targets with a custom `path:`).
@main
struct ChannelGenCommandPlugin: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        var extractor = ArgumentExtractor(arguments)
        let requested = Set(extractor.extractOption(named: "target"))
        let tool = try context.tool(named: "channelgen")
        var generated = 0
        var index: [String: String] = [:]
        for case let target as SourceModuleTarget in context.package.targets {
            if !requested.isEmpty && !requested.contains(target.name) { continue }
            let config = target.directoryURL.appending(component: "channelgen.yaml")
            guard FileManager.default.fileExists(atPath: config.path(percentEncoded: false)) else { continue }
            let output = context.package.directoryURL.appending(components: "Generated", target.name)
            let process = Process()
            process.executableURL = tool.url
            process.arguments = [
                "generate", "--config", config.path(percentEncoded: false), "--output", output.path(percentEncoded: false),
            ]
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw CommandFailure("channelgen failed for target '\(target.name)' (exit \(process.terminationStatus))")
            }
            generated += 1
            index[target.name] = Self.relative(config, to: context.package.directoryURL)
        }
        if generated == 0 {
            throw CommandFailure("no target with a channelgen.yaml" + (requested.isEmpty ? "" : " among \(requested.sorted())"))
        }
        try Self.writeIndex(index, merging: !requested.isEmpty, in: context.package.directoryURL.appending(component: "Generated"))
    }

    /// `Generated/targets.yaml`: target → config, one line each, sorted; rewritten only when it changes.
    /// A run limited by `--target` keeps the other targets' lines.
    static func writeIndex(_ index: [String: String], merging: Bool, in folder: URL) throws {
        let file = folder.appending(component: "targets.yaml")
        var entries = index
        if merging, let existing = try? String(contentsOf: file, encoding: .utf8) {
            for line in existing.split(separator: "\n") where !line.hasPrefix("#") {
                guard let colon = line.firstIndex(of: ":") else { continue }
                let name = String(line[..<colon])
                if entries[name] == nil {
                    entries[name] = String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
                        .trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                }
            }
        }
        var text = "# Written by `swift package generate-channels`: each target with a channelgen.yaml, and its config.\n"
        for name in entries.keys.sorted() {
            let path = entries[name]!.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            text += "\(name): \"\(path)\"\n"
        }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        if (try? String(contentsOf: file, encoding: .utf8)) != text {
            try text.write(to: file, atomically: true, encoding: .utf8)
        }
    }

    static func relative(_ file: URL, to root: URL) -> String {
        let path = file.standardizedFileURL.path(percentEncoded: false), base = root.standardizedFileURL.path(percentEncoded: false)
        let prefix = base.hasSuffix("/") ? base : base + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }
}

struct CommandFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
