import Foundation
import Testing

/// Issue 60: schemas named `Result`, `Data`, `Error` (seen in seven real documents) became
/// top-level types with no warning. The generated files compiled, but they go into the app's
/// module, where the app's own `Result<Int, any Error>` then meant the schema and stopped
/// compiling. Such a schema gets a suffix and a located warning; the app's code compiles.
@Suite("Names that would shadow Swift's")
struct ShadowingNamesTests {
    static let shadowing = ["Result", "Data", "Error", "Date", "URL", "Task", "Decimal", "Never", "UUID", "JSONValue"]

    static var spec: String {
        let schemas = shadowing.map { "    \($0): {type: object, properties: {text: {type: string}}}" }.joined(separator: "\n")
        let properties = shadowing.map { "{$ref: '#/components/schemas/\($0)'}" }.enumerated()
            .map { "p\($0.offset): \($0.element)" }.joined(separator: ", ")
        return """
            asyncapi: 3.0.0
            info: {title: T, version: 1.0.0}
            channels:
              c:
                address: c
                messages:
                  m: {payload: {type: object, properties: {\(properties)}}}
            operations:
              onC: {action: receive, channel: {$ref: '#/channels/c'}}
            components:
              schemas:
            \(schemas)
            """
    }

    @Test func theAppsOwnCodeStillNamesTheStandardTypes() async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let (result, output) = try await TestSupport.generate(spec: Self.spec, named: "spec.yaml", in: work)
        #expect(result.status == 0, "\(result.stderr)")
        for name in Self.shadowing {
            #expect(result.stderr.contains("warning: type '\(name)' is named '\(name)2' in Swift: '\(name)' is taken by"), "\(name): \(result.stderr)")
        }
        #expect(result.stderr.contains("spec.yaml:12:5: warning: type 'Result' is named 'Result2'"), "\(result.stderr)")
        // An app file in the same module, next to the generated ones.
        let app = work.appendingPathComponent("App.swift")
        try """
            import ChannelRuntime
            import Foundation
            func appCode() async -> Int {
                let result: Result<Int, any Error> = .success(1)
                let bytes = Data([1, 2]), now = Date(), url = URL(string: "https://example.com"), id = UUID()
                let amount: Decimal = 1.5
                let json: JSONValue = .null
                let task = Task { 1 }
                func stop() -> Never { fatalError() }
                _ = (bytes, now, url, id, amount, json)
                let schema = Result2(text: "the schema's type, renamed")
                _ = schema
                let value = await task.value
                return ((try? result.get()) ?? 0) + value
            }
            """.write(to: app, atomically: true, encoding: .utf8)
        let sources = TestSupport.clientSources.map { output.appendingPathComponent($0) } + [app]
        let check = try await TestSupport.typecheck(sources)
        #expect(check.status == 0, "\(check.stderr)")
    }
}
