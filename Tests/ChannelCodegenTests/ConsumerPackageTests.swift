import Foundation
import Testing

/// The build plugin as a user meets it: the README's recipe, file by file (every fenced block after a
/// `<!-- recipe: <path> -->` marker), built in a fresh package that depends on this checkout. Then a
/// schema file in a sibling folder, `$ref`'d after the first build, must regenerate the client when it
/// is edited (the plugin declares every file the last generation read).
@Suite("Consumer package", .serialized)
struct ConsumerPackageTests {
    /// The README's recipe: path → file contents.
    static func recipe() throws -> [String: String] {
        let readme = try TestSupport.contents(TestSupport.packageRoot.appendingPathComponent("README.md"))
        var files: [String: String] = [:]
        var lines = readme.split(separator: "\n", omittingEmptySubsequences: false)[...]
        while let marker = lines.popFirst() {
            guard let match = marker.wholeMatch(of: /<!-- recipe: (.+) -->/) else { continue }
            guard lines.popFirst()?.hasPrefix("```") == true else { continue }
            var body: [Substring] = []
            while let line = lines.popFirst(), !line.hasPrefix("```") { body.append(line) }
            files[String(match.1)] = body.joined(separator: "\n") + "\n"
        }
        return files
    }

    /// Writes the recipe into a fresh package; returns its folder.
    private func makeConsumer() throws -> URL {
        let work = try TestSupport.temporaryDirectory()
        // A path dependency is known by its folder's name: reach this checkout as `swift-channelgen`.
        try FileManager.default.createDirectory(at: work.appendingPathComponent("deps"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: work.appendingPathComponent("deps/swift-channelgen").path, withDestinationPath: TestSupport.packageRoot.path)
        for (path, text) in try Self.recipe() {
            var text = text
            if path == "Package.swift" {
                text = text.replacingOccurrences(
                    of: #".package(url: "https://github.com/<owner>/swift-channelgen", from: "<version>""#,
                    with: #".package(path: "deps/swift-channelgen""#)
            }
            let url = work.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        return work
    }

    /// Builds the package; returns the generated `Models.swift` of `ShopEvents`.
    private func build(_ package: URL) async throws -> String {
        let result = try await TestSupport.run(URL(fileURLWithPath: "/usr/bin/env"), ["swift", "build"], in: package, background: true)
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        let enumerator = FileManager.default.enumerator(at: package.appendingPathComponent(".build/plugins/outputs"), includingPropertiesForKeys: nil)
        while let url = enumerator?.nextObject() as? URL {
            if url.lastPathComponent == "Models.swift", url.path.contains("/ShopEvents/") { return try TestSupport.contents(url) }
        }
        Issue.record("no generated Models.swift under .build/plugins/outputs")
        return ""
    }

    @Test func theReadmeRecipeIsComplete() throws {
        let files = try Self.recipe()
        #expect(files.keys.sorted() == [
            "Package.swift", "Sources/ShopEvents/ShopEvents.swift", "Sources/ShopEvents/channelgen.yaml",
            "Sources/ShopEventsTesting/ShopEventsTesting.swift", "Sources/ShopEventsTesting/channelgen.yaml",
            "Tests/ShopEventsTests/OrderTests.swift", "spec/shop.asyncapi.yaml",
        ])
        #expect(files["Package.swift"]?.contains(#".package(url: "https://github.com/<owner>/swift-channelgen", from: "<version>", traits: [])"#) == true)
    }

    @Test func theRecipeBuildsAndEditingARefdFileInASiblingFolderRegenerates() async throws {
        let package = try makeConsumer()
        defer { try? FileManager.default.removeItem(at: package) }
        let first = try await build(package)
        #expect(first.contains("public struct OrderPlaced"))
        // The recipe's test target, against the generated mock.
        let tests = try await TestSupport.run(URL(fileURLWithPath: "/usr/bin/env"), ["swift", "test"], in: package, background: true)
        #expect(tests.status == 0 && tests.stdout.contains("aPlacedOrderArrives"), "\(tests.stdout)\n\(tests.stderr)")

        // `traits: []` leaves the emulator's token signing out: jwt-kit is neither pinned nor built.
        let pins = try TestSupport.contents(package.appendingPathComponent("Package.resolved"))
        #expect(!pins.contains(#""identity" : "jwt-kit""#), "jwt-kit is pinned")
        let built = (try? FileManager.default.contentsOfDirectory(atPath: package.appendingPathComponent(".build/debug").path)) ?? []
        #expect(!built.isEmpty)
        #expect(!built.contains { $0.hasPrefix("JWTKit") }, "built: \(built.sorted())")

        // Added after the first build: a shared schema in a sibling folder of spec/.
        let shared = package.appendingPathComponent("shared-schemas")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
        let extra = shared.appendingPathComponent("extra.yaml")
        try "components:\n  schemas:\n    Basket:\n      type: object\n      properties:\n        itemCount: {type: integer}\n"
            .write(to: extra, atomically: true, encoding: .utf8)
        let spec = package.appendingPathComponent("spec/shop.asyncapi.yaml")
        try (try TestSupport.contents(spec) + "        basket: {$ref: '../shared-schemas/extra.yaml#/components/schemas/Basket'}\n")
            .write(to: spec, atomically: true, encoding: .utf8)
        let second = try await build(package)
        #expect(second.contains("public var itemCount: Int?"))

        try "components:\n  schemas:\n    Basket:\n      type: object\n      properties:\n        itemCount: {type: integer}\n        total: {type: number}\n"
            .write(to: extra, atomically: true, encoding: .utf8)
        let third = try await build(package)
        #expect(third.contains("public var total: Double?"), "the edit to shared-schemas/extra.yaml did not regenerate")
    }
}
