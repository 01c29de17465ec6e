import ChannelSpec
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Which targets `check` compares with `Generated/`: the same set the plugins use, the targets with a
/// `channelgen.yaml`. The plugins learn it from SwiftPM; `check` cannot ask SwiftPM (a nested
/// `swift package` call would wait on the build lock under `swift run`), so `generate-channels`
/// records it in `Generated/targets.yaml`, and `check` reads that, falling back to the default
/// layout `Sources/<Target>/channelgen.yaml`. A config found anywhere else in the package is an error,
/// never a silent pass.
struct GeneratedTarget: Equatable {
    var name: String
    /// The config's path relative to the package root.
    var config: String
}

enum TargetDiscovery {
    static let index = "Generated/targets.yaml"

    static func targets(inPackage root: String) -> (targets: [GeneratedTarget], diagnostics: [Diagnostic]) {
        var targets: [GeneratedTarget] = []
        var diagnostics: [Diagnostic] = []
        let indexPath = FilePath.appending(root, index)
        if let text = try? String(contentsOfFile: indexPath, encoding: .utf8) {
            do {
                let node = try YAMLLoader.load(text, file: index)
                for entry in node.entries ?? [] {
                    guard let config = entry.value.string else {
                        diagnostics.append(.error("the config path of target '\(entry.key)' must be a string", at: entry.value.location))
                        continue
                    }
                    targets.append(GeneratedTarget(name: entry.key, config: config))
                }
            } catch {
                diagnostics += error.diagnostics
            }
        }
        let sources = FilePath.appending(root, "Sources")
        for folder in ((try? FileManager.default.contentsOfDirectory(atPath: sources)) ?? []).sorted()
        where !targets.contains(where: { $0.name == folder }) {
            let config = "Sources/\(folder)/channelgen.yaml"
            if FileManager.default.fileExists(atPath: FilePath.appending(root, config)) {
                targets.append(GeneratedTarget(name: folder, config: config))
            }
        }
        targets.sort { $0.name < $1.name }

        let known = Set(targets.map { FilePath.normalize($0.config) })
        for config in configs(under: root) where !known.contains(config) {
            diagnostics.append(.error(
                "no target `check` knows uses this config; run `swift package --allow-writing-to-package-directory generate-channels` "
                    + "to record it in \(index) (targets with a custom `path:` are found only through it)",
                at: SourceLocation(file: config, line: 1, column: 1)))
        }
        for target in targets {
            let folder = FilePath.directory(of: FilePath.appending(root, target.config))
            let files = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            if !files.contains(where: { $0.hasSuffix(".swift") }) {
                diagnostics.append(.error(
                    "target '\(target.name)' has no Swift file, so SwiftPM skips it and nothing is generated; add one, "
                        + "e.g. \(FilePath.directory(of: target.config))/\(target.name).swift containing `@_exported import ChannelRuntime`",
                    at: SourceLocation(file: target.config, line: 1, column: 1)))
            }
        }
        return (targets, diagnostics)
    }

    /// Every `channelgen.yaml` in the package, relative to its root; hidden folders (`.build`, `.git`)
    /// and nested packages (a folder with its own `Package.swift`, such as `Benchmarks/`) skipped.
    static func configs(under root: String) -> [String] {
        var found: [String] = []
        var folders = [""]  // relative to root
        while let folder = folders.popLast() {
            let absolute = folder.isEmpty ? root : FilePath.appending(root, folder)
            for name in (try? FileManager.default.contentsOfDirectory(atPath: absolute)) ?? [] where !name.hasPrefix(".") {
                let relative = folder.isEmpty ? name : folder + "/" + name
                let path = FilePath.appending(root, relative)
                if name == "channelgen.yaml" {
                    found.append(FilePath.normalize(relative))
                } else if FileSystem.isDirectory(path) == true, !FileSystem.isSymbolicLink(path),
                          !FileManager.default.fileExists(atPath: FilePath.appending(path, "Package.swift")) {
                    folders.append(relative)
                }
            }
        }
        return found.sorted()
    }
}
