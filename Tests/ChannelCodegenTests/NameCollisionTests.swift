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

    /// An inline payload takes its message's `name` (else `title`) where no other message or
    /// component schema has it: `ImportProgress`, not `ProgressPayload`. A name two messages share
    /// (`Failed`), or one a component schema has, leaves the payload named after its key or channel.
    @Test func inlinePayloadsAreNamedAfterTheirMessageWhereThatIsUnique() async throws {
        let spec = """
            asyncapi: 3.0.0
            info: {title: T, version: 1.0.0}
            channels:
              imports:
                address: imports
                messages:
                  progress: {name: ImportProgress, payload: {type: object, properties: {done: {type: integer}}}}
                  finished: {name: import/finished, payload: {type: object, properties: {at: {type: string}}}}
                  failed: {title: Failed, payload: {type: object, properties: {why: {type: string}}}}
                  noted: {name: Note, payload: {type: object, properties: {text: {type: string}}}}
              other:
                address: other
                messages:
                  failed: {title: Failed, payload: {type: object, properties: {why: {type: string}}}}
            operations:
              onImports: {action: receive, channel: {$ref: '#/channels/imports'}}
              onOther: {action: receive, channel: {$ref: '#/channels/other'}}
            components:
              schemas:
                note: {type: string}
            """
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let (result, output) = try await TestSupport.generate(spec: spec, named: "spec.yaml", in: work)
        #expect(result.status == 0, "\(result.stderr)")
        let models = try TestSupport.contents(output.appendingPathComponent("Models.swift"))
        let structs = models.split(separator: "\n").filter { $0.hasPrefix("public struct ") }.map { $0.split(separator: " ")[2].dropLast() }
        #expect(structs == ["ImportProgress", "ImportFinished", "FailedPayload", "NotedPayload", "OtherPayload"])
    }
}
