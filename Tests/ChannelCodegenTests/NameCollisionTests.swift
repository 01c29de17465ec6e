import Foundation
import Testing

/// Names that collide only because of the generator's mapping (case folding, dropped characters,
/// names the generator declares) no longer block a spec: the later name gets a numeric suffix and
/// a warning with both locations (`# warning:` in each fixture), and the output type-checks.
/// Two explicit `x-swift-name`s that clash stay an error (see `Fixtures/bad/`).
@Suite("Name collisions")
struct NameCollisionTests {
    static let folder = TestSupport.fixtures.appendingPathComponent("names")

    static let cases: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
        .filter { $0.hasSuffix(".yaml") }
        .sorted()

    @Test func corpusIsPresent() {
        #expect(Self.cases.count >= 3)
    }

    @Test(arguments: cases)
    func collisionIsRenamedWithAWarningAndCompiles(_ name: String) async throws {
        let spec = Self.folder.appendingPathComponent(name)
        let expectation = try #require(
            try TestSupport.contents(spec).split(separator: "\n").first { $0.hasPrefix("# warning: ") }?.dropFirst("# warning: ".count))
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let config = try TestSupport.writeConfig(in: work, spec: spec)
        let output = work.appendingPathComponent("out")
        let result = try await TestSupport.channelgen(["generate", "--config", config.path, "--output", output.path, "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        let warnings = result.stderr.split(separator: "\n").map { $0.replacingOccurrences(of: Self.folder.path + "/", with: "") }
        #expect(warnings == [String(expectation)])
        let files = ["Models.swift", "Channels.swift", "Subscriptions.swift", "Notifier.swift"].map { output.appendingPathComponent($0) }
        let typecheck = try await TestSupport.typecheck(files)
        #expect(typecheck.status == 0, "\(typecheck.stderr)")
    }
}
