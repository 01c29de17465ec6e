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
        try blocks(marked: "recipe", in: "README.md")
    }

    /// The emulator recipe of the TestingApps article: path → file contents.
    static func emulatorRecipe() throws -> [String: String] {
        try blocks(marked: "emulator-recipe", in: "Sources/ChannelRuntime/ChannelRuntime.docc/TestingApps.md")
    }

    /// Every fenced block after a `<!-- <marker>: <path> -->` line of the document: path → contents.
    private static func blocks(marked marker: String, in document: String) throws -> [String: String] {
        let text = try TestSupport.contents(TestSupport.packageRoot.appendingPathComponent(document))
        var files: [String: String] = [:]
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)[...]
        let prefix = "<!-- \(marker): ", suffix = " -->"
        while let line = lines.popFirst() {
            guard line.hasPrefix(prefix), line.hasSuffix(suffix), line.count > prefix.count + suffix.count else { continue }
            let path = String(line.dropFirst(prefix.count).dropLast(suffix.count))
            guard lines.popFirst()?.hasPrefix("```") == true else { continue }
            var body: [Substring] = []
            while let line = lines.popFirst(), !line.hasPrefix("```") { body.append(line) }
            files[path] = body.joined(separator: "\n") + "\n"
        }
        return files
    }

    /// Writes the recipe (or `files`) into a fresh package; returns its folder.
    private func makeConsumer(_ files: [String: String]? = nil) throws -> URL {
        let work = try TestSupport.temporaryDirectory()
        // A path dependency is known by its folder's name: reach this checkout as `swift-channelgen`.
        try FileManager.default.createDirectory(at: work.appendingPathComponent("deps"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: work.appendingPathComponent("deps/swift-channelgen").path, withDestinationPath: TestSupport.packageRoot.path)
        for (path, text) in try files ?? Self.recipe() {
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

    @Test func theEmulatorRecipeIsComplete() throws {
        let files = try Self.emulatorRecipe()
        #expect(files.keys.sorted() == ["Package.swift", "Tests/ShopEndToEndTests/OrderEndToEndTests.swift"])
        #expect(files["Package.swift"]?.contains(#"from: "<version>", traits: ["Emulator"])"#) == true)
    }

    /// Whether to build the emulator recipe's package: a first build of NIO, BoringSSL (twice) and
    /// jwt-kit, 6-10 minutes on two cores, which would double the whole run. Run it when the
    /// recipe, the Emulator trait or the emulator's products change (`CHANNELGEN_EMULATOR_RECIPE=1
    /// swift test --filter theEmulatorRecipeRunsTheAppsClientEndToEnd`); a plain `swift test` and
    /// `.ci/run` list it as skipped. `theEmulatorRecipeIsComplete` checks the blocks every run.
    static let buildsTheEmulatorRecipe = ProcessInfo.processInfo.environment["CHANNELGEN_EMULATOR_RECIPE"] == "1"

    /// The TestingApps article's end-to-end test: the recipe's client, its Package.swift with the
    /// Emulator trait and a test target that runs the emulator in-process, built and run as an app would.
    @Test(.enabled(if: buildsTheEmulatorRecipe, "a 6-10 minute build; set CHANNELGEN_EMULATOR_RECIPE=1"))
    func theEmulatorRecipeRunsTheAppsClientEndToEnd() async throws {
        let recipe = try Self.recipe()
        var files = try Self.emulatorRecipe()
        for path in ["spec/shop.asyncapi.yaml", "Sources/ShopEvents/channelgen.yaml", "Sources/ShopEvents/ShopEvents.swift"] {
            let text: String = try #require(recipe[path], "the README recipe has no \(path)")
            files[path] = text
        }
        let package = try makeConsumer(files)
        defer { try? FileManager.default.removeItem(at: package) }
        let tests = try await TestSupport.run(URL(fileURLWithPath: "/usr/bin/env"), ["swift", "test"], in: package, background: true)
        #expect(tests.status == 0, "\(tests.stdout)\n\(tests.stderr)")
        let passed = tests.stdout.split(separator: "\n").contains { $0.contains("anOrderPublishedByTheBackendArrivesTyped") && $0.contains("passed") }
        #expect(passed, "\(tests.stdout)\n\(tests.stderr)")
    }
}
