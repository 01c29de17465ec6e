import Foundation
import Testing

/// Issue 14: AsyncAPI 2.x documents are read as the 3.0 document they describe: channels keyed
/// by address, `subscribe` is what the app receives, `publish` what it sends, `message.oneOf`
/// several messages; diagnostics point into the 2.x file.
@Suite("AsyncAPI 2.x input")
struct AsyncAPI2Tests {
    static let spec = """
        asyncapi: '2.6.0'
        info: {title: Prices, version: 1.0.0}
        tags: [{name: market}]
        channels:
          app/prices/{market}:
            parameters:
              market: {$ref: '#/components/parameters/market'}
            subscribe:
              operationId: priceValues
              summary: Prices as they change.
              message:
                oneOf:
                  - $ref: '#/components/messages/tick'
                  - $ref: '#/components/messages/halt'
            publish:
              operationId: placeOrder
              message: {$ref: '#/components/messages/tick'}
        components:
          parameters:
            market:
              description: The market.
              schema: {type: string, enum: [eu, us]}
          messages:
            tick:
              messageId: tick
              name: price/tick
              schemaFormat: application/schema+json;version=draft-07
              payload: {type: object, required: [eventType, price], properties: {eventType: {type: string}, price: {type: number}}}
            halt:
              name: price/halt
              payload: {type: object, required: [eventType], properties: {eventType: {type: string}, reason: {type: string}}}
        """

    @Test func aSubscribeBecomesAReceiveStreamOfItsMessages() async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let specURL = work.appendingPathComponent("prices.yaml")
        try Self.spec.write(to: specURL, atomically: true, encoding: .utf8)
        let config = try TestSupport.writeConfig(in: work, spec: specURL)
        let output = work.appendingPathComponent("out")
        let result = try await TestSupport.channelgen(["generate", "--config", config.path, "--output", output.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("warning"), "\(result.stderr)")
        let notifier = try TestSupport.contents(output.appendingPathComponent("Notifier.swift"))
        #expect(notifier.contains("func priceValues() async -> AsyncStream<AppPricesMarketMessage>"), "\(notifier)")
        // The 2.x `publish` is a typed publish method.
        #expect(notifier.contains("func placeOrder(_ events: [AppPricesMarketMessage]) async throws(ChannelPublishError)"), "\(notifier)")
        let models = try TestSupport.contents(output.appendingPathComponent("Models.swift"))
        #expect(models.contains("case tick(TickPayload)") || models.contains("case tick("), "\(models)")
        let channels = try TestSupport.contents(output.appendingPathComponent("Channels.swift"))
        #expect(channels.contains("app/prices/{market}"))
        let typecheck = try await TestSupport.typecheckClient(in: output)
        #expect(typecheck.status == 0, "\(typecheck.stderr)")
    }

    /// Malformed 2.x shapes stay errors at their place after the move to 3.0 (none is silently dropped).
    @Test(arguments: [
        ("channels: [a, b]", "3:11: error: channels must be a mapping, found a list"),
        ("channels: {a: 5}", "3:15: error: channel 'a' must be a mapping, found a number"),
        ("channels: {a: {subscribe: 7}}", "3:27: error: operation 'a receive' must be a mapping, found a number"),
        ("channels: {a: {subscribe: {message: [1]}}}", "3:37: error: message 'message' must be a mapping, found a list"),
    ])
    func malformedShapesAreErrorsAtTheirPlace(body: String, expected: String) async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try "asyncapi: '2.0.0'\ninfo: {title: T, version: '1'}\n\(body)\n".write(to: work.appendingPathComponent("s.yaml"), atomically: true, encoding: .utf8)
        let result = try await TestSupport.channelgen(["lint", "s.yaml"], in: work)
        #expect(result.status == 1)
        #expect(result.stderr.contains("s.yaml:" + expected), "\(result.stderr)")
    }

    @Test func aMessageInAnotherFormatIsReportedAtItsLine() async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let avro = Self.spec.replacingOccurrences(of: "application/schema+json;version=draft-07", with: "application/vnd.apache.avro;version=1.9.0")
        try avro.write(to: work.appendingPathComponent("prices.yaml"), atomically: true, encoding: .utf8)
        let result = try await TestSupport.channelgen(["lint", "--strict", "prices.yaml"], in: work)
        #expect(result.status == 1)
        #expect(result.stderr.contains("prices.yaml:27:21: error: schemaFormat 'application/vnd.apache.avro;version=1.9.0' is not supported"), "\(result.stderr)")
    }
}

/// Issue 14: operation and message traits are merged into their object (the object's own keys
/// win); what a merged trait brings is then checked like the object's own keys.
@Suite("Traits")
struct TraitsTests {
    @Test func traitsAreMergedAndTheObjectsOwnKeysWin() async throws {
        let spec = """
            asyncapi: 3.0.0
            info: {title: Traits, version: 1.0.0}
            channels:
              c:
                address: app/c
                messages:
                  m:
                    traits:
                      - $ref: '#/components/messageTraits/named'
                      - {name: second/name, summary: From a trait.}
                    payload: {type: object, required: [eventType], properties: {eventType: {type: string}}}
            operations:
              cValues:
                action: receive
                channel: {$ref: '#/channels/c'}
                summary: Own summary.
                traits: [{$ref: '#/components/operationTraits/kafka'}]
            components:
              messageTraits:
                named: {name: trait/name}
              operationTraits:
                kafka: {summary: Trait summary., bindings: {kafka: {clientId: x}}}
            """
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try spec.write(to: work.appendingPathComponent("main.yaml"), atomically: true, encoding: .utf8)
        let config = try TestSupport.writeConfig(in: work, spec: work.appendingPathComponent("main.yaml"))
        let output = work.appendingPathComponent("out")
        let result = try await TestSupport.channelgen(["generate", "--config", config.path, "--output", output.path])
        #expect(result.status == 0, "\(result.stderr)")
        // The trait's bindings are the operation's now: ignored with a warning at the trait's line.
        #expect(result.stderr.contains("main.yaml:22:38: warning: 'bindings' in operation 'cValues' is ignored"), "\(result.stderr)")
        let subscriptions = try TestSupport.contents(output.appendingPathComponent("Subscriptions.swift"))
        #expect(subscriptions.contains(#"eventType: String? = "trait/name""#), "\(subscriptions)")  // the first trait's name
        let notifier = try TestSupport.contents(output.appendingPathComponent("Notifier.swift"))
        #expect(notifier.contains("/// Own summary.") && !notifier.contains("Trait summary."))
    }
}

/// AsyncAPI 3.1 only adds to 3.0 (bindings, extensions), so a 3.1 document is read as 3.0; a
/// major version channelgen does not know is refused at the version.
@Suite("AsyncAPI 3.1 input")
struct AsyncAPI31Tests {
    @Test func aThreeOneDocumentGeneratesAndAnUnknownMajorVersionIsRefused() async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let spec = work.appendingPathComponent("users.yaml")
        try """
            asyncapi: 3.1.0
            info: {title: Account Service, version: 1.0.0}
            channels:
              userSignedup:
                address: user/signedup
                messages:
                  UserSignedUp:
                    payload:
                      schemaFormat: application/vnd.aai.asyncapi+json;version=3.1.0
                      schema: {type: object, properties: {displayName: {type: string}, email: {type: string, format: email}}}
            operations:
              sendUserSignedup: {action: send, channel: {$ref: '#/channels/userSignedup'}}
              userSignedupValues: {action: receive, channel: {$ref: '#/channels/userSignedup'}}
            """.write(to: spec, atomically: true, encoding: .utf8)
        let config = try TestSupport.writeConfig(in: work, spec: spec)
        let output = work.appendingPathComponent("out")
        let result = try await TestSupport.channelgen(["generate", "--config", config.path, "--output", output.path, "--quiet"])
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
        let typecheck = try await TestSupport.typecheckClient(in: output)
        #expect(typecheck.status == 0, "\(typecheck.stderr)")

        try String(contentsOf: spec, encoding: .utf8).replacingOccurrences(of: "asyncapi: 3.1.0", with: "asyncapi: 4.0.0")
            .write(to: spec, atomically: true, encoding: .utf8)
        let refused = try await TestSupport.channelgen(["lint", spec.path])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("users.yaml:1:11: error: AsyncAPI 4.0.0 is not supported; channelgen reads AsyncAPI 3.0, 3.1 and 2.x documents"), "\(refused.stderr)")
    }
}
