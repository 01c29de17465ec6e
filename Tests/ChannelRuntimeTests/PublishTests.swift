import ChannelRuntime
import Foundation
import Testing

/// A connection that records what it is asked to publish (and can refuse).
actor RecordingPublisher: IdleConnection, ChannelPublishing {
    nonisolated let metrics = RuntimeMetrics()
    private(set) var published: [(events: [String], channel: String)] = []
    var refusal: String?

    func refuse(with reason: String) { refusal = reason }

    func publishEvents(_ events: [String], to channel: String) async throws {
        if let refusal { throw NSError(domain: refusal, code: 1) }
        published.append((events, channel))
    }
}

/// A connection that only receives (as SSE does).
actor ReceiveOnlyConnection: IdleConnection {
    nonisolated let metrics = RuntimeMetrics()
}

/// A connected connection that never delivers anything: the publish tests need none of it.
protocol IdleConnection: ChannelConnection {}

extension IdleConnection {
    func subscribe(to channel: String) async throws -> RawChannelSubscription {
        RawChannelSubscription(id: channel, channel: channel, events: AsyncStream { $0.finish() })
    }
    func unsubscribe(_ id: String) async {}
    func status(ofSubscription id: String) async -> SubscriptionStatus? { nil }
    func statusUpdates(ofSubscription id: String) async -> AsyncStream<SubscriptionStatus> { AsyncStream { $0.finish() } }
    var state: ConnectionState { get async { .connected } }
    func stateUpdates() async -> AsyncStream<ConnectionState> { AsyncStream { $0.finish() } }
}

/// Issue 14: typed publish through the hub: AppSync's limits are checked before anything is sent,
/// the channel comes from the hub's parameters, and a transport that cannot publish says so.
@Suite("Typed publish")
struct PublishTests {
    static func ping(_ n: Int, padding: Int = 0) -> Ping { Ping(eventType: "ping" + String(repeating: " ", count: padding), n: n) }

    @Test func eventsGoToTheChannelOfTheCurrentParameters() async throws {
        let connection = RecordingPublisher()
        let hub = ChannelEventHub(connection: connection, parameters: ["userId": try ChannelSegment("alice")])
        try await hub.publish([Self.ping(1), Self.ping(2)], to: PingSubscription.self)
        let published = await connection.published
        #expect(published.map(\.channel) == ["app/user/alice/ping"])
        let decoded = try published[0].events.map { try JSONDecoder().decode(Ping.self, from: Data($0.utf8)) }
        #expect(decoded == [Self.ping(1), Self.ping(2)])
    }

    @Test func theLimitsAreCheckedBeforeAnythingIsSent() async throws {
        let connection = RecordingPublisher()
        let hub = ChannelEventHub(connection: connection, parameters: ["userId": try ChannelSegment("alice")])
        await #expect(throws: ChannelPublishError.eventCount(0)) { try await hub.publish([Ping](), to: PingSubscription.self) }
        await #expect(throws: ChannelPublishError.eventCount(6)) { try await hub.publish((1...6).map { Self.ping($0) }, to: PingSubscription.self) }
        // The second of two events is over 240 KB: neither is sent.
        let large = Self.ping(2, padding: ChannelPublishError.maximumEventBytes)
        do {
            try await hub.publish([Self.ping(1), large], to: PingSubscription.self)
            Issue.record("an event over the limit was published")
        } catch {
            guard case .eventTooLarge(let index, let bytes) = error else { throw error }
            #expect(index == 1 && bytes > ChannelPublishError.maximumEventBytes)
        }
        #expect(await connection.published.isEmpty)
    }

    @Test func withoutItsParameterOrOverAReceiveOnlyTransportNothingIsSent() async throws {
        let connection = RecordingPublisher()
        let hub = ChannelEventHub(connection: connection)
        await #expect(throws: ChannelPublishError.parameters(.missing(parameter: "userId", channel: PingSubscription.template.address))) {
            try await hub.publish([Self.ping(1)], to: PingSubscription.self)
        }
        #expect(await connection.published.isEmpty)
        let receiveOnly = ChannelEventHub(connection: ReceiveOnlyConnection(), parameters: ["userId": try ChannelSegment("alice")])
        await #expect(throws: ChannelPublishError.unsupportedTransport) { try await receiveOnly.publish([Self.ping(1)], to: PingSubscription.self) }
    }

    @Test func aRefusedPublishIsAnError() async throws {
        let connection = RecordingPublisher()
        await connection.refuse(with: "denied")
        let hub = ChannelEventHub(connection: connection, parameters: ["userId": try ChannelSegment("alice")])
        do {
            try await hub.publish([Self.ping(1)], to: PingSubscription.self)
            Issue.record("a refused publish did not throw")
        } catch {
            guard case .failed = error else { throw error }
        }
    }
}
