import ArgumentParser
import ChannelCodegen
import ChannelSpec
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension DiffReport.Format: ExpressibleByArgument {}

struct Diff: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Report what a spec change breaks, for apps already shipped (wire) and for app code (source).",
        discussion: """
            Compares the resolved specs, not their text: reordering keys or editing descriptions reports nothing.
            Each side is read with its own channelgen.yaml, so a change made in the config (names:, notifier:,
            transport:, generate:, perspective:, accessModifier:) is judged as a spec change is; which config
            each side used is said on standard error.
              channelgen diff old.yaml new.yaml           (each with the channelgen.yaml naming it, else the defaults)
              channelgen diff old.yaml new.yaml --old-config old/channelgen.yaml --new-config Sources/App/channelgen.yaml
              channelgen diff --base main                 (the client target's spec and config as they were at main)
              channelgen diff --base HEAD~1 --config Sources/App/channelgen.yaml --format markdown
            Exit status: 0 no breaking change, 1 a breaking change (wire or source), 2 an error.
            """)

    @Argument(help: "The old and the new spec (omit with --base).")
    var specs: [String] = []

    @Option(help: "Compare the spec at this git revision with the working copy's.")
    var base: String?

    @Option(help: "The channelgen.yaml naming the spec (default with --base: the package's first client target); with two specs, both sides'.")
    var config: String?

    @Option(help: "With two specs: the old side's channelgen.yaml (default: the one naming the old spec, else the defaults).")
    var oldConfig: String?

    @Option(help: "With two specs: the new side's channelgen.yaml (default: the one naming the new spec, else the defaults).")
    var newConfig: String?

    @Option(help: "The package root (to find the targets' configs).")
    var packagePath = "."

    @Option(help: "text, markdown (a pull-request comment) or json.")
    var format: DiffReport.Format = .text

    func run() throws {
        do {
            let changes = try changes()
            print(DiffReport.render(changes, format: format), terminator: "")
            if changes.contains(where: \.isBreaking) { throw ExitCode(1) }
        } catch let failure as DiffFailure {
            _ = report(failure.diagnostics)
            throw ExitCode(2)
        }
    }

    struct DiffFailure: Error {
        var diagnostics: [Diagnostic]
    }

    private func changes() throws(DiffFailure) -> [SpecChange] {
        if let base {
            guard specs.isEmpty, oldConfig == nil, newConfig == nil else {
                throw DiffFailure(diagnostics: [.error("pass either two specs (and their configs) or --base, not both", at: nil)])
            }
            let (configPath, newConfig) = try loadConfig()
            let old: SpecAtRevision
            do {
                old = try SpecAtRevision.extract(specPath: newConfig.specPath, allowedFolder: newConfig.allowedFolder, config: configPath, revision: base)
            } catch {
                throw DiffFailure(diagnostics: [.error(error.description, at: newConfig.specLocation)])
            }
            defer { old.remove() }
            let oldConfig: GeneratorConfig
            do {
                oldConfig = try old.config(at: configPath, else: newConfig)
            } catch {
                throw DiffFailure(diagnostics: error.diagnostics.map { old.displayed($0) })
            }
            Console.writeError(oldConfig.keyLocations.isEmpty && !newConfig.keyLocations.isEmpty
                ? "note: \(configPath) did not exist at \(base): the old spec is read with today's config\n"
                : "note: each side is read with its own \(configPath) (at \(base), and today's)\n")
            return try changes(old.changes(from: oldConfig, to: newConfig))
        }
        guard specs.count == 2 else {
            throw DiffFailure(diagnostics: [.error("pass the old and the new spec, or --base <git revision>", at: nil)])
        }
        guard config == nil || (oldConfig == nil && newConfig == nil) else {
            throw DiffFailure(diagnostics: [.error("pass --config (both sides) or --old-config and --new-config, not both", at: nil)])
        }
        let old = try sideConfig(spec: specs[0], explicit: oldConfig ?? config, side: "old")
        let new = try sideConfig(spec: specs[1], explicit: newConfig ?? config, side: "new")
        return try changes(SpecDiff.compare(old: old, new: new))
    }

    /// One side of the two-spec form: `spec` read with `explicit` when given, else with the package's
    /// `channelgen.yaml` that names it (or one beside it), else with the defaults; said on standard error.
    private func sideConfig(spec: String, explicit: String?, side: String) throws(DiffFailure) -> GeneratorConfig {
        var path = explicit
        if path == nil {
            let absolute = FilePath.normalize(FilePath.absolute(spec))
            let candidates = (TargetDiscovery.configs(under: packagePath).map { FilePath.appending(packagePath, $0) }
                + [FilePath.appending(FilePath.directory(of: spec), "channelgen.yaml")]).map(FilePath.normalize)
            path = candidates.first { candidate in
                (try? GeneratorConfig.load(from: candidate)).map { FilePath.normalize(FilePath.absolute($0.specPath)) == absolute } ?? false
            }
        }
        guard let path else {
            Console.writeError("note: the \(side) spec \(spec) is read with the default settings (no channelgen.yaml names it; pass --\(side)-config)\n")
            return GeneratorConfig(specPath: spec)
        }
        var config: GeneratorConfig
        do {
            config = try GeneratorConfig.load(from: path)
        } catch {
            throw DiffFailure(diagnostics: error.diagnostics)
        }
        Console.writeError("note: the \(side) spec \(spec) is read with \(path)\n")
        config.specPath = spec
        config.allowedFolder = nil
        return config
    }

    private func changes(_ result: Result<[SpecChange], SpecDiffFailure>) throws(DiffFailure) -> [SpecChange] {
        switch result {
        case .success(let changes):
            return changes
        case .failure(let failure):
            let note = Diagnostic.error("the \(failure.side.rawValue) spec does not generate; nothing to compare", at: nil)
            throw DiffFailure(diagnostics: failure.diagnostics + [note])
        }
    }

    private func loadConfig() throws(DiffFailure) -> (path: String, config: GeneratorConfig) {
        let path: String
        if let config {
            path = config
        } else {
            let (targets, problems) = TargetDiscovery.targets(inPackage: packagePath)
            if problems.contains(where: { $0.severity == .error }) { throw DiffFailure(diagnostics: problems) }
            // The client target, else one generating models (a client that became one is still compared).
            let configs = targets.map { FilePath.normalize(FilePath.appending(packagePath, $0.config)) }
            let modes = configs.map { (try? GeneratorConfig.load(from: $0))?.mode }
            guard let index = modes.firstIndex(of: .client) ?? modes.firstIndex(of: .models) else {
                throw DiffFailure(diagnostics: [.error("no client target with a channelgen.yaml under '\(packagePath)'; pass --config", at: nil)])
            }
            path = configs[index]
        }
        do {
            return (path, try GeneratorConfig.load(from: path))
        } catch {
            throw DiffFailure(diagnostics: error.diagnostics)
        }
    }
}
