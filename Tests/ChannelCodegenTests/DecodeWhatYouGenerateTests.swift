import ChannelCodegen
import Foundation
import Testing

/// Models must decode every payload their schema allows (issue 46): a model that compiles but
/// throws on a valid payload drops the event at the hub. Each case here decodes, not only type-checks.
@Suite("Generated models decode what their schemas allow")
struct DecodeWhatYouGenerateTests {
    /// Generates `spec`'s models, decodes `payloads` (type, JSON) through both decoders, and returns the failures.
    private func decode(spec: String, _ payloads: [(type: String, json: String)]) async throws -> [String] {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let (result, output) = try await TestSupport.generate(spec: spec, named: "spec.yaml", in: work)
        guard result.status == 0 else { return ["generation failed: \(result.stderr)"] }
        let main = work.appendingPathComponent("main.swift")
        try DecodeCheck.program(payloads.enumerated().map { index, payload in
            DecodeCheck.Payload(label: "payload \(index)", type: payload.type, json: payload.json)
        }).write(to: main, atomically: true, encoding: .utf8)
        let run = try await TestSupport.runProgram(models: output.appendingPathComponent("Models.swift"), main: main, in: work)
        guard run.build.status == 0 else { return ["build failed: \(run.build.stderr)"] }
        guard let summary = DecodeCheck.summary(of: run.stdout), summary.checked == payloads.count else { return ["the program stopped early:\n\(run.stdout)"] }
        return run.stdout.split(separator: "\n").filter { $0.hasPrefix("FAIL") || $0.hasPrefix("    ") }.map(String.init)
    }

    private static func spec(schemas: String) -> String {
        """
        asyncapi: 3.0.0
        info: {title: T, version: 1.0.0}
        channels:
          things:
            address: app/things
            messages: {thing: {payload: {$ref: '#/components/schemas/Thing'}}}
        operations:
          thingValues: {action: receive, channel: {$ref: '#/channels/things'}}
        components:
          schemas:
        \(schemas)
        """
    }

    /// Array items and map values that may be `null`, in every spelling JSON Schema and OpenAPI
    /// have, become optionals (`[String?]`): before, the model was `[String]` and the event was lost.
    @Test func nullableItemsAndValuesDecodeInEverySpelling() async throws {
        let spec = Self.spec(schemas: """
                Maybe: {type: string, nullable: true}
                MaybeDate: {type: [string, 'null'], format: date-time}
                Thing:
                  type: object
                  required: [typeList, nullable, oneOf, anyOf, ref, dates, map, union, nested, extras]
                  properties:
                    typeList: {type: array, items: {type: [string, 'null']}}
                    nullable: {type: array, items: {type: integer, nullable: true}}
                    oneOf: {type: array, items: {oneOf: [{type: string}, {type: 'null'}]}}
                    anyOf: {type: array, items: {anyOf: [{type: boolean}, {type: 'null'}]}}
                    ref: {type: array, items: {$ref: '#/components/schemas/Maybe'}}
                    dates: {type: array, items: {$ref: '#/components/schemas/MaybeDate'}}
                    optionalDates: {type: array, items: {type: [string, 'null'], format: date-time}}
                    map: {type: object, additionalProperties: {type: [number, 'null']}}
                    union: {type: array, items: {anyOf: [{type: string}, {type: integer}, {type: 'null'}]}}
                    nested: {type: array, items: {type: array, items: {type: string, enum: [a, b, null]}}}
                    extras:
                      type: object
                      properties: {name: {type: string}}
                      additionalProperties: {type: [string, 'null']}
            """)
        let full = #"""
            {"typeList":["a",null],"nullable":[null,2],"oneOf":[null],"anyOf":[true,null],"ref":[null,"x"],
             "dates":["2026-11-27T12:00:00.000Z",null],"optionalDates":[null],"map":{"a":1.5,"b":null},
             "union":["s",3,null],"nested":[["a",null],[]],"extras":{"name":"n","other":null,"more":"m"}}
            """#
        let empty = #"""
            {"typeList":[],"nullable":[],"oneOf":[],"anyOf":[],"ref":[],"dates":[],"map":{},"union":[],"nested":[],"extras":{}}
            """#
        let failures = try await decode(spec: spec, [("Thing", full), ("Thing", empty)])
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }
}
