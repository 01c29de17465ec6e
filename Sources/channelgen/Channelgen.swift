import ArgumentParser
import ChannelCodegen
import ChannelSpec
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

@main
struct Channelgen: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "channelgen",
        abstract: "Generate a typed Swift client for real-time channels from an AsyncAPI 3.0 (3.1, or 2.x) spec.",
        subcommands: [Generate.self, Check.self, Lint.self, Diff.self]
    )

    /// ArgumentParser's own `main`, except that `diff` reports a usage error with its documented
    /// exit status 2 (1 means "a breaking change", so CI scripts can tell the two apart).
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            if CommandLine.arguments.dropFirst().first == "diff", exitCode(for: error) == .validationFailure {
                Console.writeError(fullMessage(for: error) + "\n")
                exit(withError: ExitCode(2))
            }
            exit(withError: error)
        }
    }
}

/// Prints diagnostics to stderr in the compiler format; true when any is an error.
func report(_ diagnostics: [Diagnostic]) -> Bool {
    for diagnostic in diagnostics {
        Console.writeError(diagnostic.description + "\n")
    }
    return diagnostics.contains { $0.severity == .error }
}

struct Generate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Generate Swift from a channelgen.yaml; write only files whose bytes change.")

    @Option(help: "The target's channelgen.yaml.")
    var config: String

    @Option(help: "The folder to write \(OutputFile.allCases.map(\.rawValue).joined(separator: ", ")) into (always all of them: a file the config's `generate:` does not ask for holds a comment).")
    var output: String

    @Flag(help: "Print nothing but diagnostics.")
    var quiet = false

    @Option(help: ArgumentHelp(
        "Write the files the spec graph read to this file, one path per line (the build plugin declares them as inputs).",
        valueName: "file"))
    var inputsRecord: String?

    @Option(help: ArgumentHelp(
        "The files the build system watches, one per line: when the spec read others, the inputs record is touched so the next build runs again.",
        valueName: "file"))
    var declaredInputs: String?

    func run() throws {
        let result = Generator.generate(configAt: config)
        // Recorded on failure too: a broken file that is fixed must rerun the next build.
        if let inputsRecord {
            let watched = declaredInputs.flatMap { try? String(contentsOfFile: $0, encoding: .utf8) }
                .map { Set($0.split(separator: "\n").map { FilePath.normalize(String($0)) }) }
            writeInputsRecord(result.inputs, to: inputsRecord, watched: watched)
        }
        let failed = report(result.diagnostics)
        guard !failed, let files = result.files else { throw ExitCode(1) }
        let written: GeneratedFileWriter.Report
        do {
            written = try GeneratedFileWriter.write(files, to: output)
        } catch {
            _ = report([.error(error.description, at: nil)])
            throw ExitCode(1)
        }
        if !quiet {
            print("channelgen: \(files.count) files in \(output) (\(written.written.count) written, \(written.unchanged.count) unchanged\(written.removed.isEmpty ? "" : ", \(written.removed.joined(separator: ", ")) removed: no longer generated"))")
        }
        // Done: exit while still holding what the files were rendered from; the process ends
        // anyway, and freeing it is measurable on large specs (Benchmarks/README.md).
        withExtendedLifetime(result) { Self.exit() }
    }
}

/// Absolute paths, one per line, written only when they change, or also when `watched` (what the
/// build system's current plan watches) misses one of them: the new modification time makes the next
/// build run the generator again, until a new plan watches every file.
func writeInputsRecord(_ inputs: [String], to path: String, watched: Set<String>?) {
    let base = FileManager.default.currentDirectoryPath
    let lines = inputs.map { $0.hasPrefix("/") ? $0 : FilePath.appending(base, $0) }
        .map { FilePath.normalize($0) }
    let text = Set(lines).sorted().joined(separator: "\n") + "\n"
    let planIsStale = watched.map { watched in lines.contains { !watched.contains($0) } } ?? false
    guard planIsStale || FileManager.default.contents(atPath: path) != Data(text.utf8) else { return }
    do {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    } catch {
        _ = report([.warning("cannot record the spec's input files in '\(path)': \(error)", at: nil)])
    }
}

struct Lint: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Parse, resolve and validate a spec; exit 0 when it would generate, 1 when it has errors.")

    @Argument(help: "The AsyncAPI document.")
    var spec: String

    @Flag(help: "Constructs outside what channelgen generates are errors (by default their channel is skipped with warnings).")
    var strict = false

    @Flag(help: "Check the payload models alone, as `generate: models` does (any protocol; no channel rules).")
    var models = false

    @Option(help: "The transport whose channel rules addresses are checked by: appsync (default) or sse, as `transport:` in channelgen.yaml.")
    var transport: GeneratorConfig.Transport = .appsync

    func run() throws {
        var config = GeneratorConfig(specPath: spec, mode: models ? .models : .client)
        config.strict = strict
        config.transport = transport
        let result = Generator.generate(config: config)
        if report(result.diagnostics) { throw ExitCode(1) }
    }
}

struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Regenerate every target with a channelgen.yaml (Generated/targets.yaml, or Sources/<Target>/) and compare with Generated/<Target>/.",
        discussion: "Exits 0 when Generated/ is current, 1 with a unified diff when it is not.")

    @Option(help: "The package root.")
    var packagePath = "."

    func run() throws {
        let generatedRoot = FilePath.appending(packagePath, "Generated")
        let (targets, problems) = TargetDiscovery.targets(inPackage: packagePath)
        if report(problems) { throw ExitCode(1) }
        guard !targets.isEmpty else {
            _ = report([.error("no target with a channelgen.yaml under '\(packagePath)' (looked in \(TargetDiscovery.index) and Sources/<Target>/)", at: nil)])
            throw ExitCode(1)
        }
        var stale = false
        for target in targets.map(\.name) {
            let config = targets.first { $0.name == target }!.config
            let result = Generator.generate(configAt: FilePath.appending(packagePath, config))
            if report(result.diagnostics) { throw ExitCode(1) }
            let folder = "\(generatedRoot)/\(target)"
            var expected = Set<String>()
            var summarized = false
            for file in result.files ?? [] {
                expected.insert(file.name)
                let path = "\(folder)/\(file.name)"
                let current = FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
                if current != file.contents {
                    stale = true
                    if !summarized {
                        summarized = true
                        printSemanticSummary(configPath: FilePath.appending(packagePath, config), target: target)
                    }
                    let relative = "Generated/\(target)/\(file.name)"
                    print(UnifiedDiff.render(old: current ?? "", new: file.contents, oldName: current == nil ? "/dev/null" : "a/" + relative, newName: "b/" + relative))
                }
            }
            let present = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".swift") }
            for extra in present.sorted() where !expected.contains(extra) {
                stale = true
                print("Generated/\(target)/\(extra): not generated any more; delete it")
            }
        }
        if stale {
            Console.writeError("""
                error: Generated/ is out of date with spec/. Regenerate it with
                  swift package --allow-writing-to-package-directory generate-channels

                """)
            throw ExitCode(1)
        }
        print("channelgen: Generated/ is current (\(targets.map(\.name).joined(separator: ", ")))")
    }
}

extension Check {
    /// What the spec change means for apps, above the unified diff: `channelgen diff --base HEAD`
    /// for the target's spec. Said in one line when it cannot be told (no git, a new spec).
    func printSemanticSummary(configPath: String, target: String) {
        guard let config = try? GeneratorConfig.load(from: configPath), config.mode == .client else { return }
        let old: SpecAtRevision
        do {
            old = try SpecAtRevision.extract(specPath: config.specPath, allowedFolder: config.allowedFolder, config: configPath, revision: "HEAD")
        } catch {
            print("\(target): no semantic summary (\(error.description))")
            return
        }
        defer { old.remove() }
        // Each side with its own config: a rename made in `names:` is a change too.
        guard let oldConfig = try? old.config(at: configPath, else: config), case .success(let changes) = old.changes(from: oldConfig, to: config) else {
            print("\(target): no semantic summary (the spec at HEAD does not generate)")
            return
        }
        print("\(target): spec changes since HEAD (channelgen diff --base HEAD)")
        print(DiffReport.render(changes, format: .text))
    }
}

extension GeneratorConfig.Transport: ExpressibleByArgument {}
