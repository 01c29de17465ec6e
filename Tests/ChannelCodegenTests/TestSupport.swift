import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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

    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs a program to completion, capturing both streams.
    ///
    /// `posix_spawn` + `waitpid` rather than Foundation's `Process`: output goes to temporary files
    /// (no pipes a concurrently spawned child could inherit and hold open), and `waitpid` cannot
    /// miss an exit the way a run-loop monitor can when many tests spawn processes in parallel.
    static func run(_ executable: URL, _ arguments: [String], in directory: URL? = nil) throws -> Output {
        if let directory {
            // posix_spawn has no portable chdir action; a shell changes folder, then becomes the program.
            return try run(URL(fileURLWithPath: "/bin/sh"), ["-c", "cd \"$0\" && exec \"$@\"", directory.path, executable.path] + arguments)
        }
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let outPath = folder.appendingPathComponent("stdout").path, errPath = folder.appendingPathComponent("stderr").path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable.path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, executable.path, &actions, nil, argv, environ)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EINVAL) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        // WIFEXITED / WEXITSTATUS; a signal death reports 128 + signal, as shells do.
        let exitStatus = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return Output(status: exitStatus, stdout: try contents(URL(fileURLWithPath: outPath)), stderr: try contents(URL(fileURLWithPath: errPath)))
    }

    static func channelgen(_ arguments: [String], in directory: URL? = nil) throws -> Output {
        try run(channelgen, arguments, in: directory)
    }

    /// `swiftc -typecheck` over `files`, with the built modules (ChannelRuntime) importable.
    static func typecheck(_ files: [URL]) throws -> Output {
        let modules = productsDirectory.appendingPathComponent("Modules")
        return try run(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["swiftc", "-typecheck", "-swift-version", "6", "-I", modules.path] + files.map(\.path))
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
