import Foundation
import PackagePlugin

/// `swift package --allow-writing-to-package-directory generate-channels [--target <name>]…`
///
/// Writes `Generated/<Target>/` for every target that holds a `channelgen.yaml`: the committed,
/// reviewable copy of what the build plugin generates. `channelgen check` verifies it is current.
@main
struct ChannelGenCommandPlugin: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        var extractor = ArgumentExtractor(arguments)
        let requested = Set(extractor.extractOption(named: "target"))
        let tool = try context.tool(named: "channelgen")
        var generated = 0
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
        }
        if generated == 0 {
            throw CommandFailure("no target with a channelgen.yaml" + (requested.isEmpty ? "" : " among \(requested.sorted())"))
        }
    }
}

struct CommandFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
