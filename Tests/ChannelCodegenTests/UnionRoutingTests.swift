import Foundation
import Testing

/// Issue 60: a union's value must land in its own case, whole. Unions took the first variant that
/// decoded, so a variant that accepts anything (nothing required) took every value, and a channel
/// where only some messages fix their `type` routed none by it: `{"type":"TurnInfo",…}` arrived as
/// the `hello` case with its transcript gone, and the app's `switch` saw the wrong event.
@Suite("Union routing")
struct UnionRoutingTests {
    static let spec = """
        asyncapi: 3.0.0
        info: {title: T, version: 1.0.0}
        channels:
          live:
            address: live
            messages:
              hello: {payload: {$ref: '#/components/schemas/Hello'}}
              turn: {payload: {$ref: '#/components/schemas/TurnInfo'}}
          pairs:
            address: pairs
            messages:
              pair: {payload: {$ref: '#/components/schemas/Pair'}}
          notes:
            address: notes
            messages:
              note: {payload: {$ref: '#/components/schemas/Note'}}
        operations:
          onLive: {action: receive, channel: {$ref: '#/channels/live'}}
          onPairs: {action: receive, channel: {$ref: '#/channels/pairs'}}
          onNotes: {action: receive, channel: {$ref: '#/channels/notes'}}
        components:
          schemas:
            Hello:
              type: object
              properties:
                type: {const: hello}
                session: {type: string}
            TurnInfo:
              type: object
              required: [type, transcript]
              properties:
                type: {type: string}
                transcript: {type: string}
            Pair:
              anyOf:
                - {$ref: '#/components/schemas/OnlyA'}
                - {$ref: '#/components/schemas/AAndB'}
            OnlyA:
              type: object
              required: [a]
              properties: {a: {type: string}}
            AAndB:
              type: object
              required: [a, b]
              properties: {a: {type: string}, b: {type: integer}}
            Note:
              oneOf:
                - {$ref: '#/components/schemas/Loose'}
                - {$ref: '#/components/schemas/Detailed'}
            Loose:
              type: object
              properties: {text: {type: string}}
            Detailed:
              type: object
              required: [id]
              properties: {id: {type: string}, detail: {type: string}}
        """

    @Test func everyValueLandsInItsOwnCaseWhole() async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let (result, output) = try await TestSupport.generate(spec: Self.spec, named: "spec.yaml", in: work)
        #expect(result.status == 0, "\(result.stderr)")
        let main = #"""
            import Foundation
            func live(_ json: String) -> String {
                switch try? JSONDecoder().decode(LiveMessage.self, from: Data(json.utf8)) {
                case .hello(let hello)?: "hello \(hello.session ?? "-")"
                case .turn(let turn)?: "turn \(turn.transcript)"
                case .unknown?: "unknown"
                case nil: "fails"
                }
            }
            func pair(_ json: String) -> String {
                switch try? JSONDecoder().decode(Pair.self, from: Data(json.utf8)) {
                case .onlyA(let value)?: "onlyA \(value.a)"
                case .aAndB(let value)?: "aAndB \(value.a) \(value.b)"
                case .unknown?: "unknown"
                case nil: "fails"
                }
            }
            func note(_ json: String) -> String {
                switch try? JSONDecoder().decode(Note.self, from: Data(json.utf8)) {
                case .loose(let value)?: "loose \(value.text ?? "-")"
                case .detailed(let value)?: "detailed \(value.id) \(value.detail ?? "-")"
                case .unknown?: "unknown"
                case nil: "fails"
                }
            }
            print(live(#"{"type":"TurnInfo","transcript":"hello world"}"#))
            print(live(#"{"type":"hello","session":"s1"}"#))
            print(live(#"{"transcript":"no type"}"#))  // `type` is required by TurnInfo, fixed by Hello
            print(pair(#"{"a":"x","b":1}"#))
            print(pair(#"{"a":"x"}"#))
            print(note(#"{"id":"7","detail":"d"}"#))
            print(note(#"{"text":"t"}"#))
            print(note(#"{}"#))
            """#
        let run = try await TestSupport.runProgram(main: main, withModelsIn: output, in: work)
        #expect(run.build.status == 0, "\(run.build.stderr)")
        #expect(run.stdout == """
            turn hello world
            hello s1
            unknown
            aAndB x 1
            onlyA x
            detailed 7 d
            loose t
            loose -
            """ + "\n")
    }

    /// Two variants tried in turn that nothing tells apart: the second is never chosen, so the
    /// generator says so at its line (an error with `strict: true`); variants told apart by their
    /// properties' types, or by a fixed value, are not reported.
    @Test func variantsNothingTellsApartAreWarnedAboutAtTheSecond() async throws {
        let spec = """
            asyncapi: 3.0.0
            info: {title: T, version: 1.0.0}
            channels:
              c:
                address: c
                messages:
                  m: {payload: {$ref: '#/components/schemas/U'}}
            operations:
              onC: {action: receive, channel: {$ref: '#/channels/c'}}
            components:
              schemas:
                U:
                  oneOf:
                    - {$ref: '#/components/schemas/A'}
                    - {$ref: '#/components/schemas/B'}
                    - {$ref: '#/components/schemas/C'}
                    - {$ref: '#/components/schemas/D'}
                A: {type: object, required: [x], properties: {x: {type: string}}}
                B: {type: object, required: [x], properties: {x: {type: string}}}
                C: {type: object, required: [x], properties: {x: {type: integer}}}
                D: {type: object, required: [x], properties: {x: {type: string}, kind: {const: d}}}
            """
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let (result, _) = try await TestSupport.generate(spec: spec, named: "spec.yaml", in: work)
        #expect(result.status == 0, "\(result.stderr)")
        let warnings = result.stderr.split(separator: "\n").filter { $0.contains("cannot be told apart") }
        #expect(warnings.count == 1, "\(result.stderr)")
        #expect(warnings.first?.hasSuffix("spec.yaml:15:11: warning: variants 'A' and 'B' of 'U' cannot be told apart (the same properties, none fixed to a value): every such value decodes as 'A'; give each a property fixed to its own value (`const`) or add a 'discriminator'") == true, "\(result.stderr)")
        let (strict, _) = try await TestSupport.generate(spec: spec, named: "spec.yaml", in: work, extra: "strict: true\n")
        #expect(strict.status == 1 && strict.stderr.contains("spec.yaml:15:11: error: variants 'A' and 'B'"), "\(strict.stderr)")
    }

    /// A string property fixed to a value (`const`) is checked on decode. Before it was read as any
    /// string, so a channel's lone message took an event naming another (`"type":"yelled"` arrived
    /// as `said`, its `type` "yelled"), and a union's variant could read a value that names another.
    @Test func aConstPropertyIsCheckedOnDecode() async throws {
        let spec = """
            asyncapi: 3.0.0
            info: {title: Chat, version: 1.0.0}
            channels:
              room:
                address: rooms/lobby
                messages: {said: {payload: {$ref: '#/components/schemas/Said'}}}
            operations:
              onRoom: {action: receive, channel: {$ref: '#/channels/room'}}
            components:
              schemas:
                Said:
                  type: object
                  required: [type, text]
                  properties:
                    type: {type: string, const: said}
                    text: {type: string}
                    kind: {type: string, const: plain}
            """
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let (result, output) = try await TestSupport.generate(spec: spec, named: "spec.yaml", in: work)
        #expect(result.status == 0, "\(result.stderr)")
        let main = #"""
            import Foundation
            func read(_ text: String) -> String {
                let fast = ScannerDecoding().read(Said.self, from: text)
                let foundation = try? JSONDecoder().decode(Said.self, from: Data(text.utf8))
                return [fast, foundation].map { $0.map { "\($0.type) \($0.text) \($0.kind ?? "-")" } ?? "refused" }.joined(separator: " | ")
            }
            print(read(#"{"type":"said","text":"a"}"#))
            print(read(#"{"type":"said","text":"b","kind":"plain"}"#))
            print(read(#"{"type":"yelled","text":"c"}"#))
            print(read(#"{"type":"said","text":"d","kind":"fancy"}"#))
            print(Said(text: "e").type)
            """#
        let run = try await TestSupport.runProgram(main: main, withModelsIn: output, in: work)
        #expect(run.build.status == 0, "\(run.build.stderr)")
        #expect(run.stdout == """
            said a - | said a -
            said b plain | said b plain
            refused | refused
            refused | refused
            said

            """)
    }

    /// Found by the tagged-channel suite: a nested tag spelled as an enum of one value
    /// (`params.source: {enum: [push]}`) was an open enum, so the first message took every event; a
    /// message with `additionalProperties: false` took values carrying keys it does not declare; a
    /// key required but nullable was not asked for, so its message took values without it. Each now
    /// decides, and a value no message admits is `unknown`, whole.
    @Test func aNestedTagAClosedMessageAndARequiredNullableKeyEachDecide() async throws {
        let spec = """
            asyncapi: 3.0.0
            info: {title: T, version: 1.0.0}
            channels:
              sync:
                address: sync
                messages:
                  pushed: {payload: {type: object, required: [params], properties: {params: {type: object, required: [source], properties: {source: {type: string, enum: [push]}}}}}}
                  pulled: {payload: {type: object, required: [params], properties: {params: {type: object, required: [source], properties: {source: {type: string, enum: [pull]}}}}}}
              marks:
                address: marks
                messages:
                  bare: {payload: {type: object, additionalProperties: false, properties: {at: {type: string}}}}
                  noted: {payload: {type: object, required: [note], properties: {note: {type: [string, 'null']}, at: {type: string}}}}
            operations:
              onSync: {action: receive, channel: {$ref: '#/channels/sync'}}
              onMarks: {action: receive, channel: {$ref: '#/channels/marks'}}
            """
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let (result, output) = try await TestSupport.generate(spec: spec, named: "spec.yaml", in: work)
        #expect(result.status == 0, "\(result.stderr)")
        let main = #"""
            import Foundation
            func read<T: Decodable>(_ type: T.Type, _ json: String) -> String {
                guard let value = try? JSONDecoder().decode(T.self, from: Data(json.utf8)) else { return "fails" }
                return Mirror(reflecting: value).children.first?.label ?? "?"
            }
            print(read(SyncMessage.self, #"{"params":{"source":"pull"}}"#))
            print(read(SyncMessage.self, #"{"params":{"source":"push"}}"#))
            print(read(SyncMessage.self, #"{"params":{"source":"poll"}}"#))
            print(read(MarksMessage.self, #"{"at":"t","note":null}"#))
            print(read(MarksMessage.self, #"{"at":"t"}"#))
            print(read(MarksMessage.self, #"{"at":"t","other":1}"#))
            """#
        let run = try await TestSupport.runProgram(main: main, withModelsIn: output, in: work)
        #expect(run.build.status == 0, "\(run.build.stderr)")
        #expect(run.stdout == "pulled\npushed\nunknown\nnoted\nbare\nunknown\n")
    }
}
