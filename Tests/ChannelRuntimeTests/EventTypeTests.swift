import AppSyncRuntime
@_spi(Generated) import ChannelRuntime
import ChannelRuntimeTesting
import Foundation
import Logging
import Testing

/// `PingSubscription` whose spec also declares the spelling `ping/v1` (`x-event-type-aliases`).
struct AliasedPingSubscription: ChannelSubscription {
    typealias Event = Ping
    static let template = ChannelTemplate("app/user/{userId}/ping")
    static let eventType: String? = "ping"
    static let eventTypes: Set<String> = ["ping", "ping/v1"]
    let userId: ChannelSegment
    var channel: String { "app/user/\(userId.value)/ping" }
}

/// The event type tells several messages of one channel apart; it never empties a stream, and an
/// event type nobody declared is counted on its own, logged once and shown in the status.
@Suite("Event types")
struct EventTypeTests {
    let channel = "app/user/u1/ping"

    func event(_ n: Int, type: String) -> String { #"{"eventType":"\#(type)","n":\#(n)}"# }

    /// A hub whose diagnostics are captured.
    func hub(_ harness: Harness, lines: LockedBox<[String]>) throws -> ChannelEventHub {
        ChannelEventHub(
            connection: harness.connection, parameters: ["userId": try ChannelSegment("u1")],
            logger: Logger(label: "capture") { _ in CapturingLogHandler(lines: lines) })
    }

    @Test func anUndeclaredEventTypeOnAOneMessageChannelIsDeliveredCountedAndShown() async throws {
        let harness = Harness()
        let lines = LockedBox<[String]>([])
        let hub = try hub(harness, lines: lines)
        let consumer = TypedCollector(await hub.events(PingSubscription.self))
        let statuses = TypedCollector(await hub.statusUpdates(for: PingSubscription.self))
        let server = try await harness.connect()
        let id = try #require(try await server.acceptSubscribes(1)[channel])
        try await untilStatus(.active, of: PingSubscription.self, on: hub)

        // The seed-001 spelling of a backend, twice, between two declared ones.
        for (n, type) in [(1, "ping"), (2, "pinged"), (3, "pinged"), (4, "ping")] {
            server.push(["type": "data", "id": id, "event": event(n, type: type)])
        }
        try await consumer.waitFor(count: 4)
        #expect(consumer.elements.map(\.n) == [1, 2, 3, 4])
        let counts = try #require(harness.connection.metrics.snapshot().channels[channel])
        #expect(counts == RuntimeMetrics.Channel(received: 4, decoded: 4, dropped: 0, undeclaredEventTypes: 2))
        let degraded = SubscriptionStatus.degraded(DeliveryProblems(undeclaredEventTypes: ["pinged"]))
        try await untilStatus(degraded, of: PingSubscription.self, on: hub)
        try await statuses.wait("observed") { $0.last == degraded }
        #expect(statuses.elements.filter { $0 == degraded }.count == 1)  // once, not per event
        let logged = lines.value.filter { $0.contains("no message of the channel declares") }
        #expect(logged.count == 1)
        #expect(logged.first?.contains("pinged") == true)
        await harness.connection.disconnect()
    }

    @Test func aliasesTheSpecDeclaresAreNeitherCountedNorShown() async throws {
        let harness = Harness()
        let hub = try hub(harness, lines: LockedBox([]))
        let consumer = TypedCollector(await hub.events(AliasedPingSubscription.self))
        let server = try await harness.connect()
        let id = try #require(try await server.acceptSubscribes(1)[channel])
        server.push(["type": "data", "id": id, "event": event(1, type: "ping/v1")])
        server.push(["type": "data", "id": id, "event": event(2, type: "ping")])
        try await consumer.waitFor(count: 2)
        #expect(harness.connection.metrics.snapshot().channels[channel]?.undeclaredEventTypes == 0)
        await harness.settle()
        #expect(await hub.status(of: AliasedPingSubscription.self) == .active)
        await harness.connection.disconnect()
    }

    @Test func anUndecodablePayloadIsDroppedAndShownOnce() async throws {
        let harness = Harness()
        let hub = try hub(harness, lines: LockedBox([]))
        let consumer = TypedCollector(await hub.events(PingSubscription.self))
        let server = try await harness.connect()
        let id = try #require(try await server.acceptSubscribes(1)[channel])
        server.push(["type": "data", "id": id, "event": #"{"eventType":"ping","n":"one"}"#])
        server.push(["type": "data", "id": id, "event": "not json"])
        server.push(["type": "data", "id": id, "event": event(3, type: "ping")])
        try await consumer.waitFor(count: 1)
        #expect(harness.connection.metrics.snapshot().channels[channel]?.dropped == 2)
        let degraded = SubscriptionStatus.degraded(DeliveryProblems(undecodablePayloads: true))
        try await untilStatus(degraded, of: PingSubscription.self, on: hub)
        #expect(await hub.status(of: PingSubscription.self)?.isActive == true)
        await harness.connection.disconnect()
    }

    /// The values come from the server: only so many are kept and logged, the rest only counted.
    @Test func distinctUndeclaredEventTypesAreKeptUpToTheLimit() async throws {
        let harness = Harness()
        let lines = LockedBox<[String]>([])
        let hub = try hub(harness, lines: lines)
        let consumer = TypedCollector(await hub.events(PingSubscription.self))
        let server = try await harness.connect()
        let id = try #require(try await server.acceptSubscribes(1)[channel])
        let limit = DeliveryProblems.undeclaredEventTypesLimit
        for n in 0..<(limit + 10) { server.push(["type": "data", "id": id, "event": event(n, type: "t\(n)")]) }
        try await consumer.waitFor(count: limit + 10)
        #expect(harness.connection.metrics.snapshot().channels[channel]?.undeclaredEventTypes == limit + 10)
        let kept = (0..<limit).map { "t\($0)" }
        try await eventually("the first \(limit) shown") {
            await hub.status(of: PingSubscription.self) == .degraded(DeliveryProblems(undeclaredEventTypes: kept))
        }
        #expect(lines.value.filter { $0.contains("counted, not logged") }.count == 1)
        await harness.connection.disconnect()
    }

    /// A server's event type is kept and shown cut to 200 characters, however long it is.
    @Test func aHugeUndeclaredEventTypeIsCutShort() async throws {
        let harness = Harness()
        let hub = try hub(harness, lines: LockedBox([]))
        let consumer = TypedCollector(await hub.events(PingSubscription.self))
        let server = try await harness.connect()
        let id = try #require(try await server.acceptSubscribes(1)[channel])
        server.push(["type": "data", "id": id, "event": event(1, type: String(repeating: "é", count: 100_000))])
        try await consumer.waitFor(count: 1)
        let shown = String(repeating: "é", count: 200) + "…"
        try await eventually("shown cut short") {
            await hub.status(of: PingSubscription.self) == .degraded(DeliveryProblems(undeclaredEventTypes: [shown]))
        }
        await harness.connection.disconnect()
    }

    /// Delivery problems belong to an active subscription: while it is down, its status says so.
    @Test func aDegradedSubscriptionShowsTheConnectionsWordWhileDown() async throws {
        let harness = Harness()
        let hub = try hub(harness, lines: LockedBox([]))
        let consumer = TypedCollector(await hub.events(PingSubscription.self))
        let server = try await harness.connect()
        let id = try #require(try await server.acceptSubscribes(1)[channel])
        server.push(["type": "data", "id": id, "event": event(1, type: "pinged")])
        try await consumer.waitFor(count: 1)
        let degraded = SubscriptionStatus.degraded(DeliveryProblems(undeclaredEventTypes: ["pinged"]))
        try await untilStatus(degraded, of: PingSubscription.self, on: hub)

        server.drop()
        try await untilStatus(.subscribing, of: PingSubscription.self, on: hub)
        try await harness.clock.waitForSleeper(until: .seconds(10))
        harness.clock.advance(by: .seconds(10))
        let second = try await harness.transport.nextConnection()
        try await second.acceptConnection()
        _ = try await second.acceptSubscribes(1)
        try await untilStatus(degraded, of: PingSubscription.self, on: hub)
        await harness.connection.disconnect()
    }
}

/// The enum of a channel's two messages, shaped as channelgen generates it (`EventTypeGenerationTests`
/// checks the generated text): chosen by `eventType`, with the aliases among the tags.
enum OrgMessage: Codable, Sendable, Equatable, EventTypeReporting {
    case license(Ping)
    case plan(Ping)
    case unknown(JSONValue)

    enum CodingKeys: String, CodingKey { case tag = "eventType" }

    init(from decoder: any Decoder) throws {
        switch try? decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(String.self, forKey: .tag) {
        case "license"?, "license/v1"?: self = .license(try Ping(from: decoder))
        case "plan"?: self = .plan(try Ping(from: decoder))
        default: self = .unknown(try JSONValue(from: decoder))
        }
    }

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .license(let value), .plan(let value): try value.encode(to: encoder)
        case .unknown(let value): try value.encode(to: encoder)
        }
    }

    var eventType: String {
        switch self {
        case .license: return "license"
        case .plan: return "plan"
        case .unknown(let value):
            guard case .string(let type)? = value["eventType"] else { return "" }
            return type
        }
    }
}

struct OrgSubscription: ChannelSubscription {
    typealias Event = OrgMessage
    static let template = ChannelTemplate("app/org")
    static let eventType: String? = nil
    static let eventTypes: Set<String> = ["license", "license/v1", "plan"]
    var channel: String { "app/org" }
}

@Suite("Event types choosing among several messages")
struct SeveralMessagesEventTypeTests {
    @Test func anUndeclaredTypeArrivesAsUnknownAndIsCountedAndShown() async throws {
        let harness = Harness()
        let hub = ChannelEventHub(connection: harness.connection)
        let consumer = TypedCollector(await hub.events(OrgSubscription.self))
        let server = try await harness.connect()
        let id = try #require(try await server.acceptSubscribes(1)["app/org"])
        for type in ["license/v1", "plan", "billing", "license"] {
            server.push(["type": "data", "id": id, "event": #"{"eventType":"\#(type)","n":1}"#])
        }
        try await consumer.waitFor(count: 4)
        #expect(consumer.elements.map(\.eventType) == ["license", "plan", "billing", "license"])
        guard case .unknown = consumer.elements[2] else { Issue.record("billing is not unknown"); return }
        let counts = harness.connection.metrics.snapshot().channels["app/org"]
        #expect(counts == RuntimeMetrics.Channel(received: 4, decoded: 4, dropped: 0, undeclaredEventTypes: 1))
        try await eventually("shown in the status") {
            await hub.status(of: OrgSubscription.self) == .degraded(DeliveryProblems(undeclaredEventTypes: ["billing"]))
        }
        await harness.connection.disconnect()
    }
}

/// A connection whose one subscription delivers what the test hands it, already active.
actor ScriptedEventsConnection: ChannelConnection {
    nonisolated let metrics = RuntimeMetrics()
    private let stream: AsyncStream<RawChannelEvent>
    nonisolated let events: AsyncStream<RawChannelEvent>.Continuation
    private(set) var subscribed = false

    init() {
        (stream, events) = AsyncStream.makeStream()
    }

    func subscribe(to channel: String) async throws -> RawChannelSubscription {
        subscribed = true
        return RawChannelSubscription(id: channel, channel: channel, events: stream)
    }
    func unsubscribe(_ id: String) async {}
    func status(ofSubscription id: String) async -> SubscriptionStatus? { .active }
    func statusUpdates(ofSubscription id: String) async -> AsyncStream<SubscriptionStatus> {
        AsyncStream { $0.yield(.active) }
    }
    var state: ConnectionState { get async { .connected } }
    func stateUpdates() async -> AsyncStream<ConnectionState> { AsyncStream { $0.yield(.connected) } }
}

@Suite("Events dropped before decoding")
struct DroppedBeforeDecodingTests {
    /// Events the connection dropped unread (they came faster than they were decoded) were counted
    /// and logged, but the subscription stayed `.active` and update consumers saw no gap.
    @Test func showInTheStatusAndAsAGapWhereTheyWereLost() async throws {
        let connection = ScriptedEventsConnection()
        let hub = ChannelEventHub(connection: connection, parameters: ["userId": try ChannelSegment("u1")])
        let updates = LockedBox<[ChannelUpdate<Ping>]>([])
        let stream = await hub.updates(PingSubscription.self)
        let reader = Task { for await update in stream { updates.mutate { $0.append(update) } } }
        try await eventually("subscribed") { await connection.subscribed }
        func raw(_ n: Int, droppedBefore: Int = 0) -> RawChannelEvent {
            var event = RawChannelEvent(text: #"{"eventType":"ping","n":\#(n)}"#, sequence: n, receivedAt: Date())
            event.droppedBefore = droppedBefore
            return event
        }
        connection.events.yield(raw(1))
        connection.events.yield(raw(5, droppedBefore: 3))
        connection.events.yield(raw(6))
        let degraded = SubscriptionStatus.degraded(DeliveryProblems(undecodedEventsDropped: true))
        try await untilStatus(degraded, of: PingSubscription.self, on: hub)
        try await updates.wait("every update") { $0.filter { if case .event = $0 { true } else { false } }.count == 3 }
        let events = updates.value.filter { if case .status = $0 { false } else { true } }
        #expect(events == [.event(Ping(eventType: "ping", n: 1)), .gap(missed: 3), .event(Ping(eventType: "ping", n: 5)), .event(Ping(eventType: "ping", n: 6))])
        reader.cancel()
    }
}
