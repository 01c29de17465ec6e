@testable import ChannelCodegen
import ChannelSpec
import ChildProcessSupport
import Foundation
import SeededRandom
import Testing

/// Models must decode every payload their schema allows (issue 46): a model that compiles but
/// throws on a valid payload drops the event at the hub. Each case here decodes, not only type-checks.
@Suite("Generated models decode what their schemas allow")
struct DecodeWhatYouGenerateTests {
    /// Generates `spec`'s models, decodes `payloads` (type, JSON) through both decoders, and returns the failures.
    /// `everyKeyKept`: every key of the payloads is a declared property the model must write back.
    private func decode(spec: String, _ payloads: [(type: String, json: String)], everyKeyKept: Bool = false) async throws -> [String] {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let (result, output) = try await TestSupport.generate(spec: spec, named: "spec.yaml", in: work)
        guard result.status == 0 else { return ["generation failed: \(result.stderr)"] }
        let main = work.appendingPathComponent("main.swift")
        let checked = payloads.enumerated().map { index, payload in
            DecodeCheck.Payload(label: "payload \(index)", type: payload.type, json: payload.json, kept: everyKeyKept ? payload.json : nil)
        }
        try DecodeCheck.program(checked, encodings: true).write(to: main, atomically: true, encoding: .utf8)
        let run = try await TestSupport.runProgram(models: output.appendingPathComponent("Models.swift"), main: main, in: work)
        guard run.build.status == 0 else { return ["build failed: \(run.build.stderr)"] }
        guard let summary = DecodeCheck.summary(of: run.stdout), summary.checked == payloads.count else { return ["the program stopped early:\n\(run.stdout)"] }
        return run.stdout.split(separator: "\n").filter { $0.hasPrefix("FAIL") || $0.hasPrefix("    ") }.map(String.init)
            + DecodeCheck.keyFailures(stdout: run.stdout, payloads: checked)
    }

    /// A spec of one channel whose payload is the schema `Thing` among `schemas` (YAML under `schemas:`).
    static func spec(schemas: String) -> String {
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

    /// An `allOf` admits `null` when every member does (`true`, annotations, a nullable schema): the
    /// property is optional. Found by the decode suite once items could `$ref` nullable components:
    /// `allOf: [true, {type: boolean, nullable: true}]` was `Bool`, and `null` failed the event.
    @Test func anAllOfWhoseEveryMemberAdmitsNullIsOptional() async throws {
        let spec = Self.spec(schemas: """
                MaybeText: {type: string, nullable: true}
                Thing:
                  type: object
                  required: [withTrue, single, typeList, documentedRef, items]
                  properties:
                    withTrue: {allOf: [true, {type: boolean, nullable: true}]}
                    single: {allOf: [{type: integer, nullable: true}]}
                    typeList: {allOf: [true, {type: [string, 'null'], pattern: x}]}
                    documentedRef: {allOf: [{$ref: '#/components/schemas/MaybeText'}, {description: A text.}]}
                    items: {type: array, items: {allOf: [{type: string, nullable: true}]}}
            """)
        let nulls = #"{"withTrue":null,"single":null,"typeList":null,"documentedRef":null,"items":[null,"a"]}"#
        let values = #"{"withTrue":true,"single":3,"typeList":"t","documentedRef":"d","items":[]}"#
        let failures = try await decode(spec: spec, [("Thing", nulls), ("Thing", values)])
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    /// Valid constructs that used to lose their channel (issue 46): boolean schemas inside `allOf`,
    /// `oneOf` and `items`, a type list of several types, `contentType: ''`. Each generates and decodes.
    @Test func validConstructsThatLostTheirChannelsGenerateAndDecode() async throws {
        let spec = """
            asyncapi: 3.0.0
            info: {title: T, version: 1.0.0}
            channels:
              things:
                address: app/things
                messages: {thing: {payload: {$ref: '#/components/schemas/Thing'}}}
              notes:
                address: app/notes
                messages: {note: {contentType: '', payload: {type: object, properties: {text: {type: string}}}}}
            operations:
              thingValues: {action: receive, channel: {$ref: '#/channels/things'}}
              noteValues: {action: receive, channel: {$ref: '#/channels/notes'}}
            components:
              schemas:
                Thing:
                  type: object
                  required: [anything, choice, many, several, either]
                  properties:
                    anything: {allOf: [true, {type: string}]}
                    choice: {oneOf: [false, {type: string}, {type: integer}]}
                    many: {type: array, items: true}
                    several: {type: [string, integer, 'null'], format: int64, minLength: 1}
                    either: {type: [boolean, array], items: {type: number}}
            """
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let (result, output) = try await TestSupport.generate(spec: spec, named: "spec.yaml", in: work)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("skipped"), "\(result.stderr)")
        let notifier = try TestSupport.contents(output.appendingPathComponent("Notifier.swift"))
        #expect(notifier.contains("func thingValues()") && notifier.contains("func noteValues()"))
        let failures = try await decode(spec: spec, [
            ("Thing", #"{"anything":"a","choice":"s","many":[1,"x",null],"several":"x","either":true}"#),
            ("Thing", #"{"anything":"b","choice":7,"many":[],"several":9007199254740993,"either":[1.5,2]}"#),
            ("Thing", #"{"anything":"c","choice":false,"many":[{}],"several":null,"either":false}"#),
        ])
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    /// `properties` beside a `oneOf` with a discriminator: the discriminator goes with the union, so a
    /// variant is picked by its tag. It stayed with the properties and was ignored, and the first variant
    /// that decoded won: a swim read as a run, silently.
    @Test func propertiesBesideADiscriminatedUnionKeepTheDiscriminator() async throws {
        let spec = Self.spec(schemas: """
                Run: {type: object, properties: {kind: {type: string}, speed: {type: number}}}
                Swim: {type: object, properties: {kind: {type: string}, speed: {type: number}}}
                Thing:
                  type: object
                  properties: {note: {type: string}}
                  oneOf: [{$ref: '#/components/schemas/Run'}, {$ref: '#/components/schemas/Swim'}]
                  discriminator: {propertyName: kind}
            """)
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let (result, output) = try await TestSupport.generate(spec: spec, named: "spec.yaml", in: work)
        #expect(result.status == 0, "\(result.stderr)")
        let main = work.appendingPathComponent("main.swift")
        try #"""
            import Foundation
            for json in [#"{"kind":"Swim","speed":1,"note":"n"}"#, #"{"kind":"Run","speed":2}"#] {
                let thing = try JSONDecoder().decode(Thing.self, from: Data(json.utf8))
                let fast = try ScannerDecoding().decode(Thing.self, from: json, fallback: JSONDecoder())
                print(String(describing: thing.value1).contains("swim(") ? "swim" : "run", fast == thing, thing.value2.note ?? "-")
            }
            """#.write(to: main, atomically: true, encoding: .utf8)
        let run = try await TestSupport.runProgram(models: output.appendingPathComponent("Models.swift"), main: main, in: work)
        #expect(run.build.status == 0, "\(run.build.stderr)")
        #expect(run.stdout == "swim true n\nrun true -\n")
    }

    /// An `allOf` member that is an object beside a union: its properties were merged and the union
    /// dropped, so every value a variant reads was lost, silently (the event decoded without them).
    /// Found by the per-key check, seed 3. The member is a struct of its own now, as at the top level.
    @Test func anObjectBesideAUnionInsideAnAllOfKeepsTheUnion() async throws {
        let spec = Self.spec(schemas: """
                Base: {type: object, properties: {id: {type: string}}}
                Thing:
                  allOf:
                    - true
                    - {$ref: '#/components/schemas/Base'}
                    - type: object
                      properties: {note: {type: string}}
                      oneOf:
                        - {type: object, properties: {count: {type: integer}}, required: [count]}
                        - {type: object, properties: {label: {type: string}}, required: [label]}
            """)
        let failures = try await decode(spec: spec, [
            ("Thing", #"{"id":"a","note":"n","count":2}"#), ("Thing", #"{"id":"b","label":"l"}"#), ("Thing", #"{"note":"n","count":0}"#),
        ], everyKeyKept: true)
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    /// A variant picked by a discriminator its object does not declare: encoding it writes the tag
    /// back, so the JSON decodes as the same variant (it decoded as `.unknown` before: an event
    /// cached or sent on lost its kind). Found by the random suite below.
    @Test func aDiscriminatedVariantKeepsItsTagWhenEncoded() async throws {
        let spec = Self.spec(schemas: """
                Walk: {type: object, properties: {steps: {type: integer}}}
                Run: {type: object, properties: {kind: {type: string}, pace: {type: number}}}
                Thing:
                  oneOf: [{$ref: '#/components/schemas/Walk'}, {$ref: '#/components/schemas/Run'}]
                  discriminator: {propertyName: kind, mapping: {walk/slow: '#/components/schemas/Walk'}}
            """)
        let failures = try await decode(spec: spec, [
            ("Thing", #"{"kind":"walk/slow","steps":3}"#), ("Thing", #"{"kind":"Run","pace":1.5}"#), ("Thing", #"{"kind":"Swim"}"#),
        ])
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    // MARK: Random specs

    static let randomSpecCount = 100
    static let payloadsPerModel = 8
    /// Fixed so a failure reproduces; `CHANNELGEN_DECODE_SEED=<n>` explores others.
    static let seed = ProcessInfo.processInfo.environment["CHANNELGEN_DECODE_SEED"].flatMap(UInt64.init) ?? 46_2026_1127

    /// Seeded random specs (the type-check suite's pools, plus nullable items and values in every
    /// spelling, and now and then an object of more than 64 properties): every model of a component
    /// schema decodes payloads drawn from that schema, each value from its own key.
    @Test func everyRandomSpecsModelsDecodePayloadsTheirSchemasAllow() async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { if ProcessInfo.processInfo.environment["CHANNELGEN_KEEP_SPECS"] == nil { try? FileManager.default.removeItem(at: work) } }
        let (models, payloads, drawn) = try await offThePool { () throws -> ([URL], [DecodeCheck.Payload], (schemas: Int, drawn: Int, kept: Int, wide: Int)) in
            var random = SplitMix64(seed: Self.seed)
            var models: [URL] = [], payloads: [DecodeCheck.Payload] = []
            var schemas = 0, drawnSchemas = 0, kept = 0, wideDrawn = 0
            var namespaces = ""
            for index in 0..<Self.randomSpecCount {
                var spec = RandomSpec.make(using: &random, nullableElements: true)
                var wide = SplitMix64(seed: Self.seed &+ 0x0A1D_E000 &+ UInt64(index))
                RandomSpec.drawWideObject(in: &spec, using: &wide)
                let label = "decode seed \(Self.seed) spec \(index)"
                let (generated, diagnostics) = try TypeCheckSupport.models(spec.yaml, label: label, index: index, in: work)
                guard let generated else {
                    Issue.record("\(label) was rejected:\n\(diagnostics.joined(separator: "\n"))\n\(spec.yaml)")
                    continue
                }
                models.append(generated.file)
                namespaces += "enum \(generated.namespace) {}\n"
                let named = generated.named
                let document = try YAMLLoader.load(spec.yaml, file: "spec\(index).yaml")
                var draw = SchemaPayloads(document: document, random: SplitMix64(seed: Self.seed &+ UInt64(index)))
                for entry in document["components"]?["schemas"]?.entries ?? [] {
                    let pointer = exactKey("#/components/schemas/" + JSONPointer.escape(entry.key))
                    guard let type = named.api.types.first(where: { $0.parent == nil && $0.id.hasSuffix(pointer) }),
                          let swiftType = generated.swiftType(type.id) else { continue }
                    schemas += 1
                    var any = false
                    for _ in 0..<Self.payloadsPerModel {
                        guard let json = draw.value(for: entry.value) else { continue }
                        any = true
                        kept += json.keptCount
                        payloads.append(DecodeCheck.Payload(label: "\(label) schema \(entry.key.debugDescription)", type: swiftType, json: json.text, kept: json.kept.text))
                    }
                    if any { drawnSchemas += 1 }
                    if any, entry.key == "Wide" { wideDrawn += 1 }
                }
            }
            let namespaceFile = work.appendingPathComponent("Namespaces.swift")
            try namespaces.write(to: namespaceFile, atomically: true, encoding: .utf8)
            return (models + [namespaceFile], payloads, (schemas, drawnSchemas, kept, wideDrawn))
        }
        // Most schemas get payloads; the rest ask one value to meet two schemas (see `SchemaPayloads`).
        #expect(drawn.drawn * 4 >= drawn.schemas * 3, "payloads for \(drawn.drawn) of \(drawn.schemas) schemas")
        // Most payloads hold declared properties a model must write back (the per-key check's other half).
        #expect(drawn.kept >= payloads.count * 2, "\(drawn.kept) members to keep in \(payloads.count) payloads")
        #expect(drawn.wide > 0, "no wide object (over 64 properties) was drawn")
        let main = work.appendingPathComponent("main.swift")
        try DecodeCheck.program(payloads, roundTrip: false, encodings: true).write(to: main, atomically: true, encoding: .utf8)
        let run = try await TestSupport.runProgram(models: models, main: main, in: work)
        #expect(run.build.status == 0, "\(run.build.stderr.prefix(4000))")
        let summary = DecodeCheck.summary(of: run.stdout)
        #expect(summary?.checked == payloads.count, "\(run.stdout.suffix(2000))")
        let failures = run.stdout.split(separator: "\n").filter { $0.hasPrefix("FAIL") || $0.hasPrefix("    ") }.map(String.init)
        #expect(failures.isEmpty, "\(failures.prefix(20).joined(separator: "\n"))")
        // Each value from its own key.
        let keyFailures = DecodeCheck.keyFailures(stdout: run.stdout, payloads: payloads)
        #expect(keyFailures.isEmpty, "\(keyFailures.count) payloads:\n\(keyFailures.prefix(10).joined(separator: "\n"))")
    }
}
