import Foundation
import Testing

/// Schemas real documents write that channelgen used to skip or mis-encode, each now generated
/// with its values kept: a 2020-12 `prefixItems` in a draft-07 schema, `items: false`, a `type`
/// that is no JSON type, and a required nullable property (its `nil` must be written as `null`).
@Suite("Schemas real documents write are kept")
struct KeptSchemaTests {
    static let spec = """
        asyncapi: 3.0.0
        info: {title: Kept, version: 1.0.0}
        channels:
          c:
            address: c
            messages:
              m: {payload: {$ref: '#/components/schemas/Record'}}
        operations:
          onC: {action: receive, channel: {$ref: '#/channels/c'}}
        components:
          schemas:
            Record:
              type: object
              required: [when, at, note]
              properties:
                pair: {type: array, prefixItems: [{type: string}, {type: integer}]}
                none: {type: array, items: false}
                patch: {type: 'Json Patch Operation'}
                when: {type: [string, 'null']}
                at: {type: string, format: date-time, nullable: true}
                note: {type: string, nullable: true}
                other: {type: string, nullable: true}
        """

    @Test func eachIsWarnedAtItsLineAndGeneratedWithItsValuesKept() async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let (result, output) = try await TestSupport.generate(spec: Self.spec, named: "spec.yaml", in: work)
        #expect(result.status == 0, "\(result.stderr)")
        let warnings = result.stderr.split(separator: "\n").map(String.init)
        #expect(warnings.contains { $0.contains("spec.yaml:16:29: warning: unknown keyword 'prefixItems' in schema 'pair' is ignored") })
        #expect(warnings.contains { $0.contains("spec.yaml:18:23: warning: unknown schema type 'Json Patch Operation'") })
        #expect(warnings.count == 2, "\(warnings)")
        let models = try TestSupport.contents(output.appendingPathComponent("Models.swift"))
        for declaration in ["var pair: [JSONValue]?", "var none: [JSONValue]?", "var patch: JSONValue?", "var when: String?", "var at: Date?"] {
            #expect(models.contains(declaration), "\(declaration)")
        }

        let main = #"""
            import Foundation
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            func show(_ text: String) throws {
                let fast = ScannerDecoding().read(Record.self, from: text)
                let foundation = try JSONDecoder().decode(Record.self, from: Data(text.utf8))
                print(fast == foundation, String(decoding: try encoder.encode(foundation), as: UTF8.self))
            }
            try show(#"{"pair":["a",1],"none":[],"patch":{"op":"add"},"when":null,"at":null,"note":null}"#)
            try show(#"{"when":"now","at":"2026-12-02T10:00:00.002Z","note":"n","other":"o"}"#)
            // Made in code: the required keys are written, as `null`, the optional one left out.
            print(String(decoding: try encoder.encode(Record()), as: UTF8.self))
            """#
        let run = try await TestSupport.runProgram(main: main, withModelsIn: output, in: work)
        #expect(run.build.status == 0, "\(run.build.stderr)")
        #expect(run.stdout == #"""
            true {"at":null,"none":[],"note":null,"pair":["a",1],"patch":{"op":"add"},"when":null}
            true {"at":"2026-12-02T10:00:00.002Z","note":"n","other":"o","when":"now"}
            {"at":null,"note":null,"when":null}

            """#)
    }

    /// Under `strict: true` what lenient generation warns about and ignores is an error.
    @Test func strictMakesTheIgnoredKeywordAndTypeErrors() async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let (result, _) = try await TestSupport.generate(spec: Self.spec, named: "spec.yaml", in: work, extra: "strict: true\n")
        #expect(result.status == 1)
        #expect(result.stderr.contains("spec.yaml:16:29: error: unknown keyword 'prefixItems'"))
        #expect(result.stderr.contains("spec.yaml:18:23: error: unknown schema type 'Json Patch Operation'"))
    }

    /// A wide object (kept in parts with synthesized coding) writes its required nullable `nil`s too.
    @Test func aWideObjectWritesItsRequiredNullablePropertiesAsNull() async throws {
        let properties = (0..<70).map { "        p\($0): {type: string, nullable: true}" }.joined(separator: "\n")
        let spec = """
            asyncapi: 3.0.0
            info: {title: Wide, version: 1.0.0}
            channels:
              c:
                address: c
                messages:
                  m: {payload: {$ref: '#/components/schemas/Wide'}}
            operations:
              onC: {action: receive, channel: {$ref: '#/channels/c'}}
            components:
              schemas:
                Wide:
                  type: object
                  required: [p3, p69]
                  properties:
            \(properties)
            """
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let (result, output) = try await TestSupport.generate(spec: spec, named: "spec.yaml", in: work)
        #expect(result.status == 0, "\(result.stderr)")
        let main = #"""
            import Foundation
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            print(String(decoding: try encoder.encode(Wide(p5: "five")), as: UTF8.self))
            """#
        let run = try await TestSupport.runProgram(main: main, withModelsIn: output, in: work)
        #expect(run.build.status == 0, "\(run.build.stderr)")
        #expect(run.stdout == #"{"p3":null,"p5":"five","p69":null}"# + "\n")
    }

    /// `asyncapi: 3.0` is the number 3 to YAML: the schema asks for a string, and a number used to
    /// pass as version "3.0".
    @Test func anAsyncAPIVersionThatIsNotAStringIsALocatedError() async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try Self.spec.replacingOccurrences(of: "asyncapi: 3.0.0", with: "asyncapi: 3.0")
            .write(to: work.appendingPathComponent("spec.yaml"), atomically: true, encoding: .utf8)
        let result = try await TestSupport.channelgen(["lint", "spec.yaml"], in: work)
        #expect(result.status == 1)
        #expect(result.stderr == "spec.yaml:1:11: error: 'asyncapi' must be a string such as '3.0.0', found a number (3.0); write the version in quotes\n")
    }
}
