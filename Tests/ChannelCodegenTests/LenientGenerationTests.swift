import Foundation
import Testing

/// Issue 14: by default a channel using what channelgen cannot generate (a negated schema, several messages,
/// message headers, Avro, an address the transport cannot carry) is skipped with warnings at its
/// lines and the rest generates; `strict: true` makes those errors. Malformed input stays an error.
@Suite("Lenient generation")
struct LenientGenerationTests {
    /// A copy of the shared corpus's AsyncAPI documents (real specs written by others).
    static let corpus = TestSupport.fixtures.appendingPathComponent("corpus/asyncapi")

    /// The AsyncAPI documents (3.0 and 2.x) at the top of the corpus folder.
    static var documents: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: corpus.path)) ?? []
        return names.filter { $0.hasSuffix(".yml") || $0.hasSuffix(".yaml") }.filter { name in
            let text = (try? String(contentsOf: corpus.appendingPathComponent(name), encoding: .utf8)) ?? ""
            return text.contains("asyncapi: 3.0") || text.contains("asyncapi: '2.")
        }.sorted()
    }

    @Test func corpusHoldsBothVersions() {
        #expect(Self.documents.count == 9, "\(Self.documents)")
    }

    @Test func everyCorpusDocumentGeneratesAndTypeChecks() async throws {
        try #require(!Self.documents.isEmpty, "no corpus at \(Self.corpus.path)")
        for name in Self.documents {
            let work = try TestSupport.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: work) }
            let config = try TestSupport.writeConfig(in: work, spec: Self.corpus.appendingPathComponent(name))
            let output = work.appendingPathComponent("out")
            let result = try await TestSupport.channelgen(["generate", "--config", config.path, "--output", output.path, "--quiet"])
            #expect(result.status == 0, "\(name): \(result.stderr)")
            #expect(!result.stderr.contains(": error: "), "\(name)")
            guard result.status == 0 else { continue }
            let sources = ["Models.swift", "Channels.swift", "Subscriptions.swift", "Notifier.swift"].map { output.appendingPathComponent($0) }
            let typecheck = try await TestSupport.typecheck(sources)
            #expect(typecheck.status == 0, "\(name): \(typecheck.stderr)")
        }
    }

    /// A channel skipped for its address keeps its payload types (issue 46): the app's code using
    /// them still compiles, and the one warning about the address is the message to read, not the
    /// compiler's errors about every type the channel took with it.
    @Test func aChannelSkippedForItsAddressKeepsItsPayloadTypes() async throws {
        let spec = """
            asyncapi: 3.0.0
            info: {title: Shop, version: 1.0.0}
            channels:
              good: {address: app/good, messages: {m: {payload: {$ref: '#/components/schemas/Good'}}}}
              orders: {address: 'app/orders*', messages: {m: {payload: {$ref: '#/components/schemas/Order'}}}}
              notes: {address: 'app//notes', messages: {m: {payload: {type: object, properties: {text: {type: string}}}}}}
            operations:
              goodValues: {action: receive, channel: {$ref: '#/channels/good'}}
              orderValues: {action: receive, channel: {$ref: '#/channels/orders'}}
            components:
              schemas:
                Good: {type: object, properties: {a: {type: string}}}
                Order: {type: object, properties: {id: {type: string}, line: {type: object, properties: {sku: {type: string}}}}}
            """
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let (result, output) = try await TestSupport.generate(spec: spec, named: "shop.yaml", in: work)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("warning: channel 'orders' is skipped"), "\(result.stderr)")
        let models = try TestSupport.contents(output.appendingPathComponent("Models.swift"))
        #expect(models.contains("public struct Order: Codable"))
        #expect(models.contains("public struct Line: Codable"))
        #expect(models.contains("public struct NotesPayload: Codable"), "\(models)")
        let notifier = try TestSupport.contents(output.appendingPathComponent("Notifier.swift"))
        #expect(!notifier.contains("orderValues"))
        let typecheck = try await TestSupport.typecheckClient(in: output)
        #expect(typecheck.status == 0, "\(typecheck.stderr)")
        // Strict: the address is an error, and nothing is written.
        let strict = try await TestSupport.generate(spec: spec, named: "shop.yaml", in: work, extra: "strict: true\n")
        #expect(strict.result.status == 1)
    }

    @Test func aSkippedChannelIsWarnedAtItsLinesAndStrictMakesItAnError() async throws {
        let spec = """
            asyncapi: 3.0.0
            info: {title: Mixed, version: 1.0.0}
            channels:
              good:
                address: app/good
                messages: {m: {payload: {type: object, properties: {id: {type: string}}}}}
              negated:
                address: app/negated
                messages: {m: {payload: {type: array, items: [{}]}}}
              mqtt:
                address: a/b/c/d/e/f/g
                messages: {m: {payload: {type: string}}}
            operations:
              goodValues: {action: receive, channel: {$ref: '#/channels/good'}}
              negatedValues: {action: receive, channel: {$ref: '#/channels/negated'}}
              mqttValues: {action: receive, channel: {$ref: '#/channels/mqtt'}}
            """
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try spec.write(to: work.appendingPathComponent("main.yaml"), atomically: true, encoding: .utf8)

        let lenient = try await TestSupport.channelgen(["lint", "main.yaml"], in: work)
        #expect(lenient.status == 0, "\(lenient.stderr)")
        #expect(lenient.stderr.contains("main.yaml:9:43: warning: 'items' as a list in schema"))
        #expect(lenient.stderr.contains("main.yaml:8:5: warning: channel 'negated' is skipped"))
        #expect(lenient.stderr.contains("main.yaml:11:14: warning: invalid channel address 'a/b/c/d/e/f/g'"))
        #expect(lenient.stderr.contains("main.yaml:11:5: warning: channel 'mqtt' is skipped"))

        let strict = try await TestSupport.channelgen(["lint", "--strict", "main.yaml"], in: work)
        #expect(strict.status == 1)
        #expect(strict.stderr.contains("main.yaml:9:43: error: 'items' as a list in schema"))
        #expect(strict.stderr.contains("main.yaml:11:14: error: invalid channel address"))

        let config = try TestSupport.writeConfig(in: work, spec: work.appendingPathComponent("main.yaml"))
        let output = work.appendingPathComponent("out")
        let generated = try await TestSupport.channelgen(["generate", "--config", config.path, "--output", output.path, "--quiet"])
        #expect(generated.status == 0)
        let notifier = try TestSupport.contents(output.appendingPathComponent("Notifier.swift"))
        #expect(notifier.contains("func goodValues()"))
        #expect(!notifier.contains("negatedValues") && !notifier.contains("mqttValues"))
    }

    /// A skipped channel's types are forgotten (the translator rolls back to where the channel
    /// began), so a component first reached from skipped channels is translated again for the next
    /// channel that uses it, and generated once, with its nested types.
    @Test func aComponentFirstReachedFromSkippedChannelsIsGeneratedOnceForTheChannelThatKeepsIt() async throws {
        let spec = """
            asyncapi: 3.0.0
            info: {title: Orders, version: 1.0.0}
            channels:
              badAddress:
                address: a/b/c/d/e/f/g
                messages: {m: {payload: {$ref: '#/components/schemas/Order'}}}
              negated:
                address: app/negated
                messages: {m: {payload: {type: object, properties: {order: {$ref: '#/components/schemas/Order'}, rest: {type: array, items: [{}]}}}}}
              good:
                address: app/good
                messages: {m: {payload: {$ref: '#/components/schemas/Order'}}}
            operations:
              badAddressValues: {action: receive, channel: {$ref: '#/channels/badAddress'}}
              negatedValues: {action: receive, channel: {$ref: '#/channels/negated'}}
              goodValues: {action: receive, channel: {$ref: '#/channels/good'}}
            components:
              schemas:
                Order:
                  type: object
                  properties:
                    id: {type: string}
                    line: {type: object, properties: {sku: {type: string}}}
                    state: {type: string, enum: [open, closed]}
            """
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let (generated, output) = try await TestSupport.generate(spec: spec, named: "orders.yaml", in: work)
        #expect(generated.status == 0, "\(generated.stderr)")
        #expect(generated.stderr.contains("channel 'badAddress' is skipped") && generated.stderr.contains("channel 'negated' is skipped"))
        let models = try TestSupport.contents(output.appendingPathComponent("Models.swift"))
        #expect(models.components(separatedBy: "struct Order:").count == 2, "\(models)")
        #expect(models.components(separatedBy: "struct Line:").count == 2, "\(models)")
        #expect(models.components(separatedBy: "enum State:").count == 2, "\(models)")
        #expect(!models.contains("Negated"), "\(models)")
        let notifier = try TestSupport.contents(output.appendingPathComponent("Notifier.swift"))
        #expect(notifier.contains("func goodValues()") && !notifier.contains("negatedValues") && !notifier.contains("badAddressValues"))
        let typecheck = try await TestSupport.typecheckClient(in: output)
        #expect(typecheck.status == 0, "\(typecheck.stderr)")
    }

    /// Seen in other generators' test fixtures: no `info`, a channel without an address (allowed by
    /// AsyncAPI 3: unknown until runtime), NATS-style wildcards in an address, a channel without
    /// messages. None stops the rest.
    @Test func noInfoNoAddressAndWildcardAddressesAreWarnedAndTheRestGenerates() async throws {
        let spec = """
            asyncapi: 3.0.0
            channels:
              good:
                address: app/good
                messages: {m: {payload: {type: object, properties: {id: {type: string}}}}}
              dynamic:
                messages: {m: {payload: {type: object, properties: {at: {type: string}}}}}
              nats:
                address: v2.issue186.star.*.*
                messages: {m: {payload: {type: string}}}
              declared:
                address: app/declared
            operations:
              goodValues: {action: receive, channel: {$ref: '#/channels/good'}}
              dynamicValues: {action: receive, channel: {$ref: '#/channels/dynamic'}}
              natsValues: {action: receive, channel: {$ref: '#/channels/nats'}}
            """
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let (generated, output) = try await TestSupport.generate(spec: spec, named: "orders.yaml", in: work)
        #expect(generated.status == 0, "\(generated.stderr)")
        #expect(generated.stderr.contains("orders.yaml:1:1: warning: missing required key 'info' in the document; the API is named 'orders' after its file"))
        // No address: known only at runtime, served per instance (`anOpenAddressIsServedPerInstance`).
        #expect(!generated.stderr.contains("'dynamic'"), "\(generated.stderr)")
        #expect(generated.stderr.contains("orders.yaml:9:14: warning: invalid channel address 'v2.issue186.star.*.*': wildcards"))
        #expect(generated.stderr.contains("orders.yaml:11:3: warning: channel 'declared' has no 'messages'"), "\(generated.stderr)")
        let notifier = try TestSupport.contents(output.appendingPathComponent("Notifier.swift"))
        #expect(notifier.contains("public protocol OrdersNotifierProtocol") && notifier.contains("func goodValues()"))
        #expect(notifier.contains("func dynamicValues(for subscription: DynamicSubscription)") && !notifier.contains("natsValues"))
        let typecheck = try await TestSupport.typecheckClient(in: output)
        #expect(typecheck.status == 0, "\(typecheck.stderr)")

        // Models need no address: every channel's payload is a model.
        let models = try await TestSupport.channelgen(["lint", "--models", "orders.yaml"], in: work)
        #expect(models.status == 0 && !models.stderr.contains("address"), "\(models.stderr)")
        let strict = try await TestSupport.channelgen(["lint", "--strict", "orders.yaml"], in: work)
        #expect(strict.status == 1 && strict.stderr.contains("orders.yaml:1:1: error: missing required key 'info'"), "\(strict.stderr)")
    }

    /// Keywords that only narrow the valid values (`not`, `if`/`then`/`else`, `unevaluatedProperties`,
    /// …) leave the type of the rest of the schema right: documented, not enforced, and the channel
    /// generates. A keyword JSON Schema does not know is ignored, as JSON Schema says, with a warning
    /// (strict: an error), so a vendor's own keyword does not stop a document.
    @Test func narrowingAndUnknownKeywordsDoNotStopAChannel() async throws {
        let spec = """
            asyncapi: 3.0.0
            info: {title: Narrow, version: 1.0.0}
            channels:
              c:
                address: app/c
                messages: {m: {payload: {$ref: '#/components/schemas/Order'}}}
            operations:
              cValues: {action: receive, channel: {$ref: '#/channels/c'}}
            components:
              schemas:
                Order:
                  type: object
                  unevaluatedProperties: false
                  if: {properties: {kind: {const: gift}}}
                  then: {required: [note]}
                  $defs: {Money: {type: number}}
                  properties:
                    kind: {type: string, not: {const: none}}
                    note: {type: string, vendorHint: shown-in-ui}
                    total: {$ref: '#/components/schemas/Order/$defs/Money'}
            """
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let (generated, output) = try await TestSupport.generate(spec: spec, named: "main.yaml", in: work)
        #expect(generated.status == 0, "\(generated.stderr)")
        #expect(generated.stderr.hasSuffix("main.yaml:19:30: warning: unknown keyword 'vendorHint' in schema 'note' is ignored, as JSON Schema ignores keywords it does not know; check its spelling\n"))
        #expect(generated.stderr.split(separator: "\n").count == 1, "\(generated.stderr)")
        let models = try TestSupport.contents(output.appendingPathComponent("Models.swift"))
        #expect(models.contains("/// - Also constrained by `if`/`then`/`else`, `unevaluatedProperties` (not enforced)"), "\(models)")
        #expect(models.contains("/// - Also constrained by `not` (not enforced)"))
        #expect(models.contains("public var total: Double?"))
        let typecheck = try await TestSupport.typecheckClient(in: output)
        #expect(typecheck.status == 0, "\(typecheck.stderr)")

        let strict = try await TestSupport.channelgen(["lint", "--strict", "main.yaml"], in: work)
        #expect(strict.status == 1 && strict.stderr.contains("main.yaml:19:30: error: unknown keyword 'vendorHint'"), "\(strict.stderr)")
    }

    /// From asyncapi/parser-js's fixtures: an array without `items` holds any values, `items` as a
    /// list (a draft-07 tuple) is outside the subset, and a parameter the address does not use is
    /// a leftover that changes nothing. Only the tuple's channel is skipped.
    @Test func arraysWithoutItemsTuplesAndUnusedParameters() async throws {
        let spec = """
            asyncapi: 3.0.0
            info: {title: Arrays, version: 1.0.0}
            channels:
              tags:
                address: app/tags
                parameters: {siteId: {description: Left over.}}
                messages: {m: {payload: {type: object, properties: {tags: {type: array}}}}}
              pairs:
                address: app/pairs
                messages: {m: {payload: {type: array, items: [{type: string}, {type: integer}]}}}
            operations:
              tagValues: {action: receive, channel: {$ref: '#/channels/tags'}}
              pairValues: {action: receive, channel: {$ref: '#/channels/pairs'}}
            """
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let (generated, output) = try await TestSupport.generate(spec: spec, named: "main.yaml", in: work)
        #expect(generated.status == 0, "\(generated.stderr)")
        #expect(generated.stderr.contains("main.yaml:6:18: warning: parameter 'siteId' of channel 'tags' does not appear in its address 'app/tags'"), "\(generated.stderr)")
        #expect(generated.stderr.contains("main.yaml:10:43: warning: 'items' as a list in schema"), "\(generated.stderr)")
        #expect(generated.stderr.contains("warning: channel 'pairs' is skipped"))
        let models = try TestSupport.contents(output.appendingPathComponent("Models.swift"))
        #expect(models.contains("public var tags: [JSONValue]?"))
        let notifier = try TestSupport.contents(output.appendingPathComponent("Notifier.swift"))
        #expect(notifier.contains("func tagValues()") && !notifier.contains("pairValues"))
        let typecheck = try await TestSupport.typecheckClient(in: output)
        #expect(typecheck.status == 0, "\(typecheck.stderr)")
    }

    @Test func malformedInputInAChannelStaysAnError() async throws {
        let spec = """
            asyncapi: 3.0.0
            info: {title: Broken, version: 1.0.0}
            channels:
              c:
                address: app/c
                messages: {m: {payload: {type: {name: string}}}}
            operations:
              cValues: {action: receive, channel: {$ref: '#/channels/c'}}
            """
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try spec.write(to: work.appendingPathComponent("main.yaml"), atomically: true, encoding: .utf8)
        let result = try await TestSupport.channelgen(["lint", "main.yaml"], in: work)
        #expect(result.status == 1)
        #expect(result.stderr.contains("error: 'type' must be a string or a list of strings, found a mapping"))
    }
}
