import ChildProcessSupport
import Foundation
import Testing

/// The runtime libraries' public API, declaration by declaration, against the baseline committed in
/// `Tests/APIBaseline/`: a public declaration added, removed or changed fails this test until the
/// baseline is updated with it, so the surface grows only by a reviewed decision. Update it with
/// `CHANNELGEN_UPDATE_API=1 swift test --filter PublicAPITests` and review the diff.
///
/// Linux only: Foundation's API differs by platform, and so would the symbols that mention it.
@Suite("Public API")
struct PublicAPITests {
    static let modules = ["ChannelRuntime", "ChannelTransports", "AppSyncRuntime", "SSERuntime", "ChannelStreams", "ChannelRuntimeTesting", "NIOChannelTransports", "URLSessionChannelTransports"]
    static let baselines = TestSupport.packageRoot.appendingPathComponent("Tests/APIBaseline")

    #if os(Linux)
    static let isLinux = true
    #else
    static let isLinux = false
    #endif

    @Test(.enabled(if: isLinux), arguments: modules)
    func publicDeclarationsMatchTheBaseline(_ module: String) async throws {
        let current = try await Self.publicDeclarations(of: module)
        #expect(!current.isEmpty, "no symbols read for \(module)")
        let baseline = Self.baselines.appendingPathComponent("\(module).txt")
        if ProcessInfo.processInfo.environment["CHANNELGEN_UPDATE_API"] != nil {
            try FileManager.default.createDirectory(at: Self.baselines, withIntermediateDirectories: true)
            try (current.joined(separator: "\n") + "\n").write(to: baseline, atomically: true, encoding: .utf8)
            return
        }
        let committed = try String(contentsOf: baseline, encoding: .utf8).split(separator: "\n").map(String.init)
        let added = current.filter { !Set(committed).contains($0) }
        let removed = committed.filter { !Set(current).contains($0) }
        #expect(added.isEmpty && removed.isEmpty, """
            \(module)'s public API changed. Added:
            \(added.map { "+ " + $0 }.joined(separator: "\n"))
            Removed:
            \(removed.map { "- " + $0 }.joined(separator: "\n"))
            If this is intended: CHANNELGEN_UPDATE_API=1 swift test --filter PublicAPITests
            """)
    }

    /// One line per public declaration: its path (`ChannelSegment.init(_:parameter:rules:)`) and its
    /// declaration as written, sorted; read from the module `swift build` made, by the toolchain's
    /// `swift-symbolgraph-extract`.
    static func publicDeclarations(of module: String) async throws -> [String] {
        let products = TestSupport.productsDirectory
        let output = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: output) }
        // C modules of the dependencies (NIO's), as SwiftPM passes them to the compiler.
        let build = (try? FileManager.default.contentsOfDirectory(atPath: products.path)) ?? []
        let moduleMaps = build.filter { $0.hasSuffix(".build") }.map { products.appendingPathComponent("\($0)/module.modulemap").path }
            .filter { FileManager.default.fileExists(atPath: $0) }
        let checkouts = TestSupport.packageRoot.appendingPathComponent(".build/checkouts")
        var includes: [String] = []
        for package in (try? FileManager.default.contentsOfDirectory(atPath: checkouts.path)) ?? [] {
            let sources = checkouts.appendingPathComponent("\(package)/Sources")
            for target in (try? FileManager.default.contentsOfDirectory(atPath: sources.path)) ?? [] {
                let include = sources.appendingPathComponent("\(target)/include").path
                if FileManager.default.fileExists(atPath: include) { includes.append(include) }
            }
        }
        let triple = products.deletingLastPathComponent().lastPathComponent
        let result = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["swift-symbolgraph-extract", "-module-name", module, "-I", products.appendingPathComponent("Modules").path,
             "-target", triple, "-minimum-access-level", "public", "-skip-synthesized-members", "-output-dir", output.path]
                + moduleMaps.flatMap { ["-Xcc", "-fmodule-map-file=\($0)"] } + includes.flatMap { ["-Xcc", "-I\($0)"] })
        guard result.status == 0 else { throw SymbolGraphFailed(module: module, output: result.stderr) }
        var lines: Set<String> = []
        for file in try FileManager.default.contentsOfDirectory(atPath: output.path) where file.hasSuffix(".symbols.json") {
            let graph = try JSONDecoder().decode(SymbolGraph.self, from: Data(contentsOf: output.appendingPathComponent(file)))
            for symbol in graph.symbols {
                let declaration = symbol.declarationFragments?.map(\.spelling).joined() ?? ""
                lines.insert(symbol.pathComponents.joined(separator: ".") + " | " + declaration)
            }
        }
        return lines.sorted()
    }

    struct SymbolGraphFailed: Error, CustomStringConvertible {
        var module: String
        var output: String
        var description: String { "swift-symbolgraph-extract failed for \(module) (build the tests first): \(output)" }
    }

    /// The parts of a symbol graph file this test reads.
    struct SymbolGraph: Decodable {
        struct Symbol: Decodable {
            struct Fragment: Decodable { var spelling: String }
            var pathComponents: [String]
            var declarationFragments: [Fragment]?
        }
        var symbols: [Symbol]
    }
}
