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
              channelgen diff old.yaml new.yaml
              channelgen diff --base main                 (the spec of the package's client target, as it was at main)
              channelgen diff --base HEAD~1 --config Sources/App/channelgen.yaml --format markdown
            Exit status: 0 no breaking change, 1 a breaking change (wire or source), 2 an error.
            """)

    @Argument(help: "The old and the new spec (omit with --base).")
    var specs: [String] = []

    @Option(help: "Compare the spec at this git revision with the working copy's.")
    var base: String?

    @Option(help: "The channelgen.yaml naming the spec (default with --base: the package's first client target).")
    var config: String?

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
            guard specs.isEmpty else { throw DiffFailure(diagnostics: [.error("pass either two specs or --base, not both", at: nil)]) }
            let newConfig = try loadConfig()
            let old: SpecAtRevision
            do {
                old = try SpecAtRevision.extract(specPath: newConfig.specPath, allowedFolder: newConfig.allowedFolder, revision: base)
            } catch {
                throw DiffFailure(diagnostics: [.error(error.description, at: newConfig.specLocation)])
            }
            defer { old.remove() }
            return try changes(old.changes(to: newConfig))
        }
        guard specs.count == 2 else {
            throw DiffFailure(diagnostics: [.error("pass the old and the new spec, or --base <git revision>", at: nil)])
        }
        var oldConfig = config == nil ? GeneratorConfig(specPath: specs[0]) : try loadConfig()
        var newConfig = oldConfig
        oldConfig.specPath = specs[0]
        newConfig.specPath = specs[1]
        oldConfig.allowedFolder = nil
        newConfig.allowedFolder = nil
        return try compare(oldConfig, newConfig)
    }

    private func compare(_ old: GeneratorConfig, _ new: GeneratorConfig) throws(DiffFailure) -> [SpecChange] {
        try changes(SpecDiff.compare(old: old, new: new))
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

    private func loadConfig() throws(DiffFailure) -> GeneratorConfig {
        let path: String
        if let config {
            path = config
        } else {
            let (targets, problems) = TargetDiscovery.targets(inPackage: packagePath)
            if problems.contains(where: { $0.severity == .error }) { throw DiffFailure(diagnostics: problems) }
            let client = targets.map { FilePath.appending(packagePath, $0.config) }
                .first { (try? GeneratorConfig.load(from: $0))?.mode == .client }
            guard let client else {
                throw DiffFailure(diagnostics: [.error("no client target with a channelgen.yaml under '\(packagePath)'; pass --config", at: nil)])
            }
            path = client
        }
        do {
            return try GeneratorConfig.load(from: path)
        } catch {
            throw DiffFailure(diagnostics: error.diagnostics)
        }
    }
}
