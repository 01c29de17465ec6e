import Foundation

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

    /// Runs a program to completion, capturing both streams (read concurrently so neither pipe fills).
    static func run(_ executable: URL, _ arguments: [String], in directory: URL? = nil) throws -> Output {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let group = DispatchGroup()
        nonisolated(unsafe) var outData = Data(), errData = Data()
        DispatchQueue.global().async(group: group) { outData = out.fileHandleForReading.readDataToEndOfFile() }
        DispatchQueue.global().async(group: group) { errData = err.fileHandleForReading.readDataToEndOfFile() }
        group.wait()
        process.waitUntilExit()
        return Output(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self), stderr: String(decoding: errData, as: UTF8.self))
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
