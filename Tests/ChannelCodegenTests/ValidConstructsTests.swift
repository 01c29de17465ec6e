import ChannelNaming
import Foundation
import Testing

/// Issue 30: a construct that is valid AsyncAPI or JSON Schema never rejects a document. What
/// channelgen cannot serve is skipped at the smallest scope (the message, then the channel) with a
/// located warning; everything accepted type-checks.
@Suite("Valid constructs are served")
struct ValidConstructsTests {
    static let spec = """
        asyncapi: 3.0.0
        info: {title: Valid, version: 1.0.0}
        channels:
          noPayload:
            address: app/no-payload
            messages: {ping: {name: ping}}
          nullPayload:
            address: app/null-payload
            messages: {ping: {name: ping, payload: {type: 'null'}}}
          anything:
            address: app/anything
            messages: {ping: {name: ping, payload: true}}
          booleanProperties:
            address: app/boolean-properties
            messages: {ping: {name: ping, payload: {type: object, properties: {kept: true, never: false, id: {type: string}}}}}
          mixed:
            address: app/mixed
            messages:
              audio: {name: audio, contentType: application/octet-stream, payload: {type: string, format: binary}}
              transcript: {name: transcript, payload: {type: object, properties: {text: {type: string}}}}
          emptyFormat:
            address: app/empty-format
            messages: {ping: {name: ping, schemaFormat: '', payload: {type: object, properties: {n: {type: integer}}}}}
          parameterKeywords:
            address: app/{userId}/keywords
            parameters:
              userId: {description: The user., format: uuid, location: '$message.payload#/userId'}
            messages: {ping: {name: ping, payload: {type: string}}}
        operations:
          noPayloadValues: {action: receive, channel: {$ref: '#/channels/noPayload'}}
          nullPayloadValues: {action: receive, channel: {$ref: '#/channels/nullPayload'}}
          anythingValues: {action: receive, channel: {$ref: '#/channels/anything'}}
          booleanPropertiesValues: {action: receive, channel: {$ref: '#/channels/booleanProperties'}}
          mixedValues:
            action: receive
            channel: {$ref: '#/channels/mixed'}
            messages: [{$ref: '#/channels/mixed/messages/audio'}, {$ref: '#/channels/mixed/messages/transcript'}]
          emptyFormatValues: {action: receive, channel: {$ref: '#/channels/emptyFormat'}}
          parameterKeywordsValues: {action: receive, channel: {$ref: '#/channels/parameterKeywords'}}
        """

    @Test func everyChannelIsServedAndTheOutputTypeChecks() async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let (result, output) = try await TestSupport.generate(spec: Self.spec, named: "valid.yaml", in: work)
        #expect(result.status == 0, "\(result.stderr)")
        let notifier = try TestSupport.contents(output.appendingPathComponent("Notifier.swift"))
        for operation in ["noPayload", "nullPayload", "anything", "booleanProperties", "mixed", "emptyFormat", "parameterKeywords"] {
            #expect(notifier.contains("func \(operation)Values() async -> AsyncStream<"), "\(operation)")
        }
        // No payload, a null payload and `true` carry any JSON; `never: false` can never be present.
        #expect(notifier.contains("func noPayloadValues() async -> AsyncStream<JSONValue>"))
        #expect(notifier.contains("func anythingValues() async -> AsyncStream<JSONValue>"))
        let models = try TestSupport.contents(output.appendingPathComponent("Models.swift"))
        #expect(models.contains("public var kept: JSONValue?"))
        #expect(!models.contains("never"))
        // The binary message is left out; its channel carries the JSON one.
        #expect(notifier.contains("func mixedValues() async -> AsyncStream<Transcript>"))
        let typecheck = try await TestSupport.typecheckClient(in: output)
        #expect(typecheck.status == 0, "\(typecheck.stderr)")
    }

    @Test func whatIsSkippedIsWarnedAtItsLinesAndStrictMakesItAnError() async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try Self.spec.write(to: work.appendingPathComponent("valid.yaml"), atomically: true, encoding: .utf8)
        let lenient = try await TestSupport.channelgen(["lint", "valid.yaml"], in: work)
        #expect(lenient.status == 0, "\(lenient.stderr)")
        #expect(!lenient.stderr.contains(": error: "))
        #expect(lenient.stderr.contains("valid.yaml:19:41: warning: message 'audio' has contentType 'application/octet-stream'"))
        #expect(lenient.stderr.contains("valid.yaml:19:7: warning: message 'audio' of channel 'mixed' is skipped"))
        #expect(lenient.stderr.contains("valid.yaml:27:40: warning: unknown keyword 'format' in parameter 'userId' is ignored"))
        #expect(lenient.stderr.contains("valid.yaml:27:54: warning: 'location' in parameter 'userId' is ignored"))

        let strict = try await TestSupport.channelgen(["lint", "--strict", "valid.yaml"], in: work)
        #expect(strict.status == 1)
        #expect(strict.stderr.contains("valid.yaml:19:41: error: message 'audio' has contentType"))
        #expect(strict.stderr.contains("valid.yaml:27:40: error: unknown keyword 'format'"))
    }

    /// Common shapes that were skipped: `patternProperties` (a dictionary, or the other keys of a
    /// struct), `properties` beside `oneOf` (an `allOf` of the object and the union), and a `$ref`
    /// whose file part is percent-encoded.
    @Test func commonShapesAreServedAndTypeCheck() async throws {
        let spec = """
            asyncapi: 3.0.0
            info: {title: Shapes, version: 1.0.0}
            channels:
              counters:
                address: app/counters
                messages: {m: {payload: {type: object, patternProperties: {'^c-': {type: integer}}}}}
              labelled:
                address: app/labelled
                messages: {m: {payload: {type: object, properties: {id: {type: string}}, patternProperties: {'^x-': {type: string}}}}}
              shapes:
                address: app/shapes
                messages:
                  m:
                    payload:
                      type: object
                      properties: {kind: {type: string}}
                      oneOf: [{$ref: '#/components/schemas/Circle'}, {$ref: '#/components/schemas/Square'}]
              spaced:
                address: app/spaced
                messages: {m: {payload: {$ref: './o%20x.yaml#/Thing'}}}
            operations:
              countersValues: {action: receive, channel: {$ref: '#/channels/counters'}}
              labelledValues: {action: receive, channel: {$ref: '#/channels/labelled'}}
              shapesValues: {action: receive, channel: {$ref: '#/channels/shapes'}}
              spacedValues: {action: receive, channel: {$ref: '#/channels/spaced'}}
            components:
              schemas:
                Circle: {type: object, required: [radius], properties: {radius: {type: number}}}
                Square: {type: object, required: [side], properties: {side: {type: number}}}
            """
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try "Thing: {type: object, properties: {name: {type: string}}}\n".write(to: work.appendingPathComponent("o x.yaml"), atomically: true, encoding: .utf8)
        let (result, output) = try await TestSupport.generate(spec: spec, named: "shapes.yaml", in: work)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("skipped"), "\(result.stderr)")
        let notifier = try TestSupport.contents(output.appendingPathComponent("Notifier.swift"))
        #expect(notifier.contains("func countersValues() async -> AsyncStream<[String: Int]>"))
        #expect(notifier.contains("func spacedValues() async -> AsyncStream<Thing>"))
        let models = try TestSupport.contents(output.appendingPathComponent("Models.swift"))
        #expect(models.contains("public var additionalProperties: [String: String]"))
        #expect(models.contains("public var value1: Value1"))
        let typecheck = try await TestSupport.typecheckClient(in: output)
        #expect(typecheck.status == 0, "\(typecheck.stderr)")
    }

    /// libyaml capped JSON keys at 1 024 characters (YAML's implicit-key limit) and needed a key on
    /// its colon's line; JSON has neither rule, and such a document rejected all its channels.
    @Test func aJSONDocumentWithAKeyOfAnyLengthIsServed() async throws {
        let long = String(repeating: "a", count: 2_000)
        let spec = """
            {"asyncapi": "3.0.0", "info": {"title": "Long", "version": "1.0.0"},
             "channels": {"c": {"address": "app/c", "messages": {"m": {"payload": {"$ref": "#/components/schemas/Thing"}}}}},
             "operations": {"cValues": {"action": "receive", "channel": {"$ref": "#/channels/c"}}},
             "components": {"schemas": {"Thing": {"type": "object", "properties": {
               "\(long)": {"type": "string"},
               "wrapped"
                 : {"type": "integer"}}}}}}
            """
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let (result, output) = try await TestSupport.generate(spec: spec, named: "long.json", in: work)
        #expect(result.status == 0, "\(result.stderr)")
        let models = try TestSupport.contents(output.appendingPathComponent("Models.swift"))
        #expect(models.contains("public var \(long): String?"))
        #expect(models.contains("public var wrapped: Int?"))
        let typecheck = try await TestSupport.typecheckClient(in: output)
        #expect(typecheck.status == 0, "\(typecheck.stderr)")
    }

    /// `é` written as U+00E9 and as `e` + U+0301 are two JSON keys and two enum values, though
    /// Swift's `String ==` calls them equal: the loader called such keys duplicates, and the enum's
    /// `switch` made the second value decode as the first (re-encoding changed the bytes). Two
    /// properties so named cannot be told apart by `JSONDecoder` (it finds keys by `String ==`: a
    /// payload holding both failed to decode), so they are outside the subset, at the second one.
    @Test func canonicallyEquivalentKeysAndValuesAreKeptApart() async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let spec = """
            asyncapi: 3.0.0
            info: {title: Accents, version: 1.0.0}
            channels:
              c:
                address: app/c
                messages: {m: {payload: {$ref: '#/components/schemas/Accents'}}}
              d:
                address: app/d
                messages: {m: {payload: {$ref: '#/components/schemas/Twins'}}}
            operations:
              cValues: {action: receive, channel: {$ref: '#/channels/c'}}
              dValues: {action: receive, channel: {$ref: '#/channels/d'}}
            components:
              schemas:
                Accents:
                  type: object
                  properties:
                    "caf\\u00E9": {type: string}
                    mood: {type: string, enum: ["\\u00E9t\\u00E9", "e\\u0301te\\u0301", plain]}
                Twins:
                  type: object
                  properties:
                    "caf\\u00E9": {type: string}
                    "cafe\\u0301": {type: integer}
            """
        let (result, output) = try await TestSupport.generate(spec: spec, named: "accents.yaml", in: work)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("duplicate key"))
        #expect(result.stderr.contains(#"accents.yaml:24:9: warning: properties 'caf\u{E9}' and 'cafe\u{301}' of 'Twins' differ only in Unicode normalization"#), "\(result.stderr)")
        #expect(result.stderr.contains("warning: channel 'd' is skipped"), "\(result.stderr)")
        let models = output.appendingPathComponent("Models.swift")
        let text = try TestSupport.contents(models)
        #expect(text.contains("public var caf\u{E9}: String?") && !text.contains("Twins"), "\(text)")
        let typecheck = try await TestSupport.typecheckClient(in: output)
        #expect(typecheck.status == 0, "\(typecheck.stderr)")

        let main = work.appendingPathComponent("main.swift")
        try """
            import Foundation
            for raw in ["\\u{E9}t\\u{E9}", "e\\u{301}te\\u{301}", "plain", "E\\u{301}"] {
                let value = Accents.Mood(rawValue: raw)
                let index = Accents.Mood.knownCases.firstIndex { $0 == value }.map(String.init) ?? "unknown"
                let encoded = String(decoding: try JSONEncoder().encode([value]), as: UTF8.self)
                print(index, encoded.unicodeScalars.elementsEqual("[\\"\\(raw)\\"]".unicodeScalars))
            }
            """.write(to: main, atomically: true, encoding: .utf8)
        let run = try await TestSupport.runProgram(models: models, main: main, in: work)
        #expect(run.build.status == 0, "\(run.build.stderr)")
        #expect(run.stdout == "0 true\n1 true\n2 true\nunknown true\n")
    }

    /// The same twins in two `allOf` members, or beside a union's variant: every member decodes the
    /// whole value, so both read one key and a valid payload (`{"cafe\u{301}": 42}`) failed the event
    /// (found by the decode suite's per-key check, seed 7); merged, one declaration replaced the
    /// other, even within one member (found by its wide objects). Outside the subset, located at the
    /// second key; an `allOf` without twins still generates.
    @Test func keysOneNormalizationApartInTwoAllOfMembersAreOutsideTheSubset() async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let spec = """
            asyncapi: 3.0.0
            info: {title: Accents, version: 1.0.0}
            channels:
              beside:
                address: app/beside
                messages: {m: {payload: {$ref: '#/components/schemas/Beside'}}}
              merged:
                address: app/merged
                messages: {m: {payload: {$ref: '#/components/schemas/Merged'}}}
              one:
                address: app/one
                messages: {m: {payload: {$ref: '#/components/schemas/OneMember'}}}
              plain:
                address: app/plain
                messages: {m: {payload: {$ref: '#/components/schemas/Plain'}}}
            operations:
              besideValues: {action: receive, channel: {$ref: '#/channels/beside'}}
              mergedValues: {action: receive, channel: {$ref: '#/channels/merged'}}
              oneValues: {action: receive, channel: {$ref: '#/channels/one'}}
              plainValues: {action: receive, channel: {$ref: '#/channels/plain'}}
            components:
              schemas:
                Variant:
                  type: object
                  properties:
                    "cafe\\u0301": {type: integer}
                Beside:
                  type: object
                  properties:
                    "caf\\u00E9": {type: string}
                  oneOf: [{$ref: '#/components/schemas/Variant'}]
                Merged:
                  allOf:
                    - {type: object, properties: {"caf\\u00E9": {type: string}}}
                    - {type: object, properties: {"cafe\\u0301": {type: integer}}}
                OneMember:
                  allOf:
                    - {type: object, properties: {"caf\\u00E9": {type: string}, "cafe\\u0301": {type: string, format: date-time}}}
                    - {description: Both in one member, which merging collapsed.}
                Plain:
                  allOf:
                    - {type: object, properties: {name: {type: string}}}
                    - {$ref: '#/components/schemas/Variant'}
                    - {oneOf: [{type: object, properties: {other: {type: string}}}]}
            """
        let (result, output) = try await TestSupport.generate(spec: spec, named: "accents.yaml", in: work)
        #expect(result.status == 0, "\(result.stderr)")
        // Beside: the variant's key comes first, the property beside it second.
        #expect(result.stderr.contains(#"accents.yaml:30:9: warning: properties 'cafe\u{301}' and 'caf\u{E9}' of the 'allOf' of 'Beside' differ only"#), "\(result.stderr)")
        #expect(result.stderr.contains(#"accents.yaml:35:39: warning: properties 'caf\u{E9}' and 'cafe\u{301}' of the 'allOf' of 'Merged' differ only"#), "\(result.stderr)")
        #expect(result.stderr.contains(#"accents.yaml:38:68: warning: properties 'caf\u{E9}' and 'cafe\u{301}' of the 'allOf' of 'OneMember' differ only"#), "\(result.stderr)")
        #expect(result.stderr.contains("warning: channel 'beside' is skipped") && result.stderr.contains("warning: channel 'merged' is skipped"), "\(result.stderr)")
        let notifier = try TestSupport.contents(output.appendingPathComponent("Notifier.swift"))
        #expect(notifier.contains("func plainValues()") && !notifier.contains("besideValues") && !notifier.contains("mergedValues"))
    }

    /// Schemas, channels and operations whose names are canonically equivalent were one entry of a
    /// `[String: _]` (Swift's `String ==`): the second channel streamed the first one's payload
    /// type, and two subscriptions got one Swift name, which did not compile. Parameters are keyed
    /// by Swift's `==` at runtime, so a channel with two such parameters is skipped with a warning.
    @Test func schemasAndChannelsNamedAlikeButForNormalizationStayApart() async throws {
        let spec = """
            asyncapi: 3.0.0
            info: {title: Accents, version: 1.0.0}
            channels:
              "caf\\u00E9":
                address: app/c
                messages: {m: {payload: {$ref: "#/components/schemas/Caf\\u00E9"}}}
              "cafe\\u0301":
                address: app/d
                messages: {m: {payload: {$ref: "#/components/schemas/Cafe\\u0301"}}}
              twice:
                address: "app/{\\u00E9t\\u00E9}/{e\\u0301te\\u0301}"
                parameters: {"\\u00E9t\\u00E9": {}, "e\\u0301te\\u0301": {}}
                messages: {m: {payload: {$ref: "#/components/schemas/Caf\\u00E9"}}}
            operations:
              "caf\\u00E9Values": {action: receive, channel: {$ref: "#/channels/caf\\u00E9"}}
              "cafe\\u0301Values": {action: receive, channel: {$ref: "#/channels/cafe\\u0301"}}
              twiceValues: {action: receive, channel: {$ref: "#/channels/twice"}}
            components:
              schemas:
                "Caf\\u00E9": {type: object, properties: {a: {type: string}}}
                "Cafe\\u0301": {type: object, properties: {b: {type: integer}}}
            """
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let (result, output) = try await TestSupport.generate(spec: spec, named: "accents.yaml", in: work)
        #expect(result.status == 0, "\(result.stderr)")
        let models = try TestSupport.contents(output.appendingPathComponent("Models.swift"))
        #expect(models.contains("public var a: String?") && models.contains("public var b: Int?"), "\(models)")
        let notifier = try TestSupport.contents(output.appendingPathComponent("Notifier.swift"))
        #expect(notifier.contains("func caf\u{E9}Values() async -> AsyncStream<Caf\u{E9}>"), "\(notifier)")
        #expect(notifier.contains("func caf\u{E9}Values2() async -> AsyncStream<Caf\u{E9}2>"), "\(notifier)")
        let subscriptions = try TestSupport.contents(output.appendingPathComponent("Subscriptions.swift"))
        #expect(subscriptions.contains("Caf\u{E9}Subscription2: ChannelSubscription"))
        // Two parameters the runtime would key as one (it crashed the generator): the channel is skipped alone.
        #expect(result.stderr.contains("accents.yaml:12:39: warning: parameters"), "\(result.stderr)")
        #expect(result.stderr.contains("of channel 'twice' differ only in Unicode normalization"), "\(result.stderr)")
        #expect(!notifier.contains("twiceValues"))
        let typecheck = try await TestSupport.typecheckClient(in: output)
        #expect(typecheck.status == 0, "\(typecheck.stderr)")
    }

    /// Models mode reads more than client generation (every component; the messages of channels a
    /// client cannot subscribe to), and used to fail on what the default mode never looked at. Now
    /// each payload or component with a problem is skipped alone, so it is never stricter.
    @Test func modelsModeIsNeverStricterThanTheDefault() async throws {
        let spec = """
            asyncapi: 3.0.0
            info: {title: Mixed, version: 1.0.0}
            channels:
              good:
                address: app/good
                messages: {m: {payload: {$ref: '#/components/schemas/Good'}}}
              mqtt:
                address: a/b/c/d/e/f/g
                messages: {m: {payload: {type: integr}}}
              log:
                address: app/log
                messages:
                  line: {contentType: text/plain, payload: {type: string}}
                  entry: {payload: {$ref: '#/components/schemas/Entry'}}
            operations:
              goodValues: {action: receive, channel: {$ref: '#/channels/good'}}
            components:
              schemas:
                Good: {type: object, properties: {id: {type: string}}}
                Unused: {type: object, properties: {n: {type: numbr}}}
                Entry: {type: object, properties: {level: {type: string}}}
            """
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let client = try await TestSupport.generate(spec: spec, named: "mixed.yaml", in: work)
        #expect(client.result.status == 0, "\(client.result.stderr)")
        let models = try await TestSupport.generate(spec: spec, named: "mixed.yaml", in: work, extra: "generate: models\n")
        #expect(models.result.status == 0, "\(models.result.stderr)")
        #expect(models.result.stderr.contains("warning: unknown schema type 'numbr'"))
        let text = try TestSupport.contents(models.output.appendingPathComponent("Models.swift"))
        #expect(text.contains("struct Good"))
        // The unknown type is left out: the value is kept whole, and the schema is not skipped.
        #expect(text.contains("struct Unused") && text.contains("var n: JSONValue?"), "\(text)")
        // A text message has no model, and skips nothing: models mode used to skip its channel.
        #expect(!models.result.stderr.contains("text/plain"), "\(models.result.stderr)")
        #expect(text.contains("struct Entry"))
        let strict = try await TestSupport.generate(spec: spec, named: "mixed.yaml", in: work, extra: "generate: models\nstrict: true\n")
        #expect(strict.result.status == 1)
    }

    /// Discriminator problems were accepted silently and every value then decoded as `.unknown`:
    /// now each is a warning at its line (the spec is valid; the output still compiles).
    @Test(arguments: [
        ("discriminator: {propertyName: kind, mapping: {cat: '#/components/schemas/Cat', fish: '#/components/schemas/Fish'}}",
         "warning: discriminator mapping 'fish' of 'Pet' names '#/components/schemas/Fish', which is not one of its variants"),
        ("discriminator: {propertyName: species}", "warning: discriminator property 'species' of 'Pet' is declared by none of its variants (OpenAPI asks each to declare it)"),
        ("discriminator: kind", "warning: discriminator property 'kind' of 'Pet' is not a string in variant 'Num'"),
    ])
    func discriminatorProblemsAreWarnedAtTheirLine(_ discriminator: String, _ warning: String) async throws {
        var spec = Self.header(payload: "Pet")
        spec += """
                Cat: {type: object, required: [kind], properties: {kind: {type: string}, meow: {type: boolean}}}
                Num: {type: object, required: [kind], properties: {kind: {type: integer}}}
                Pet:
                  oneOf: [{$ref: '#/components/schemas/Cat'}, {$ref: '#/components/schemas/Num'}]
                  \(discriminator)

            """
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let (result, output) = try await TestSupport.generate(spec: spec, named: "pets.yaml", in: work)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains(warning), "\(result.stderr)")
        let typecheck = try await TestSupport.typecheckClient(in: output)
        #expect(typecheck.status == 0, "\(typecheck.stderr)")
    }

    /// A chain of 1 500 `Sn: {allOf: [{$ref: Sn+1}]}` overflowed the stack (SIGSEGV) in every
    /// command: flattening nested `allOf`s recursed once per level with no limit.
    @Test func aLongAllOfChainIsALocatedErrorNotACrash() async throws {
        var spec = Self.header(payload: "S0")
        for index in 0..<1500 { spec += "    S\(index): {allOf: [{$ref: '#/components/schemas/S\(index + 1)'}]}\n" }
        spec += "    S1500: {type: object, properties: {a: {type: string}}}\n"
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try spec.write(to: work.appendingPathComponent("chain.yaml"), atomically: true, encoding: .utf8)
        let lint = try await TestSupport.channelgen(["lint", "chain.yaml"], in: work)
        #expect(lint.status == 1)
        #expect(lint.stderr.contains("error: 'allOf' of schema 'S64' is nested more than 64 levels deep"), "\(lint.stderr)")
    }

    /// `anyOf: [S0, S0]` inside `S0` left a union with no variants: accepted, and its Swift did
    /// not compile. Now the union is outside the subset: its channel is skipped with a warning.
    @Test func aUnionWithNoVariantLeftIsSkippedAndTheRestCompiles() async throws {
        var spec = Self.header(payload: "S0", extraChannel: true)
        spec += "    S0: {anyOf: [{$ref: '#/components/schemas/S0'}, {$ref: '#/components/schemas/S0'}]}\n"
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let (result, output) = try await TestSupport.generate(spec: spec, named: "union.yaml", in: work)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("warning: 'anyOf' in schema 'S0' has no variant left but itself"))
        #expect(result.stderr.contains("warning: channel 'ping' is skipped"))
        let typecheck = try await TestSupport.typecheckClient(in: output)
        #expect(typecheck.status == 0, "\(typecheck.stderr)")
    }

    /// A channel with 800 messages (and a union of 1 000 variants) emitted an `encode(to:)` whose
    /// `switch` the compiler gave up proving exhaustive ("unable to check … in reasonable time"):
    /// accepted, and it did not compile. Large unions now encode through one `if case` per case.
    @Test func aChannelOf800MessagesAndAUnionOf1000VariantsCompile() async throws {
        var spec = """
            asyncapi: 3.0.0
            info: {title: Large, version: 1.0.0}
            channels:
              many:
                address: app/many
                messages:

            """
        for index in 0..<800 {
            spec += "      m\(index): {name: m\(index), payload: {type: object, required: [eventType], properties: {eventType: {type: string, const: m\(index)}, v\(index): {type: integer}}}}\n"
        }
        spec += """
              union:
                address: app/union
                messages: {u: {payload: {$ref: '#/components/schemas/U'}}}
            operations:
              manyValues: {action: receive, channel: {$ref: '#/channels/many'}}
              unionValues: {action: receive, channel: {$ref: '#/channels/union'}}
            components:
              schemas:
                U:
                  oneOf:

            """
        for index in 0..<1000 { spec += "        - {$ref: '#/components/schemas/V\(index)'}\n" }
        for index in 0..<1000 { spec += "    V\(index): {type: object, required: [k\(index)], properties: {k\(index): {type: integer}}}\n" }
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let (result, output) = try await TestSupport.generate(spec: spec, named: "large.yaml", in: work)
        #expect(result.status == 0, "\(result.stderr)")
        let typecheck = try await TestSupport.typecheckClient(in: output)
        #expect(typecheck.status == 0, "\(typecheck.stderr.prefix(2000))")
    }

    /// A `clientModule` equal to a generated type's name: the mocks run renamed the type (`Shop2`),
    /// the client run did not, so `Mocks.swift` did not compile against the client module. Both
    /// runs now name every type alike; compiled here as two modules, as a package builds them.
    /// Two receive operations on one channel: the mock's `values(for:)` and `envelopes(_:)` read
    /// the first one's broadcaster (one `case` per subscription type, not two).
    @Test func mocksCompileAgainstAClientModuleNamedLikeOneOfItsTypes() async throws {
        let spec = """
            asyncapi: 3.0.0
            info: {title: Shop, version: 1.0.0}
            channels:
              orders:
                address: app/orders
                messages: {m: {payload: {$ref: '#/components/schemas/Shop'}}}
            operations:
              ordersValues: {action: receive, channel: {$ref: '#/channels/orders'}}
              ordersAudit: {action: receive, channel: {$ref: '#/channels/orders'}}
            components:
              schemas:
                Shop: {type: object, properties: {id: {type: string}}}
            """
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try spec.write(to: work.appendingPathComponent("shop.yaml"), atomically: true, encoding: .utf8)
        try "spec: shop.yaml\n".write(to: work.appendingPathComponent("client.yaml"), atomically: true, encoding: .utf8)
        try "spec: shop.yaml\ngenerate: mocks\nclientModule: Shop\n".write(to: work.appendingPathComponent("mocks.yaml"), atomically: true, encoding: .utf8)
        for (config, output) in [("client.yaml", "client"), ("mocks.yaml", "mocks")] {
            let result = try await TestSupport.channelgen(["generate", "--config", config, "--output", output, "--quiet"], in: work)
            #expect(result.status == 0, "\(result.stderr)")
        }
        let (module, mocks) = try await TestSupport.typecheckMocks(
            work.appendingPathComponent("mocks/Mocks.swift"), againstClientIn: work.appendingPathComponent("client"), named: "Shop", in: work)
        #expect(module.status == 0, "\(module.stderr)")
        #expect(mocks.status == 0, "\(mocks.stderr)")
        let mockText = try TestSupport.contents(work.appendingPathComponent("mocks/Mocks.swift"))
        #expect(mockText.components(separatedBy: "case is OrdersSubscription.Type: broadcaster = self.orders\n").count == 2, "\(mockText)")
        #expect(mockText.contains("public func ordersAudit() async -> AsyncStream<Shop>"), "\(mockText)")
    }

    /// A client module named by a contextual keyword (`open`, `Type`, `package`) is a module the
    /// compiler builds and imports; `clientModule` refused it (issue 46). The mocks compile against it.
    @Test(arguments: ["open", "Type", "package"])
    func mocksCompileAgainstAClientModuleNamedByAContextualKeyword(_ module: String) async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try Self.header(payload: "Ping").appending("""
                Ping: {type: object, properties: {id: {type: string}}}

            """).write(to: work.appendingPathComponent("shop.yaml"), atomically: true, encoding: .utf8)
        try "spec: shop.yaml\n".write(to: work.appendingPathComponent("client.yaml"), atomically: true, encoding: .utf8)
        try "spec: shop.yaml\ngenerate: mocks\nclientModule: \(module)\n".write(to: work.appendingPathComponent("mocks.yaml"), atomically: true, encoding: .utf8)
        for (config, output) in [("client.yaml", "client"), ("mocks.yaml", "mocks")] {
            let result = try await TestSupport.channelgen(["generate", "--config", config, "--output", output, "--quiet"], in: work)
            #expect(result.status == 0, "\(result.stderr)")
        }
        let (built, mocks) = try await TestSupport.typecheckMocks(
            work.appendingPathComponent("mocks/Mocks.swift"), againstClientIn: work.appendingPathComponent("client"), named: module, in: work)
        #expect(built.status == 0, "\(built.stderr)")
        #expect(mocks.status == 0, "\(mocks.stderr)")
    }

    /// A spec with one channel `ping` whose payload is component `payload`, and optionally a
    /// plain second channel; `components.schemas` is left open for the caller.
    static func header(payload: String, extraChannel: Bool = false) -> String {
        """
        asyncapi: 3.0.0
        info: {title: T, version: 1.0.0}
        channels:
          ping:
            address: app/ping
            messages: {ping: {name: ping, payload: {$ref: '#/components/schemas/\(payload)'}}}
        \(extraChannel ? "  pong:\n    address: app/pong\n    messages: {pong: {name: pong, payload: {type: string}}}\n" : "")\
        operations:
          pingValues: {action: receive, channel: {$ref: '#/channels/ping'}}
        \(extraChannel ? "  pongValues: {action: receive, channel: {$ref: '#/channels/pong'}}\n" : "")\
        components:
          schemas:

        """
    }
}

/// Issue 30: addresses are checked by the rules of the transport the client targets. AppSync's
/// (1–5 segments of `A–Z a–z 0–9 -`) stay the default; `transport: sse` carries the topics of
/// MQTT, Kafka, Pusher or Centrifugo documents as they are.
@Suite("Address rules per transport")
struct AddressRulesPerTransportTests {
    static let spec = """
        asyncapi: 3.0.0
        info: {title: Topics, version: 1.0.0}
        channels:
          measured:
            address: smartylighting/streetlights/1/0/event/{streetlightId}/lighting/measured
            parameters: {streetlightId: {description: The light.}}
            messages: {m: {payload: {type: object, properties: {lumens: {type: integer}}}}}
          pusher:
            address: private-orders.eu_west:v1
            messages: {m: {payload: {type: string}}}
          query:
            address: feeds/prices?symbol=BTC&depth=5
            messages: {m: {payload: {type: number}}}
          book:
            address: https://example.com/books/{bookId}
            parameters: {bookId: {}}
            messages: {m: {payload: {type: object, properties: {title: {type: string}}}}}
        operations:
          measuredValues: {action: receive, channel: {$ref: '#/channels/measured'}}
          pusherValues: {action: receive, channel: {$ref: '#/channels/pusher'}}
          queryValues: {action: receive, channel: {$ref: '#/channels/query'}}
          bookValues: {action: receive, channel: {$ref: '#/channels/book'}}
        """

    @Test func appSyncRulesSkipTheTopicsAndSSERulesServeThem() async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try Self.spec.write(to: work.appendingPathComponent("topics.yaml"), atomically: true, encoding: .utf8)
        let appSync = try await TestSupport.channelgen(["lint", "topics.yaml"], in: work)
        #expect(appSync.status == 0)
        #expect(appSync.stderr.contains("it has 8 segments; AppSync Events allows at most 5"))
        #expect(appSync.stderr.contains("warning: channel 'pusher' is skipped"))
        #expect(appSync.stderr.contains("warning: channel 'query' is skipped"))
        #expect(appSync.stderr.contains("warning: channel 'book' is skipped"))

        let sse = try await TestSupport.channelgen(["lint", "--transport", "sse", "topics.yaml"], in: work)
        #expect(sse.status == 0)
        #expect(!sse.stderr.contains("skipped"), "\(sse.stderr)")

        let (result, output) = try await TestSupport.generate(spec: Self.spec, named: "topics.yaml", in: work, extra: "transport: sse\n")
        #expect(result.status == 0, "\(result.stderr)")
        let channels = try TestSupport.contents(output.appendingPathComponent("Channels.swift"))
        #expect(channels.contains("\"private-orders.eu_west:v1\""))
        #expect(channels.contains("\"feeds/prices?symbol=BTC&depth=5\""))
        // A URL topic (Mercure's convention), its empty segment after the scheme kept.
        #expect(channels.contains("\"https://example.com/books/{bookId}\""))
        // Parameter values are checked at runtime by the same rules (a light id `eu_1.7` is fine).
        let subscriptions = try TestSupport.contents(output.appendingPathComponent("Subscriptions.swift"))
        #expect(subscriptions.contains(#"ChannelSegment(streetlightId, parameter: "streetlightId", rules: .serverSentEvents)"#), "\(subscriptions)")
        #expect(subscriptions.contains(#""https://example.com/books/\(self.bookId.value)""#), "\(subscriptions)")
        let typecheck = try await TestSupport.typecheckClient(in: output)
        #expect(typecheck.status == 0, "\(typecheck.stderr)")
    }

    /// The hub fills a channel's template (`ChannelTemplate.channel(_:)`) while an instance reads its
    /// subscription's `channel`: both must name the same path, whatever the address's shape (a
    /// leading or trailing `/`, empty segments, a URL, two parameters in a segment, one twice).
    @Test func theTemplateAndTheSubscriptionNameTheSamePath() async throws {
        let addresses = ["/lead/{x}/", "https://h.example/{x}", "a//{x}", "o.{x}:{y}", "{x}/{x}", "{x}{y}/z"]
        var spec = "asyncapi: 3.0.0\ninfo: {title: T, version: 1.0.0}\nchannels:\n"
        for (index, address) in addresses.enumerated() {
            let names = address.contains("{y}") ? "{x: {}, y: {}}" : "{x: {}}"
            spec += "  c\(index): {address: '\(address)', parameters: \(names), messages: {m: {payload: {type: string}}}}\n"
        }
        spec += "operations:\n" + addresses.indices.map { "  c\($0)Values: {action: receive, channel: {$ref: '#/channels/c\($0)'}}\n" }.joined()
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let (result, output) = try await TestSupport.generate(spec: spec, named: "paths.yaml", in: work, extra: "transport: sse\n")
        #expect(result.status == 0, "\(result.stderr)")
        let subscriptions = try TestSupport.contents(output.appendingPathComponent("Subscriptions.swift"))
        let channels = try TestSupport.contents(output.appendingPathComponent("Channels.swift"))
        let paths = subscriptions.components(separatedBy: "public var channel: String { \"").dropFirst()
            .map { String($0.prefix { $0 != "\n" }.dropLast(3)) }
        #expect(paths.count == addresses.count)
        for (address, path) in zip(addresses, paths) {
            #expect(channels.contains("ChannelTemplate(\"\(address)\")"))
            // The subscription's interpolation, with each value put back as its placeholder.
            let placeholders = path.replacingOccurrences(of: "\\(self.x.value)", with: "{x}").replacingOccurrences(of: "\\(self.y.value)", with: "{y}")
            #expect(placeholders == address, "\(path)")
        }
    }

    /// AsyncAPI 3: a channel without an address (or `address: null`) has one known only at runtime.
    /// It used to skip the channel; now its subscription is made with the whole path, checked by
    /// the transport's rules, and the notifier serves it per instance. A publish to it is skipped.
    @Test(arguments: [("appsync", ".appSyncEvents"), ("sse", ".serverSentEvents")])
    func anOpenAddressIsServedPerInstance(_ transport: String, _ rules: String) async throws {
        let spec = """
            asyncapi: 3.0.0
            info: {title: Rooms, version: 1.0.0}
            channels:
              room:
                messages: {said: {name: said, payload: {type: object, properties: {text: {type: string}}}}}
              feed:
                address: null
                messages: {tick: {payload: {type: integer}}}
              lobby:
                address: app/lobby
                messages: {said: {payload: {type: string}}}
            operations:
              roomValues: {action: receive, channel: {$ref: '#/channels/room'}}
              feedValues: {action: receive, channel: {$ref: '#/channels/feed'}}
              lobbyValues: {action: receive, channel: {$ref: '#/channels/lobby'}}
              sayInRoom: {action: send, channel: {$ref: '#/channels/room'}}
            """
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let (result, output) = try await TestSupport.generate(spec: spec, named: "rooms.yaml", in: work, extra: "transport: \(transport)\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("rooms.yaml:16:3: warning: operation 'sayInRoom' sends to channel 'room', whose address is open"), "\(result.stderr)")
        #expect(!result.stderr.contains("channel 'room' is skipped") && !result.stderr.contains("channel 'feed' is skipped"), "\(result.stderr)")
        #expect(result.stderr.contains("warning: operation 'sayInRoom' is skipped"), "\(result.stderr)")

        let notifier = try TestSupport.contents(output.appendingPathComponent("Notifier.swift"))
        for open in ["room": "RoomSubscription", "feed": "FeedSubscription"] {
            #expect(notifier.contains("func \(open.key)Values(for subscription: \(open.value)) async -> AsyncStream<"), "\(notifier)")
            #expect(!notifier.contains("func \(open.key)Values() async"), "\(notifier)")
        }
        #expect(notifier.contains("func lobbyValues() async") && !notifier.contains("func sayInRoom("))
        let subscriptions = try TestSupport.contents(output.appendingPathComponent("Subscriptions.swift"))
        #expect(subscriptions.contains("public init(channel: String) throws(ChannelPathError) {"), "\(subscriptions)")
        #expect(subscriptions.contains("try ChannelPathError.check(channel, rules: \(rules), allowingWildcard: true)"), "\(subscriptions)")
        // The hub never fills an open address from its parameters: it asks for an instance.
        #expect(subscriptions.contains("@_spi(Generated)\n    public static func channel(\n        for parameters: [String: ChannelSegment],"), "\(subscriptions)")
        #expect(subscriptions.contains(##"throw .missing(parameter: "channel", channel: "#/channels/room")"##), "\(subscriptions)")

        // An app makes an instance from a path it learns at runtime and reads its typed events.
        let usage = work.appendingPathComponent("Usage.swift")
        try """
            import ChannelRuntime

            func follow(_ notifier: RoomsNotifier, room path: String) async throws {
                let room = try RoomSubscription(channel: path)
                for await message in await notifier.roomValues(for: room) { _ = message.text }
            }
            """.write(to: usage, atomically: true, encoding: .utf8)
        let typecheck = try await TestSupport.typecheck(TestSupport.clientSources.map { output.appendingPathComponent($0) } + [usage])
        #expect(typecheck.status == 0, "\(typecheck.stderr)")

        let mocksOutput = work.appendingPathComponent("mocks")
        try "spec: rooms.yaml\ngenerate: mocks\nclientModule: Rooms\ntransport: \(transport)\n".write(
            to: work.appendingPathComponent("mocks.yaml"), atomically: true, encoding: .utf8)
        let mocksRun = try await TestSupport.channelgen(["generate", "--config", "mocks.yaml", "--output", mocksOutput.path, "--quiet"], in: work)
        #expect(mocksRun.status == 0, "\(mocksRun.stderr)")
        let (module, mocks) = try await TestSupport.typecheckMocks(
            mocksOutput.appendingPathComponent("Mocks.swift"), againstClientIn: output, named: "Rooms", in: work)
        #expect(module.status == 0, "\(module.stderr)")
        #expect(mocks.status == 0, "\(mocks.stderr)")
    }

    /// Several channels on one address (valid AsyncAPI 3: Kraken's, Slack's and most exchanges'
    /// sockets) used to reject the document, then to skip every channel but the first: each is now
    /// served, its subscription told apart by the property every message fixes. Where nothing tells
    /// them apart they are still served, with a warning (strict: an error). Under SSE rules the bare
    /// `/` is the root topic.
    @Test func channelsSharingAnAddressAreEachServed() async throws {
        let spec = """
            asyncapi: 3.0.0
            info: {title: Root, version: 1.0.0}
            channels:
              ping:
                address: /
                messages: {ping: {payload: {type: object, required: [event], properties: {event: {type: string, const: ping}, reqid: {type: integer}}}}}
              status:
                address: /
                messages:
                  status: {payload: {type: object, properties: {event: {type: string, enum: [systemStatus]}, status: {type: string}}}}
                  ping: {payload: {type: object, properties: {event: {type: string, const: ping}}}}
              heartbeat:
                address: /
                messages: {heartbeat: {payload: {type: object, properties: {event: {type: string, const: heartbeat}}}}}
              loose:
                address: app/loose
                messages: {m: {payload: {type: string}}}
              looseAgain:
                address: app/loose
                messages: {m: {payload: {type: integer}}}
            operations:
              pingValues: {action: receive, channel: {$ref: '#/channels/ping'}}
              statusValues: {action: receive, channel: {$ref: '#/channels/status'}}
              heartbeatValues: {action: receive, channel: {$ref: '#/channels/heartbeat'}}
              looseValues: {action: receive, channel: {$ref: '#/channels/loose'}}
              looseAgainValues: {action: receive, channel: {$ref: '#/channels/looseAgain'}}
            """
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let (result, output) = try await TestSupport.generate(spec: spec, named: "root.yaml", in: work, extra: "transport: sse\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("root.yaml:18:3: warning: channel 'looseAgain' has the same address as 'loose' ("), "\(result.stderr)")
        #expect(result.stderr.contains("root.yaml:15:3) and their events cannot be told apart"), "\(result.stderr)")
        #expect(!result.stderr.contains("'status' has the same address"), "\(result.stderr)")
        let notifier = try TestSupport.contents(output.appendingPathComponent("Notifier.swift"))
        for operation in ["ping", "status", "heartbeat", "loose", "looseAgain"] {
            #expect(notifier.contains("func \(operation)Values()"), "\(operation)")
        }
        // Each skips the values that name only the others' messages; `ping` is also `status`'s.
        let subscriptions = try TestSupport.contents(output.appendingPathComponent("Subscriptions.swift"))
        #expect(subscriptions.contains(#"SharedAddressRouting(property: "event", otherChannelsValues: ["heartbeat", "systemStatus"])"#), "\(subscriptions)")
        #expect(subscriptions.contains(#"SharedAddressRouting(property: "event", otherChannelsValues: ["heartbeat"])"#))
        #expect(subscriptions.contains(#"SharedAddressRouting(property: "event", otherChannelsValues: ["ping", "systemStatus"])"#))
        #expect(subscriptions.components(separatedBy: "SharedAddressRouting(").count - 1 == 3)
        let typecheck = try await TestSupport.typecheckClient(in: output)
        #expect(typecheck.status == 0, "\(typecheck.stderr)")

        let strict = try await TestSupport.channelgen(["lint", "--strict", "--transport", "sse", "root.yaml"], in: work)
        #expect(strict.status == 1)
        #expect(strict.stderr.contains("root.yaml:18:3: error: channel 'looseAgain' has the same address as 'loose'"), "\(strict.stderr)")
        #expect(!strict.stderr.contains("'status' has the same address"))
        let appSync = try await TestSupport.channelgen(["lint", "root.yaml"], in: work)
        #expect(appSync.status == 0)
        #expect(appSync.stderr.contains("invalid channel address '/': it has no segments"))
    }

    /// AppSync's convention: messages named by their `eventType`, which tells channels apart too.
    @Test func channelsOnOneAddressAreToldApartByEventType() async throws {
        let spec = """
            asyncapi: 3.0.0
            info: {title: Shared, version: 1.0.0}
            channels:
              created:
                address: app/orders
                messages: {m: {name: order/created, payload: {$ref: '#/components/schemas/OrderEvent'}}}
              cancelled:
                address: app/orders
                messages: {m: {name: order/cancelled, payload: {$ref: '#/components/schemas/OrderEvent'}}}
            operations:
              createdValues: {action: receive, channel: {$ref: '#/channels/created'}}
              cancelledValues: {action: receive, channel: {$ref: '#/channels/cancelled'}}
            components:
              schemas:
                OrderEvent: {type: object, required: [eventType], properties: {eventType: {type: string}, id: {type: string}}}
            """
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let (result, output) = try await TestSupport.generate(spec: spec, named: "shared.yaml", in: work)
        #expect(result.status == 0 && !result.stderr.contains("warning"), "\(result.stderr)")
        let subscriptions = try TestSupport.contents(output.appendingPathComponent("Subscriptions.swift"))
        #expect(subscriptions.contains(#"SharedAddressRouting(property: "eventType", otherChannelsValues: ["order/cancelled"])"#), "\(subscriptions)")
        #expect(subscriptions.contains(#"SharedAddressRouting(property: "eventType", otherChannelsValues: ["order/created"])"#))
        let typecheck = try await TestSupport.typecheckClient(in: output)
        #expect(typecheck.status == 0, "\(typecheck.stderr)")
    }

    /// `text/*` messages are `String` events: over SSE the text as it arrived (`eventsAreText`),
    /// over AppSync Events (JSON values only) a JSON string. Text beside JSON on one channel is
    /// skipped alone; binary stays out on both transports, costing only itself.
    @Test func textMessagesAreStringEventsAndBinaryOnesAreSkippedAlone() async throws {
        let spec = """
            asyncapi: 3.0.0
            info: {title: Text, version: 1.0.0}
            channels:
              ticker:
                address: app/ticker
                messages: {t: {contentType: text/plain, payload: {type: string}}}
              lines:
                address: app/lines
                messages:
                  csv: {contentType: text/csv}
                  log: {contentType: 'text/plain; charset=utf-8'}
              mixed:
                address: app/mixed
                messages:
                  text: {contentType: text/plain}
                  json: {payload: {type: object, properties: {n: {type: integer}}}}
              audio:
                address: app/audio
                messages: {frame: {contentType: audio/pcm, payload: {type: string, format: binary}}}
            operations:
              tickerValues: {action: receive, channel: {$ref: '#/channels/ticker'}}
              linesValues: {action: receive, channel: {$ref: '#/channels/lines'}}
              mixedValues: {action: receive, channel: {$ref: '#/channels/mixed'}}
              audioValues: {action: receive, channel: {$ref: '#/channels/audio'}}
              say: {action: send, channel: {$ref: '#/channels/ticker'}}
            """
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        for (transport, textFlag) in [("sse", true), ("appsync", false)] {
            let (result, output) = try await TestSupport.generate(spec: spec, named: "text.yaml", in: work, extra: "transport: \(transport)\n")
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("text.yaml:15:7: warning: message 'text' of channel 'mixed' is text beside JSON messages; it is skipped"), "\(result.stderr)")
            #expect(result.stderr.contains("text.yaml:19:37: warning: message 'frame' has contentType 'audio/pcm'"), "\(result.stderr)")
            #expect(result.stderr.contains("warning: channel 'audio' is skipped"), "\(result.stderr)")
            let notifier = try TestSupport.contents(output.appendingPathComponent("Notifier.swift"))
            #expect(notifier.contains("func tickerValues() async -> AsyncStream<String>"), "\(notifier)")
            #expect(notifier.contains("func linesValues() async -> AsyncStream<String>"))
            #expect(notifier.contains("func say(_ events: [String])"))
            #expect(notifier.contains("func mixedValues() async -> AsyncStream<MixedPayload>") || notifier.contains("func mixedValues() async -> AsyncStream<JsonPayload>"), "\(notifier)")
            #expect(!notifier.contains("audioValues"))
            let subscriptions = try TestSupport.contents(output.appendingPathComponent("Subscriptions.swift"))
            #expect(subscriptions.components(separatedBy: "static let eventsAreText: Bool = true").count - 1 == (textFlag ? 2 : 0), "\(subscriptions)")
            let typecheck = try await TestSupport.typecheckClient(in: output)
            #expect(typecheck.status == 0, "\(typecheck.stderr)")
        }
    }

    /// What would change a topic's meaning or its quoting in Swift stays out on every transport.
    @Test(arguments: ["app/*", "app/{", "a b", "app/\"x", "app/x\\\\y", "app/#"])
    func charactersThatChangeATopicAreRefused(_ address: String) {
        let rules = ChannelNamingRules.serverSentEvents
        let refused = address.split(separator: "/").contains { !rules.isValidSegment($0) } || address.contains("{")
        #expect(refused, "\(address)")
    }
}
