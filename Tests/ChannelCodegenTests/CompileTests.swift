import ChannelCodegen
import Foundation
import Testing

/// Generated code must compile: a tenth channel added by editing the spec only, Swift keywords
/// as property names, and every document of the public AsyncAPI corpus (or a clean diagnostic).
@Suite("Generated code compiles")
struct CompileTests {
    /// Copies `spec/` to a temporary folder and returns the folder.
    private func specCopy() throws -> URL {
        let work = try TestSupport.temporaryDirectory()
        try FileManager.default.copyItem(at: TestSupport.packageRoot.appendingPathComponent("spec"), to: work.appendingPathComponent("spec"))
        return work
    }

    private func generate(config: URL, into output: URL) async throws -> [URL] {
        let result = try await TestSupport.channelgen(["generate", "--config", config.path, "--output", output.path, "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        return OutputFile.allCases.map { output.appendingPathComponent($0.rawValue) }
    }

    @Test func aTenthChannelNeedsOnlySpecEdits() async throws {
        let work = try specCopy()
        defer { try? FileManager.default.removeItem(at: work) }
        let asyncapi = work.appendingPathComponent("spec/vortex-events.asyncapi.yaml")
        var spec = try TestSupport.contents(asyncapi)
        spec = spec.replacingOccurrences(of: "\noperations:\n", with: """

              deviceTamper:
                address: vortex-app/user/{userId}/device/tamperDetected
                summary: A device detected tampering.
                parameters:
                  userId:
                    $ref: '#/components/parameters/userId'
                messages:
                  tamperDetected:
                    $ref: '#/components/messages/tamperDetected'

            operations:
              deviceTamperValues:
                action: receive
                channel:
                  $ref: '#/channels/deviceTamper'

            """)
        spec += """
                tamperDetected:
                  name: device/tamperDetected
                  payload:
                    $ref: './openapi-schemas.yaml#/components/schemas/DeviceTamperOutput'

            """
        try spec.write(to: asyncapi, atomically: true, encoding: .utf8)
        let schemas = work.appendingPathComponent("spec/openapi-schemas.yaml")
        try (try TestSupport.contents(schemas) + """

                DeviceTamperOutput:
                  type: object
                  required: [eventType, timestamp]
                  properties:
                    eventType:
                      type: string
                    timestamp:
                      type: string
                      format: date-time
                    thingName:
                      type: string
                      nullable: true

            """).write(to: schemas, atomically: true, encoding: .utf8)

        let config = try TestSupport.writeConfig(in: work, spec: asyncapi, extra: "notifier: BackendNotifier\n")
        let files = try await generate(config: config, into: work.appendingPathComponent("out"))
        let models = try TestSupport.contents(files[0]), channels = try TestSupport.contents(files[1])
        let subscriptions = try TestSupport.contents(files[2]), notifier = try TestSupport.contents(files[3])

        #expect(models.contains("public struct DeviceTamperOutput: Codable, Hashable, Sendable"))
        #expect(models.components(separatedBy: "Output: Codable, Hashable, Sendable {").count - 1 == 10)
        #expect(channels.contains("public static let deviceTamper = ChannelTemplate(\"vortex-app/user/{userId}/device/tamperDetected\")"))
        #expect(subscriptions.contains("public struct DeviceTamperSubscription: ChannelSubscription"))
        #expect(subscriptions.components(separatedBy: ": ChannelSubscription {").count - 1 == 10)
        #expect(notifier.contains("func deviceTamperValues() async -> AsyncStream<DeviceTamperOutput>"))
        #expect(notifier.components(separatedBy: "() async -> AsyncStream<").count - 1 == 22)  // protocol + class: one per operation, and the connection's states

        let typecheck = try await TestSupport.typecheck(files)
        #expect(typecheck.status == 0, "\(typecheck.stderr)")
    }

    @Test func swiftKeywordsAsNamesCompileAndDecode() async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let spec = work.appendingPathComponent("keywords.yaml")
        try """
            asyncapi: 3.0.0
            info: {title: Keywords, version: 1.0.0}
            channels:
              protocol:
                address: ns/{self}/protocol
                parameters:
                  self: {}
                messages:
                  default:
                    name: default
                    payload:
                      $ref: '#/components/schemas/Keywords'
            operations:
              default:
                action: receive
                channel: {$ref: '#/channels/protocol'}
            components:
              schemas:
                Keywords:
                  type: object
                  required: [default, protocol, self]
                  properties:
                    default: {type: string}
                    protocol: {type: integer}
                    self: {type: boolean}
                    class: {type: string, nullable: true}
                    Type:
                      type: object
                      properties:
                        in: {type: string}
                    case:
                      type: string
                      enum: [default, case, self, unknown, 2fa]
            """.write(to: spec, atomically: true, encoding: .utf8)
        let config = try TestSupport.writeConfig(in: work, spec: spec)
        let files = try await generate(config: config, into: work.appendingPathComponent("out"))
        let models = try TestSupport.contents(files[0])
        #expect(models.contains("public var `default`: String"))
        #expect(models.contains("public var `protocol`: Int"))
        #expect(models.contains("public var `self`: Bool"))
        #expect(models.contains("case unknown2"))
        #expect(models.contains("case _2fa"))
        let typecheck = try await TestSupport.typecheck(files)
        #expect(typecheck.status == 0, "\(typecheck.stderr)")

        // Compile the models with a tiny program that decodes a payload using those keys.
        let main = work.appendingPathComponent("main.swift")
        try """
            import Foundation
            let json = #"{"default":"d","protocol":7,"self":true,"Type":{"in":"x"},"case":"self"}"#
            let value = try JSONDecoder().decode(Keywords.self, from: Data(json.utf8))
            print(value.default, value.protocol, value.`self`, value.type?.in ?? "-", value.case == .`self`)
            """.write(to: main, atomically: true, encoding: .utf8)
        let run = try await TestSupport.runProgram(models: files[0], main: main, in: work)
        #expect(run.build.status == 0, "\(run.build.stderr)")
        #expect(run.stdout == "d 7 true x true\n")
    }

    /// Issue 14: `allOf` inheritance (AsyncAPI's string discriminator), a documented `$ref` and a
    /// composed primitive generate one struct that compiles and decodes a payload.
    @Test func allOfCompositionsCompileAndDecode() async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let spec = work.appendingPathComponent("pets.yaml")
        try """
            asyncapi: 3.0.0
            info: {title: Pets, version: 1.0.0}
            channels:
              cats:
                address: app/cats
                messages: {cat: {payload: {$ref: '#/components/schemas/Cat'}}}
              pets:
                address: app/pets
                messages: {pet: {payload: {$ref: '#/components/schemas/Pet'}}}
            operations:
              catValues: {action: receive, channel: {$ref: '#/channels/cats'}}
              petValues: {action: receive, channel: {$ref: '#/channels/pets'}}
            components:
              schemas:
                Pet:
                  type: object
                  discriminator: petType
                  required: [petType, name]
                  properties:
                    petType: {type: string}
                    name: {type: string}
                    bornAt:
                      allOf:
                        - {type: string, format: date-time}
                        - {type: string}
                Id: {type: string}
                Cat:
                  allOf:
                    - $ref: '#/components/schemas/Pet'
                    - type: object
                      required: [huntingSkill]
                      properties:
                        huntingSkill: {type: string, enum: [clueless, lazy]}
                        id:
                          allOf:
                            - $ref: '#/components/schemas/Id'
                            - description: The cat's id.
                        owner:
                          allOf: [{$ref: '#/components/schemas/Pet'}]
            """.write(to: spec, atomically: true, encoding: .utf8)
        let config = try TestSupport.writeConfig(in: work, spec: spec)
        let files = try await generate(config: config, into: work.appendingPathComponent("out"))
        let typecheck = try await TestSupport.typecheck(files)
        #expect(typecheck.status == 0, "\(typecheck.stderr)")

        let main = work.appendingPathComponent("main.swift")
        try """
            import Foundation
            let json = #"{"petType":"cat","name":"Tom","bornAt":"2020-01-02T03:04:05Z","huntingSkill":"lazy","id":"c1","owner":{"petType":"dog","name":"Rex"}}"#
            let cat = try JSONDecoder().decode(Cat.self, from: Data(json.utf8))
            let owner: Pet? = cat.owner
            print(cat.petType, cat.name, Int(cat.bornAt!.timeIntervalSince1970), cat.huntingSkill == .lazy, cat.id ?? "-", owner?.name ?? "-")
            """.write(to: main, atomically: true, encoding: .utf8)
        let run = try await TestSupport.runProgram(models: files[0], main: main, in: work)
        #expect(run.build.status == 0, "\(run.build.stderr)")
        #expect(run.stdout == "cat Tom 1577934245 true c1 Rex\n")
    }

    /// Issue 15: a union told apart by a property (a discriminator's, or a constant each variant
    /// fixes) has a fast decoder: it reads the property ahead, then the whole value as the variant
    /// it names. On seeded random payloads (tags known, unknown, `null`, not strings; values that
    /// are not objects; truncated JSON) it agrees with `JSONDecoder` whenever it returns a value,
    /// and the runtime's decode (fast path, then `JSONDecoder`) agrees with `JSONDecoder` always.
    @Test func propertyTaggedUnionsDecodeFastAndAgreeWithJSONDecoder() async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let spec = work.appendingPathComponent("unions.yaml")
        try Self.spec(title: "Unions", payloads: ["Exercise", "Pet"], schemas: """
                Walk: {type: object, required: [kind, length], properties: {kind: {type: string}, length: {type: integer}}}
                Run: {type: object, required: [kind], properties: {kind: {type: string}, speed: {type: number}}}
                Exercise:
                  oneOf: [{$ref: '#/components/schemas/Walk'}, {$ref: '#/components/schemas/Run'}]
                  discriminator: {propertyName: kind, mapping: {walk/slow: '#/components/schemas/Walk', run: Run}}
                Cat:
                  type: object
                  required: [petType, name]
                  properties: {petType: {type: string, const: cat}, name: {type: string}, bornAt: {type: string, format: date-time}}
                Dog:
                  type: object
                  required: [petType]
                  properties: {petType: {type: string, const: dog}, name: {type: string}, goodBoy: {type: boolean}}
                Pet:
                  oneOf: [{$ref: '#/components/schemas/Cat'}, {$ref: '#/components/schemas/Dog'}]
            """).write(to: spec, atomically: true, encoding: .utf8)
        let config = try TestSupport.writeConfig(in: work, spec: spec)
        _ = try await generate(config: config, into: work.appendingPathComponent("out"))

        try await expectFastDecodersAgree(types: ["Exercise", "Pet"], keys: ["kind", "petType", "length", "speed", "name", "bornAt", "goodBoy", "other"], fastShare: 0.5, in: work)
    }

    /// Issue 15: a union decoded by trying each variant reads fast too, skipping the variants a value
    /// certainly is not (another JSON kind, a required key missing), and agrees with `JSONDecoder`
    /// on which variant it picks, also inside objects and arrays.
    @Test func unionsTriedVariantByVariantDecodeFastAndAgreeWithJSONDecoder() async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let spec = work.appendingPathComponent("tried.yaml")
        try Self.spec(title: "Tried", payloads: ["Mixed", "Holder"], schemas: """
                Walk: {type: object, required: [steps], properties: {steps: {type: integer}, note: {type: string}}}
                Ride: {type: object, required: [name], properties: {name: {type: string}, at: {type: string, format: date-time}}}
                Mood: {type: string, enum: [calm, busy]}
                Mixed:
                  oneOf:
                    - {$ref: '#/components/schemas/Walk'}
                    - {$ref: '#/components/schemas/Ride'}
                    - {type: string, format: date-time}
                    - {$ref: '#/components/schemas/Mood'}
                    - {type: integer}
                    - {type: array, items: {type: string}}
                    - {type: boolean}
                Holder:
                  type: object
                  required: [item]
                  properties:
                    item: {$ref: '#/components/schemas/Mixed'}
                    list: {type: array, items: {$ref: '#/components/schemas/Mixed'}}
            """).write(to: spec, atomically: true, encoding: .utf8)
        let config = try TestSupport.writeConfig(in: work, spec: spec)
        _ = try await generate(config: config, into: work.appendingPathComponent("out"))

        try await expectFastDecodersAgree(
            types: ["Mixed", "Holder"], keys: ["steps", "note", "name", "at", "item", "list", "other"], fastShare: 0.15, in: work)
    }

    /// Issue 15: an `allOf` with a union (a composition: each member decodes the whole value) reads
    /// fast too, each member from the value's start, and agrees with `JSONDecoder`; so does an object
    /// holding one, and a member kept in a box because it contains the composition.
    @Test func compositionsWithAUnionDecodeFastAndAgreeWithJSONDecoder() async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let spec = work.appendingPathComponent("compositions.yaml")
        try Self.spec(title: "Compositions", payloads: ["Tagged", "Holder", "Tree"], schemas: """
                Base: {type: object, required: [id], properties: {id: {type: string}, at: {type: string, format: date-time}}}
                Walk: {type: object, required: [steps], properties: {steps: {type: integer}}}
                Ride: {type: object, required: [name], properties: {name: {type: string}}}
                Mixed:
                  oneOf: [{$ref: '#/components/schemas/Walk'}, {$ref: '#/components/schemas/Ride'}, {type: integer}]
                Tagged:
                  allOf:
                    - $ref: '#/components/schemas/Base'
                    - $ref: '#/components/schemas/Mixed'
                    - {type: object, properties: {note: {type: string}}}
                Holder:
                  type: object
                  properties:
                    item: {$ref: '#/components/schemas/Tagged'}
                    list: {type: array, items: {$ref: '#/components/schemas/Tagged'}}
                Tree:
                  allOf:
                    - {type: object, required: [id], properties: {id: {type: string}, child: {$ref: '#/components/schemas/Tree'}}}
                    - oneOf: [{$ref: '#/components/schemas/Walk'}, {$ref: '#/components/schemas/Ride'}]
            """).write(to: spec, atomically: true, encoding: .utf8)
        let config = try TestSupport.writeConfig(in: work, spec: spec)
        _ = try await generate(config: config, into: work.appendingPathComponent("out"))

        // Both need an `id` and a union's variant: 121 of 6 000 seeded payloads read fast.
        try await expectFastDecodersAgree(types: ["Tagged", "Tree"], keys: ["id", "at", "steps", "name", "note", "child"], fastShare: 0.01, in: work)
        try await expectFastDecodersAgree(types: ["Holder"], keys: ["item", "list", "id", "steps", "name"], fastShare: 0.1, in: work)
    }

    /// Issue 15: a model that keeps the properties its schema does not name (`additionalProperties`:
    /// typed, dates, or any JSON) has a fast decoder too, and agrees with `JSONDecoder`.
    @Test func extraPropertiesDecodeFastAndAgreeWithJSONDecoder() async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let spec = work.appendingPathComponent("extras.yaml")
        try Self.spec(title: "Extras", payloads: ["Tally", "Bag", "Stamps"], schemas: """
                Tally: {type: object, required: [name], properties: {name: {type: string}}, additionalProperties: {type: integer}}
                Bag: {type: object, properties: {name: {type: string}, others: {type: boolean}}, additionalProperties: true}
                Stamps: {type: object, properties: {name: {type: string}}, additionalProperties: {type: string, format: date-time}}
            """).write(to: spec, atomically: true, encoding: .utf8)
        let config = try TestSupport.writeConfig(in: work, spec: spec)
        _ = try await generate(config: config, into: work.appendingPathComponent("out"))
        try await expectFastDecodersAgree(types: ["Tally", "Bag", "Stamps"], keys: ["name", "others", "a", "b"], fastShare: 0.1, in: work)
    }

    /// An AsyncAPI document with one channel and `receive` operation per payload in `payloads`
    /// (each a component schema of `schemas`, whose entries are indented by four spaces).
    private static func spec(title: String, payloads: [String], schemas: String) -> String {
        func key(_ payload: String) -> String { payload.prefix(1).lowercased() + payload.dropFirst() }
        let channels = payloads.map { "  \(key($0)): {address: app/\(key($0)), messages: {m: {payload: {$ref: '#/components/schemas/\($0)'}}}}" }
        let operations = payloads.map { "  \(key($0))Values: {action: receive, channel: {$ref: '#/channels/\(key($0))'}}" }
        return (["asyncapi: 3.0.0", "info: {title: \(title), version: 1.0.0}", "channels:"] + channels + ["operations:"] + operations
            + ["components:", "  schemas:", schemas]).joined(separator: "\n") + "\n"
    }

    /// Compiles the models and fast decoders generated into `work/out` with a program that decodes
    /// 3 000 seeded random payloads (objects with `keys`, other values, truncated JSON) as each of
    /// `types`, and expects: whenever the fast path returns a value, `JSONDecoder` returns an equal
    /// one; the runtime's decode (fast path, then `JSONDecoder`) always agrees with `JSONDecoder`;
    /// and the fast path reads more than `fastShare` of them (it does not just decline; random
    /// values are often of the wrong type, which both paths reject).
    private func expectFastDecodersAgree(types: [String], keys: [String], fastShare: Double, in work: URL) async throws {
        let main = work.appendingPathComponent("main.swift")
        let checks = types.map { "    check(\($0).self, json)" }.joined(separator: "\n")
        try #"""
            import Foundation
            nonisolated(unsafe) var state: UInt64 = 15
            func random() -> UInt64 {  // SplitMix64
                state &+= 0x9E37_79B9_7F4A_7C15
                var z = state
                z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
                z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
                return z ^ (z >> 31)
            }
            func pick(_ choices: [String]) -> String { choices[Int(random() % UInt64(choices.count))] }
            let tags = [#""walk/slow""#, #""run""#, #""Walk""#, #""cat""#, #""dog""#, #""bird""#, "null", "7", "true", #""r\u0075n""#, "{}"]
            let values = [#""x""#, "3", "-2", "2.5", "1e2", "true", "null", #""2020-01-02T03:04:05Z""#, #""2020-01-02T03:04:05.25+01:00""#, "[]", "{}", #""\u00e9""#, "[1,{\"a\":null}]"]
            let keys = KEYS
            func object() -> String {
                var members: [String] = []
                for _ in 0..<Int(random() % 6) {
                    let key = pick(keys)
                    let tagged = (key == "kind" || key == "petType") && random() % 3 != 0
                    members.append("\"\(key)\":\(tagged ? pick(tags) : pick(values))")
                }
                let space = random() % 4 == 0 ? " " : ""
                return "{" + space + members.joined(separator: "," + space) + "}"
            }
            func payload() -> String {
                switch random() % 10 {
                case 0: return pick(values)
                case 1: return String(object().dropLast(Int(random() % 3)))
                default: return object()
                }
            }
            nonisolated(unsafe) var disagreements = 0, fast = 0, checked = 0
            nonisolated(unsafe) let reader = ScannerDecoding()
            func check<T: Decodable & Hashable>(_ type: T.Type, _ json: String) {
                checked += 1
                let reference = try? JSONDecoder().decode(T.self, from: Data(json.utf8))
                if let quick = reader.read(T.self, from: json) {
                    fast += 1
                    if quick != reference { disagreements += 1; print("fast path differs: \(json)") }
                }
                if (try? reader.decode(T.self, from: json, fallback: JSONDecoder())) != reference { disagreements += 1; print("decode differs: \(json)") }
            }
            for _ in 0..<3000 {
                let json = payload()
            CHECKS
            }
            print("disagreements \(disagreements), fast \(fast) of \(checked)")
            """#.replacingOccurrences(of: "KEYS", with: "\(keys)").replacingOccurrences(of: "CHECKS", with: checks)
            .write(to: main, atomically: true, encoding: .utf8)
        let out = work.appendingPathComponent("out")
        let run = try await TestSupport.runProgram(
            models: out.appendingPathComponent("Models.swift"), main: main, in: work)
        #expect(run.build.status == 0, "\(run.build.stderr)")
        let summary = run.stdout.split(separator: "\n").last.map(String.init) ?? ""
        #expect(summary.hasPrefix("disagreements 0,"), "\(run.stdout)")
        let fast = Int(summary.split(separator: " ").dropFirst(3).first ?? "") ?? 0
        #expect(Double(fast) > fastShare * Double(3000 * types.count), "\(summary)")
    }

    /// Issue 14: `oneOf`/`anyOf` unions decode by an OpenAPI discriminator with mapping, by a
    /// property each variant fixes, or by trying each variant in order; an unknown variant keeps
    /// its JSON and a tag whose variant does not decode is an error.
    @Test func unionsCompileAndDecode() async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let spec = work.appendingPathComponent("unions.yaml")
        try """
            asyncapi: 3.0.0
            info: {title: Unions, version: 1.0.0}
            channels:
              market: {address: app/market, messages: {m: {payload: {$ref: '#/components/schemas/Market'}}}}
              exercise: {address: app/exercise, messages: {m: {payload: {$ref: '#/components/schemas/Exercise'}}}}
              mixed: {address: app/mixed, messages: {m: {payload: {$ref: '#/components/schemas/Mixed'}}}}
            operations:
              marketValues: {action: receive, channel: {$ref: '#/channels/market'}}
              exerciseValues: {action: receive, channel: {$ref: '#/channels/exercise'}}
              mixedValues: {action: receive, channel: {$ref: '#/channels/mixed'}}
            components:
              schemas:
                Market:
                  type: object
                  oneOf: [{$ref: '#/components/schemas/Heartbeat'}, {$ref: '#/components/schemas/Update'}]
                Heartbeat:
                  allOf:
                    - {properties: {type: {type: string, const: heartbeat}}, required: [type]}
                    - $ref: '#/components/schemas/Common'
                Update:
                  allOf:
                    - {properties: {type: {type: string, const: update}, eventId: {type: integer}}, required: [type, eventId]}
                    - $ref: '#/components/schemas/Common'
                Common: {type: object, properties: {socket_sequence: {type: integer}}}
                Walk: {type: object, required: [kind, length], properties: {kind: {type: string}, length: {type: integer}}}
                Run: {type: object, required: [kind], properties: {kind: {type: string}, speed: {type: number}}}
                Exercise:
                  oneOf: [{$ref: '#/components/schemas/Walk'}, {$ref: '#/components/schemas/Run'}]
                  discriminator: {propertyName: kind, mapping: {walk/slow: '#/components/schemas/Walk', run: Run}}
                Mixed:
                  anyOf:
                    - {type: string, format: date-time}
                    - {type: integer}
                    - $ref: '#/components/schemas/Walk'
                    - {type: object, title: Note, required: [message], properties: {message: {type: string}}}
            """.write(to: spec, atomically: true, encoding: .utf8)
        let config = try TestSupport.writeConfig(in: work, spec: spec)
        let files = try await generate(config: config, into: work.appendingPathComponent("out"))
        let typecheck = try await TestSupport.typecheck(files)
        #expect(typecheck.status == 0, "\(typecheck.stderr)")

        let main = work.appendingPathComponent("main.swift")
        try """
            import Foundation
            func show<T: Decodable>(_ type: T.Type, _ json: String) -> String {
                do { return "\\(try JSONDecoder().decode(T.self, from: Data(json.utf8)))" } catch { return "error" }
            }
            print(show(Market.self, #"{"type":"heartbeat","socket_sequence":3}"#))
            print(show(Market.self, #"{"type":"update","eventId":7}"#))
            print(show(Market.self, #"{"type":"update"}"#))
            print(show(Market.self, #"{"type":"trade"}"#))
            print(show(Exercise.self, #"{"kind":"walk/slow","length":2}"#))
            print(show(Exercise.self, #"{"kind":"run"}"#))
            print(show(Exercise.self, #"{"kind":"Walk"}"#))
            print(show(Mixed.self, #""2020-01-02T03:04:05Z""#))
            print(show(Mixed.self, "12"))
            print(show(Mixed.self, #"{"kind":"k","length":1}"#))
            print(show(Mixed.self, #"{"message":"hi"}"#))
            print(show(Mixed.self, #""text""#))
            let encoded = try JSONEncoder().encode(Market.heartbeat(Heartbeat(type: "heartbeat", socketSequence: 4)))
            print(show(Market.self, String(decoding: encoded, as: UTF8.self)))
            """.write(to: main, atomically: true, encoding: .utf8)
        let run = try await TestSupport.runProgram(models: files[0], main: main, in: work)
        #expect(run.build.status == 0, "\(run.build.stderr)")
        // (Printed types carry the module the test compiles everything into.)
        #expect(run.stdout.replacingOccurrences(of: "ChannelRuntime.", with: "").split(separator: "\n").map(String.init) == [
            #"heartbeat(Heartbeat(type: "heartbeat", socketSequence: Optional(3)))"#,
            #"update(Update(type: "update", eventId: 7, socketSequence: nil))"#,
            "error",  // tagged `update` but without the required eventId
            #"unknown(JSONValue.object(["type": JSONValue.string("trade")]))"#,
            #"walk(Walk(kind: "walk/slow", length: 2))"#,
            #"run(Run(kind: "run", speed: nil))"#,
            #"unknown(JSONValue.object(["kind": JSONValue.string("Walk")]))"#,  // the mapping names Walk `walk/slow`
            "date(2020-01-02 03:04:05 +0000)",
            "integer(12)",
            #"walk(Walk(kind: "k", length: 1))"#,
            #"note(Mixed.Note(message: "hi"))"#,
            #"unknown(JSONValue.string("text"))"#,
            #"heartbeat(Heartbeat(type: "heartbeat", socketSequence: Optional(4)))"#,
        ])
    }

    /// Issue 14: `additionalProperties` beside `properties` keeps the other keys, typed (dates too)
    /// or as JSON values, and encodes them back.
    @Test func extraPropertiesAreKeptAndEncodedBack() async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let spec = work.appendingPathComponent("extras.yaml")
        try """
            asyncapi: 3.0.0
            info: {title: Extras, version: 1.0.0}
            channels:
              labels: {address: app/labels, messages: {m: {payload: {$ref: '#/components/schemas/Labels'}}}}
            operations:
              labelValues: {action: receive, channel: {$ref: '#/channels/labels'}}
            components:
              schemas:
                Labels:
                  type: object
                  required: [id]
                  properties:
                    id: {type: string}
                    user_name: {type: string}
                    additionalProperties: {type: string}
                    seen:
                      type: object
                      properties: {first: {type: string, format: date-time}}
                      additionalProperties: {type: string, format: date-time}
                  additionalProperties: true
            """.write(to: spec, atomically: true, encoding: .utf8)
        let config = try TestSupport.writeConfig(in: work, spec: spec)
        let files = try await generate(config: config, into: work.appendingPathComponent("out"))
        let typecheck = try await TestSupport.typecheck(files)
        #expect(typecheck.status == 0, "\(typecheck.stderr)")

        let main = work.appendingPathComponent("main.swift")
        try """
            import Foundation
            let json = #"{"id":"a","user_name":"u","additionalProperties":"spec's own","colour":"red","seen":{"first":"2020-01-02T03:04:05Z","last":"2020-01-02T03:04:06Z"}}"#
            let labels = try JSONDecoder().decode(Labels.self, from: Data(json.utf8))
            print(labels.id, labels.userName ?? "-", labels.additionalProperties2 ?? "-", labels.additionalProperties)
            print(Int(labels.seen!.first!.timeIntervalSince1970), labels.seen!.additionalProperties.mapValues { Int($0.timeIntervalSince1970) })
            let again = try JSONDecoder().decode(Labels.self, from: JSONEncoder().encode(labels))
            print(again == labels)
            """.write(to: main, atomically: true, encoding: .utf8)
        let run = try await TestSupport.runProgram(models: files[0], main: main, in: work)
        #expect(run.build.status == 0, "\(run.build.stderr)")
        #expect(run.stdout.replacingOccurrences(of: "ChannelRuntime.", with: "").split(separator: "\n").map(String.init) == [
            #"a u spec's own ["colour": JSONValue.string("red")]"#,
            #"1577934245 ["last": 1577934246]"#,
            "true",
        ])
    }

    /// Issue 14: types that contain themselves (directly, through another type, through a union,
    /// through an inline object) are boxed or `indirect`, compile, and decode nested payloads.
    @Test func recursiveTypesCompileAndDecode() async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let spec = work.appendingPathComponent("recursive.yaml")
        try """
            asyncapi: 3.0.0
            info: {title: Recursive, version: 1.0.0}
            channels:
              pets: {address: app/pets, messages: {m: {payload: {$ref: '#/components/schemas/Pet'}}}}
              sums: {address: app/sums, messages: {m: {payload: {$ref: '#/components/schemas/Expr'}}}}
              pairs: {address: app/pairs, messages: {m: {payload: {$ref: '#/components/schemas/A'}}}}
            operations:
              petValues: {action: receive, channel: {$ref: '#/channels/pets'}}
              sumValues: {action: receive, channel: {$ref: '#/channels/sums'}}
              pairValues: {action: receive, channel: {$ref: '#/channels/pairs'}}
            components:
              schemas:
                Pet:
                  type: object
                  required: [name]
                  properties:
                    name: {type: string}
                    parent: {$ref: '#/components/schemas/Pet'}
                    children: {type: array, items: {$ref: '#/components/schemas/Pet'}}
                    family:
                      type: object
                      properties: {head: {$ref: '#/components/schemas/Pet'}}
                Expr:
                  oneOf: [{type: integer}, {$ref: '#/components/schemas/Sum'}]
                Sum:
                  type: object
                  required: [left, right]
                  properties:
                    left: {$ref: '#/components/schemas/Expr'}
                    right: {$ref: '#/components/schemas/Expr'}
                A: {type: object, properties: {b: {$ref: '#/components/schemas/B'}, n: {type: integer}}}
                B: {type: object, required: [a], properties: {a: {$ref: '#/components/schemas/A'}}}
            """.write(to: spec, atomically: true, encoding: .utf8)
        let config = try TestSupport.writeConfig(in: work, spec: spec)
        let files = try await generate(config: config, into: work.appendingPathComponent("out"))
        let typecheck = try await TestSupport.typecheck(files)
        #expect(typecheck.status == 0, "\(typecheck.stderr)")
        let models = try TestSupport.contents(files[0])
        #expect(models.contains("public indirect enum Expr"))
        #expect(!models.contains("fileprivate var _children"))  // an array already stores on the heap

        let main = work.appendingPathComponent("main.swift")
        try """
            import Foundation
            func value(_ expr: Expr) -> Int {
                switch expr {
                case .integer(let n): return n
                case .sum(let sum): return value(sum.left) + value(sum.right)
                case .unknown: return -1
                }
            }
            let pet = try JSONDecoder().decode(Pet.self, from: Data(#"{"name":"c","parent":{"name":"p","parent":{"name":"g"}},"children":[{"name":"k"}],"family":{"head":{"name":"h"}}}"#.utf8))
            print(pet.name, pet.parent?.name ?? "-", pet.parent?.parent?.name ?? "-", pet.parent?.parent?.parent?.name ?? "-", pet.children?.map(\\.name) ?? [], pet.family?.head?.name ?? "-")
            var edited = pet
            edited.parent?.parent = Pet(name: "x")
            print(edited.parent?.parent?.name ?? "-", pet.parent?.parent?.name ?? "-", edited == pet)
            let sum = try JSONDecoder().decode(Expr.self, from: Data(#"{"left":1,"right":{"left":2,"right":{"left":3,"right":4}}}"#.utf8))
            print(value(sum))
            let pair = try JSONDecoder().decode(A.self, from: Data(#"{"n":1,"b":{"a":{"n":2,"b":{"a":{"n":3}}}}}"#.utf8))
            print(pair.n ?? 0, pair.b?.a.n ?? 0, pair.b?.a.b?.a.n ?? 0)
            let again = try JSONDecoder().decode(Pet.self, from: JSONEncoder().encode(pet))
            print(again == pet)
            """.write(to: main, atomically: true, encoding: .utf8)
        let run = try await TestSupport.runProgram(models: files[0], main: main, in: work)
        #expect(run.build.status == 0, "\(run.build.stderr)")
        #expect(run.stdout.split(separator: "\n").map(String.init) == [
            #"c p g - ["k"] h"#,
            "x g false",  // the box is a value: editing a copy leaves the original alone
            "10",
            "1 2 3",
            "true",
        ])
    }

    /// Issue 14: a channel with several messages streams an enum of them, recognized by a property
    /// each message fixes or by `eventType` naming the message; a one-message channel is unchanged.
    @Test func severalMessagesOnOneChannelCompileAndDecode() async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let spec = work.appendingPathComponent("rooms.yaml")
        try """
            asyncapi: 3.0.0
            info: {title: Rooms, version: 1.0.0}
            channels:
              room:
                address: app/rooms/{roomId}
                parameters: {roomId: {}}
                messages:
                  posted: {name: chat/posted, payload: {type: object, required: [eventType, text], properties: {eventType: {type: string}, text: {type: string}}}}
                  typing: {name: chat/typing, payload: {type: object, required: [eventType], properties: {eventType: {type: string}, who: {type: string}}}}
              ticker:
                address: app/ticker
                messages:
                  trade: {payload: {type: object, properties: {kind: {const: trade}, price: {type: number}}}}
                  quote: {payload: {type: object, properties: {kind: {const: quote}, bid: {type: number}}}}
            operations:
              roomValues:
                action: receive
                channel: {$ref: '#/channels/room'}
                messages: [{$ref: '#/channels/room/messages/posted'}]
              tickerValues: {action: receive, channel: {$ref: '#/channels/ticker'}}
            """.write(to: spec, atomically: true, encoding: .utf8)
        let config = try TestSupport.writeConfig(in: work, spec: spec)
        let files = try await generate(config: config, into: work.appendingPathComponent("out"))
        let typecheck = try await TestSupport.typecheck(files)
        #expect(typecheck.status == 0, "\(typecheck.stderr)")
        let subscriptions = try TestSupport.contents(files[2])
        #expect(subscriptions.contains("public typealias Event = RoomMessage"))
        #expect(subscriptions.contains("public typealias Event = TickerMessage"))

        let main = work.appendingPathComponent("main.swift")
        try """
            import Foundation
            func show<T: Decodable>(_ type: T.Type, _ json: String) -> String {
                do { return "\\(try JSONDecoder().decode(T.self, from: Data(json.utf8)))" } catch { return "error" }
            }
            print(show(RoomMessage.self, #"{"eventType":"chat/posted","text":"hi"}"#))
            print(show(RoomMessage.self, #"{"eventType":"chat/typing","who":"ann"}"#))
            print(show(RoomMessage.self, #"{"eventType":"chat/left"}"#))
            print(show(TickerMessage.self, #"{"kind":"quote","bid":2.5}"#))
            print(show(TickerMessage.self, #"{"kind":"trade","price":1.5}"#))
            """.write(to: main, atomically: true, encoding: .utf8)
        let run = try await TestSupport.runProgram(models: files[0], main: main, in: work)
        #expect(run.build.status == 0, "\(run.build.stderr)")
        #expect(run.stdout.replacingOccurrences(of: "ChannelRuntime.", with: "").split(separator: "\n").map(String.init) == [
            #"posted(ChatPosted(eventType: "chat/posted", text: "hi"))"#,
            #"typing(ChatTyping(eventType: "chat/typing", who: Optional("ann")))"#,
            #"unknown(JSONValue.object(["eventType": JSONValue.string("chat/left")]))"#,
            #"quote(QuotePayload(kind: Optional("quote"), bid: Optional(2.5)))"#,
            #"trade(TradePayload(kind: Optional("trade"), price: Optional(1.5)))"#,
        ])
    }

    static let corpus: [String] = {
        let root = TestSupport.fixtures.appendingPathComponent("corpus/asyncapi")
        let walker = FileManager.default.enumerator(atPath: root.path)
        var documents: [String] = []
        while let path = walker?.nextObject() as? String {
            guard path.hasSuffix(".yml") || path.hasSuffix(".yaml") else { continue }
            // Fragments (no `asyncapi:` key) are only reached through $ref.
            if path.hasPrefix("social-media/common/") { continue }
            documents.append(path)
        }
        return documents.sorted()
    }()

    @Test func corpusIsPresent() {
        #expect(Self.corpus.count == 14)
    }

    /// Every real-world document (3.0, 2.x, split across files) generates, warnings located, and
    /// everything it generates type-checks.
    @Test(arguments: corpus)
    func corpusDocumentGeneratesAndTypeChecks(_ path: String) async throws {
        let root = TestSupport.fixtures.appendingPathComponent("corpus/asyncapi")
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let config = try TestSupport.writeConfig(in: work, spec: root.appendingPathComponent(path))
        let output = work.appendingPathComponent("out")
        let result = try await TestSupport.channelgen(["generate", "--config", config.path, "--output", output.path, "--quiet"])
        // Issue 14: every document generates (lenient: what a target cannot serve is skipped with warnings).
        #expect(result.status == 0, "\(result.stderr)")
        let diagnostic = /^.+:\d+:\d+: (warning|note): .+$/
        for line in result.stderr.split(separator: "\n") {
            #expect(line.wholeMatch(of: diagnostic) != nil, "not a located warning: \(line)")
        }
        guard result.status == 0 else { return }
        let typecheck = try await TestSupport.typecheckClient(in: output)
        #expect(typecheck.status == 0, "\(typecheck.stderr)")
    }
}
