import Foundation
import Testing

/// Every malformed spec under `Fixtures/bad/` states its expected first error in a
/// `# expect: file:line:col: error: message` line. The CLI must print exactly that, exit 1,
/// and leave an existing output folder untouched.
@Suite("Bad-spec corpus")
struct BadSpecCorpusTests {
    static let folder = TestSupport.fixtures.appendingPathComponent("bad")

    static let cases: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
        .filter { $0.hasSuffix(".yaml") }
        .sorted()

    @Test func corpusHasAtLeastTwentyCases() {
        #expect(Self.cases.count >= 20)
    }

    @Test(arguments: cases)
    func reportsExactLocationAndWritesNothing(_ name: String) async throws {
        let spec = Self.folder.appendingPathComponent(name)
        let expectation = try #require(
            try TestSupport.contents(spec).split(separator: "\n").first { $0.hasPrefix("# expect: ") }?.dropFirst("# expect: ".count),
            "\(name) has no '# expect:' line")

        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        // Strict: constructs outside the subset are errors here, as they are in CI with `strict: true`
        // (`LenientGenerationTests` covers the default, which skips such a channel).
        let config = try TestSupport.writeConfig(in: work, spec: spec, extra: "strict: true\n")
        let output = work.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        // A previous, valid generation: it must survive a failed run byte for byte and mtime for mtime.
        let past = Date(timeIntervalSince1970: 1_700_000_000)
        for file in ["Models.swift", "Channels.swift", "Subscriptions.swift", "Notifier.swift"] {
            let url = output.appendingPathComponent(file)
            try "// previous \(file)\n".write(to: url, atomically: true, encoding: .utf8)
            try TestSupport.setModificationDate(past, of: url)
        }

        let result = try await TestSupport.channelgen(["generate", "--config", config.path, "--output", output.path])

        #expect(result.status == 1)
        let prefix = Self.folder.path + "/"
        let firstError = result.stderr.split(separator: "\n").first { $0.contains(": error: ") }
            .map { $0.replacingOccurrences(of: prefix, with: "") }
        #expect(firstError == String(expectation))
        #expect(!result.stderr.contains("Fatal error"))

        let files = try FileManager.default.contentsOfDirectory(atPath: output.path).sorted()
        #expect(files == ["Channels.swift", "Models.swift", "Notifier.swift", "Subscriptions.swift"])
        for file in files {
            let url = output.appendingPathComponent(file)
            #expect(try TestSupport.contents(url) == "// previous \(file)\n")
            #expect(try TestSupport.modificationDate(url) == past)
        }
    }

    @Test func lintReportsTheSameErrorWithExitOne() async throws {
        let result = try await TestSupport.channelgen(["lint", "--strict", "unknown-schema-type.yaml"], in: Self.folder)
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("unknown-schema-type.yaml:30:17: error: unknown schema type 'strng'"))
    }

    @Test func lintAcceptsTheVortexSpec() async throws {
        let result = try await TestSupport.channelgen(["lint", "spec/vortex-events.asyncapi.yaml"], in: TestSupport.packageRoot)
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
    }

    @Test func configErrorsHaveLocations() async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let config = work.appendingPathComponent("channelgen.yaml")
        try "spec: x.yaml\nnotifer: Foo\naccessModifier: open\n".write(to: config, atomically: true, encoding: .utf8)
        let result = try await TestSupport.channelgen(["generate", "--config", config.path, "--output", work.appendingPathComponent("out").path])
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.contains("\(config.path):2:1: error: unknown config key 'notifer' (expected one of: spec, notifier, accessModifier, generate, clientModule, strict, transport, perspective, names)"))
        #expect(lines.contains("\(config.path):3:17: error: 'accessModifier' must be one of public, package, internal"))
        #expect(!FileManager.default.fileExists(atPath: work.appendingPathComponent("out").path))
    }
}
