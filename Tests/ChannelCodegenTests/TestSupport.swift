import ChildProcessSupport
import Foundation
import Testing

/// Paths and process helpers shared by the generator tests.
enum TestSupport {
    /// The package root, found from this file's location so tests need no bundle resources.
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let fixtures = packageRoot.appendingPathComponent("Tests/ChannelCodegenTests/Fixtures")

    /// The folder holding the built products (`channelgen`, `Modules/`).
    static let productsDirectory: URL = {
        #if os(macOS)
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            return bundle.bundleURL.deletingLastPathComponent()
        }
        #endif
        return Bundle.main.bundleURL
    }()

    static var channelgen: URL { productsDirectory.appendingPathComponent("channelgen") }

    /// Runs a program to completion, capturing both streams (waited for off the cooperative pool);
    /// `background` for compilers and builds (see `ChildProcess.run`).
    static func run(_ executable: URL, _ arguments: [String], in directory: URL? = nil, background: Bool = false) async throws -> ChildProcess.Output {
        try await ChildProcess.run(executable, arguments, in: directory, background: background)
    }

    static func channelgen(_ arguments: [String], in directory: URL? = nil) async throws -> ChildProcess.Output {
        try await run(channelgen, arguments, in: directory)
    }

    /// `swiftc -typecheck` over `files`, with the built modules (ChannelRuntime) importable.
    static func typecheck(_ files: [URL]) async throws -> ChildProcess.Output {
        let modules = productsDirectory.appendingPathComponent("Modules")
        return try await run(
            URL(fileURLWithPath: "/usr/bin/env"),
            // Every file's errors, not only the first failing job's: a batch names each unit that fails.
            ["swiftc", "-typecheck", "-continue-building-after-errors", "-swift-version", "6", "-package-name", "channelgen", "-I", modules.path] + files.map(\.path),
            background: true)
    }

    /// Writes `text` as `name` in `work` with a `channelgen.yaml` naming it (plus `extra`), and
    /// generates into `work/out`.
    static func generate(spec text: String, named name: String, in work: URL, extra: String = "") async throws -> (result: ChildProcess.Output, output: URL) {
        let spec = work.appendingPathComponent(name)
        try text.write(to: spec, atomically: true, encoding: .utf8)
        let config = try writeConfig(in: work, spec: spec, extra: extra)
        let output = work.appendingPathComponent("out")
        return (try await channelgen(["generate", "--config", config.path, "--output", output.path, "--quiet"]), output)
    }

    /// The files of a generated client that compile without the app's own code (not `Mocks.swift`).
    static let clientSources = ["Models.swift", "Channels.swift", "Subscriptions.swift", "Notifier.swift"]

    /// Type-checks the client files `generate` wrote into `output`.
    static func typecheckClient(in output: URL) async throws -> ChildProcess.Output {
        try await typecheck(clientSources.map { output.appendingPathComponent($0) })
    }

    /// Builds the client files in `client` as module `module`, then type-checks `mocks` (generated
    /// with `clientModule: <module>`) against it: two modules, as a package builds them.
    static func typecheckMocks(_ mocks: URL, againstClientIn client: URL, named module: String, in work: URL) async throws
        -> (module: ChildProcess.Output, mocks: ChildProcess.Output)
    {
        let modules = productsDirectory.appendingPathComponent("Modules").path
        let built = try await run(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["swiftc", "-emit-module", "-parse-as-library", "-module-name", module, "-swift-version", "6", "-package-name", "channelgen", "-I", modules,
             "-emit-module-path", work.appendingPathComponent("\(module).swiftmodule").path] + clientSources.map { client.appendingPathComponent($0).path },
            background: true)
        let checked = try await run(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["swiftc", "-typecheck", "-swift-version", "6", "-package-name", "channelgen", "-I", modules, "-I", work.path, mocks.path],
            background: true)
        return (built, checked)
    }

    /// The default layout of a client and its mocks: `spec` in `work`, `<module>/channelgen.yaml`
    /// (`spec: ../spec.yaml` plus `clientConfig`) and `<module>Testing/channelgen.yaml` (mocks, no
    /// other setting), each generated into `out/<folder>`; the mocks type-checked against the client
    /// built as `module`. Returns the mocks file and the type-check.
    static func generateClientAndMocks(spec: String, clientConfig: String, module: String, in work: URL) async throws
        -> (mocks: URL, checked: (module: ChildProcess.Output, mocks: ChildProcess.Output))
    {
        try spec.write(to: work.appendingPathComponent("spec.yaml"), atomically: true, encoding: .utf8)
        let configs = [module: "spec: ../spec.yaml\n" + clientConfig, module + "Testing": "spec: ../spec.yaml\ngenerate: mocks\nclientModule: \(module)\n"]
        for folder in [module, module + "Testing"] {
            try FileManager.default.createDirectory(at: work.appendingPathComponent(folder), withIntermediateDirectories: true)
            try configs[folder]!.write(to: work.appendingPathComponent("\(folder)/channelgen.yaml"), atomically: true, encoding: .utf8)
            let result = try await channelgen([
                "generate", "--config", work.appendingPathComponent("\(folder)/channelgen.yaml").path,
                "--output", work.appendingPathComponent("out/\(folder)").path, "--quiet",
            ])
            #expect(result.status == 0, "\(result.stderr)")
        }
        let mocks = work.appendingPathComponent("out/\(module)Testing/Mocks.swift")
        let checked = try await typecheckMocks(mocks, againstClientIn: work.appendingPathComponent("out/\(module)"), named: module, in: work)
        return (mocks, checked)
    }

    /// Compiles generated models with a `main.swift` into a program and returns what it prints.
    /// The models, `JSONValue`, `ISO8601` (for unions, untyped values and dates) and the runtime's
    /// payload decoder (`ScannerDecoding`) are built as one module named `ChannelRuntime`, so the
    /// models' `import ChannelRuntime` needs no built runtime.
    static func runProgram(models: URL, main mainFile: URL, in work: URL) async throws -> (build: ChildProcess.Output, stdout: String) {
        try await runProgram(models: [models], main: mainFile, in: work)
    }

    /// Writes `main` as `main.swift` in `work` and runs it with the `Models.swift` that `generate`
    /// wrote into `output`.
    static func runProgram(main: String, withModelsIn output: URL, in work: URL) async throws -> (build: ChildProcess.Output, stdout: String) {
        let file = work.appendingPathComponent("main.swift")
        try main.write(to: file, atomically: true, encoding: .utf8)
        return try await runProgram(models: output.appendingPathComponent("Models.swift"), main: file, in: work)
    }

    /// `runProgram` with several model files (each generation in its own namespace).
    static func runProgram(models: [URL], main mainFile: URL, in work: URL) async throws -> (build: ChildProcess.Output, stdout: String) {
        let binary = work.appendingPathComponent("program")
        let runtime = ["Sources/ChannelRuntime/JSONValue.swift", "Sources/ChannelRuntime/ISO8601.swift"]
            + ["JSONReader", "JSONReader+Numbers", "JSONScanner", "ScannerDecoder", "ISO8601DateReader"].map { "Sources/ChannelRuntime/JSON/\($0).swift" }
        let sources = models.map(\.path) + runtime.map { packageRoot.appendingPathComponent($0).path }
        let build = try await run(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["swiftc", "-swift-version", "6", "-package-name", "channelgen", "-module-name", "ChannelRuntime"] + sources + [mainFile.path, "-o", binary.path],
            background: true)
        guard build.status == 0 else { return (build, "") }
        return (build, try await run(binary, []).stdout)
    }

    /// A fresh temporary folder, removed by the caller with `removeItem`.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("channelgen-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Writes a `channelgen.yaml` naming `spec` and returns its path.
    static func writeConfig(in directory: URL, spec: URL, extra: String = "") throws -> URL {
        let config = directory.appendingPathComponent("channelgen.yaml")
        try "spec: \(spec.path)\n\(extra)".write(to: config, atomically: true, encoding: .utf8)
        return config
    }

    static func contents(_ url: URL) throws -> String {
        try String(contentsOf: url, encoding: .utf8)
    }

    static func modificationDate(_ url: URL) throws -> Date? {
        try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date
    }

    static func setModificationDate(_ date: Date, of url: URL) throws {
        try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: url.path)
    }
}
