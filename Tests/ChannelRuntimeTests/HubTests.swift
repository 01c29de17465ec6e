import AppSyncRuntime
@_spi(Generated) import ChannelRuntime
import ChannelRuntimeTesting
import Foundation
import Logging
import MetricsTestKit
import Testing

struct Ping: Codable, Sendable, Equatable, EventTypeReporting {
    var eventType: String
    var n: Int
}

/// A hand-written subscription of the shape channelgen generates.
struct PingSubscription: ChannelSubscription {
    typealias Event = Ping
    static let template = ChannelTemplate("app/user/{userId}/ping")
    static let eventType: String? = "ping"
    let userId: ChannelSegment

    init(userId: ChannelSegment) {
        self.userId = userId
    }

    var channel: String { "app/user/\(userId.value)/ping" }
}

/// Collects typed events in the background.
final class TypedCollector<Element: Sendable>: Sendable {
    private let collected = Watched<[Element]>([])
    private let task: Task<Void, Never>

    init(_ stream: AsyncStream<Element>) {
        let collected = self.collected
        task = Task { for await element in stream { collected.update { $0.append(element) } } }
    }

    var elements: [Element] { collected.value }
    func cancel() { task.cancel() }
    /// Returns once what was collected satisfies `condition`, checked at each element.
    func wait(_ what: String, until condition: @escaping @Sendable ([Element]) -> Bool) async throws {
        try await collected.wait(what, until: condition)
    }
    /// Returns once `count` events arrived.
    func waitFor(count: Int) async throws {
        try await collected.wait("\(count) events") { $0.count >= count }
    }
}

/// A value a test's tasks change and the test awaits a condition on (`wait(_:until:)`).
final class LockedBox<Value: Sendable>: Sendable {
    private let watched: Watched<Value>
    init(_ value: Value) { watched = Watched(value) }
    var value: Value { watched.value }
    func mutate(_ change: (inout Value) -> Void) { watched.update(change) }
    /// Returns once the value satisfies `condition`, checked at each change (an await, not a poll).
    func wait(_ what: String, within seconds: Double = 120, until condition: @escaping @Sendable (Value) -> Bool) async throws {
        try await watched.wait(what, within: seconds, until: condition)
    }
}

@Suite("Typed event hub")
struct HubTests {
    func event(_ n: Int, type: String = "ping") -> String { #"{"eventType":"\#(type)","n":\#(n)}"# }

    @Test func consumersShareOneSubscriptionAndTheLastOneUnsubscribes() async throws {
        let harness = Harness()
        let hub = ChannelEventHub(connection: harness.connection, parameters: ["userId": try ChannelSegment("u1")])
        let server = try await harness.connect()
        let first = TypedCollector(await hub.events(PingSubscription.self))
        let second = TypedCollector(await hub.events(PingSubscription.self))
        let ids = try await server.acceptSubscribes(1)
        let id = try #require(ids["app/user/u1/ping"])
        try await untilPublished(by: harness.connection, "acknowledged") { await harness.connection.acknowledgedChannels == ["app/user/u1/ping"] }
        #expect(server.unreadFrameCount == 0)  // the second consumer did not subscribe again

        server.push(["type": "data", "id": id, "event": event(1)])
        try await first.waitFor(count: 1)
        try await second.waitFor(count: 1)
        #expect(first.elements == [Ping(eventType: "ping", n: 1)])
        #expect(second.elements == [Ping(eventType: "ping", n: 1)])

        first.cancel()
        await harness.settle()
        #expect(server.unreadFrameCount == 0)  // one consumer left: still subscribed
        second.cancel()
        let unsubscribe = try #require(await server.nextMessage())
        #expect(unsubscribe["type"] as? String == "unsubscribe")
        #expect(unsubscribe["id"] as? String == id)
        await harness.connection.disconnect()
    }

    @Test func streamsSurviveAReconnectAndAUserChange() async throws {
        let harness = Harness()
        let hub = ChannelEventHub(connection: harness.connection, parameters: ["userId": try ChannelSegment("alice")])
        let consumer = TypedCollector(await hub.events(PingSubscription.self))
        let server = try await harness.connect()
        var id = try #require(try await server.acceptSubscribes(1)["app/user/alice/ping"])
        server.push(["type": "data", "id": id, "event": event(1)])
        try await consumer.waitFor(count: 1)

        server.drop()
        try await harness.clock.waitForSleeper(until: .seconds(10))
        harness.clock.advance(by: .seconds(10))
        let second = try await harness.transport.nextConnection()
        try await second.acceptConnection()
        id = try #require(try await second.acceptSubscribes(1)["app/user/alice/ping"])
        second.push(["type": "data", "id": id, "event": event(2)])
        try await consumer.waitFor(count: 2)

        await hub.setParameter("userId", to: try ChannelSegment("bob"))
        let unsubscribe = try #require(await second.nextMessage())
        #expect(unsubscribe["type"] as? String == "unsubscribe")
        #expect(unsubscribe["id"] as? String == id)
        let bobID = try #require(try await second.acceptSubscribes(1)["app/user/bob/ping"])
        second.push(["type": "data", "id": bobID, "event": event(3)])
        try await consumer.waitFor(count: 3)
        #expect(consumer.elements.map(\.n) == [1, 2, 3])
        await harness.connection.disconnect()
    }

    /// A payload naming another event type is delivered (see `EventTypeTests`); one that does not
    /// decode is dropped and counted.
    @Test func badPayloadsAreDroppedAndCountedForeignEventTypesDelivered() async throws {
        let harness = Harness()
        let hub = ChannelEventHub(connection: harness.connection, parameters: ["userId": try ChannelSegment("u1")])
        let consumer = TypedCollector(await hub.events(PingSubscription.self))
        let server = try await harness.connect()
        let id = try #require(try await server.acceptSubscribes(1)["app/user/u1/ping"])
        server.push(["type": "data", "id": id, "event": "not json"])
        server.push(["type": "data", "id": id, "event": #"{"eventType":"ping","n":"one"}"#])
        server.push(["type": "data", "id": id, "event": event(7, type: "pong")])
        server.push(["type": "data", "id": id, "event": event(8)])
        try await consumer.waitFor(count: 2)
        #expect(consumer.elements == [Ping(eventType: "pong", n: 7), Ping(eventType: "ping", n: 8)])
        let counts = harness.connection.metrics.snapshot().channels["app/user/u1/ping"]
        #expect(counts == RuntimeMetrics.Channel(received: 4, decoded: 2, dropped: 2, undeclaredEventTypes: 1))
        await harness.connection.disconnect()
    }

    @Test func aStreamWaitsForItsParameters() async throws {
        let harness = Harness()
        let hub = ChannelEventHub(connection: harness.connection)
        let consumer = TypedCollector(await hub.events(PingSubscription.self))
        let server = try await harness.connect()
        await harness.settle()
        #expect(server.unreadFrameCount == 0)  // no user id yet: nothing to subscribe to
        await hub.setParameter("userId", to: try ChannelSegment("u9"))
        let id = try #require(try await server.acceptSubscribes(1)["app/user/u9/ping"])
        server.push(["type": "data", "id": id, "event": event(1)])
        try await consumer.waitFor(count: 1)
        await harness.connection.disconnect()
    }
}

/// A message of a socket that carries several channels on one address, named by `event`.
struct SocketEvent: Codable, Sendable, Equatable {
    var event: String
    var n: Int?
}

/// Two channels on the address `app/socket`, as channelgen generates them for such a spec.
struct SocketPingSubscription: ChannelSubscription {
    typealias Event = SocketEvent
    static let template = ChannelTemplate("app/socket")
    static let eventType: String? = nil
    static let sharedAddress: SharedAddressRouting? = SharedAddressRouting(property: "event", otherChannelsValues: ["heartbeat"])
    init() {}
    var channel: String { "app/socket" }
}

struct SocketHeartbeatSubscription: ChannelSubscription {
    typealias Event = SocketEvent
    static let template = ChannelTemplate("app/socket")
    static let eventType: String? = nil
    static let sharedAddress: SharedAddressRouting? = SharedAddressRouting(property: "event", otherChannelsValues: ["ping"])
    init() {}
    var channel: String { "app/socket" }
}

/// A `text/plain` channel over Server-Sent Events, as channelgen generates it (`Event` is `String`).
struct TextSubscription<Event: Codable & Sendable>: ChannelSubscription {
    static var template: ChannelTemplate { ChannelTemplate("app/ticker") }
    static var eventType: String? { nil }
    static var eventsAreText: Bool { true }
    var channel: String { "app/ticker" }
}

typealias TickerTextSubscription = TextSubscription<String>
/// Text events declared with an event type that is not `String` (generated code never does this).
typealias PingTextSubscription = TextSubscription<Ping>

@Suite("Text events")
struct TextEventTests {
    /// The text is the event, as it arrived: not JSON-decoded (a JSON string keeps its quotes).
    @Test func aTextChannelDeliversTheTextAsItArrived() async throws {
        let harness = Harness()
        let hub = ChannelEventHub(connection: harness.connection)
        let consumer = TypedCollector(await hub.events(TickerTextSubscription.self))
        let server = try await harness.connect()
        let id = try #require(try await server.acceptSubscribes(1)["app/ticker"])
        for text in ["BTC 97000.5", "", #""quoted""#, "two\nlines", "{not json"] {
            server.push(["type": "data", "id": id, "event": text])
        }
        try await consumer.waitFor(count: 5)
        #expect(consumer.elements == ["BTC 97000.5", "", #""quoted""#, "two\nlines", "{not json"])
        #expect(harness.connection.metrics.snapshot().channels["app/ticker"]?.dropped == 0)
        await harness.connection.disconnect()
    }

    /// Text events need `String` as the event type; any other is refused event by event (counted as
    /// dropped), never a trap, and the stream goes on.
    @Test func textEventsOfAnotherTypeAreDroppedAndCounted() async throws {
        let harness = Harness()
        let hub = ChannelEventHub(connection: harness.connection)
        let consumer = TypedCollector(await hub.events(PingTextSubscription.self))
        let server = try await harness.connect()
        let id = try #require(try await server.acceptSubscribes(1)["app/ticker"])
        server.push(["type": "data", "id": id, "event": #"{"eventType":"ping","n":1}"#])
        try await eventually("the event dropped") { harness.connection.metrics.snapshot().channels["app/ticker"]?.dropped == 1 }
        #expect(consumer.elements.isEmpty)
        await harness.connection.disconnect()
    }

    @Test func textEventsArePublishedAsTheyAreWithinTheLimits() throws {
        #expect(try ChannelPublishError.texts(["a b", #"{"x":1}"#]) == ["a b", #"{"x":1}"#])
        #expect(throws: ChannelPublishError.eventCount(0)) { try ChannelPublishError.texts([String]()) }
        let large = String(repeating: "x", count: ChannelPublishError.maximumEventBytes + 1)
        #expect(throws: ChannelPublishError.eventTooLarge(index: 1, bytes: large.utf8.count)) { try ChannelPublishError.texts(["a", large]) }
    }
}

@Suite("Channels sharing an address")
struct SharedAddressTests {
    /// A hub with a consumer of each type on `app/socket`, both subscribed.
    static func bothTypesSubscribed() async throws -> (
        Harness, ChannelEventHub, TypedCollector<SocketEvent>, TypedCollector<SocketEvent>, FakeServer, [String]
    ) {
        let harness = Harness()
        let hub = ChannelEventHub(connection: harness.connection)
        let pings = TypedCollector(await hub.events(SocketPingSubscription.self))
        let heartbeats = TypedCollector(await hub.events(SocketHeartbeatSubscription.self))
        let server = try await harness.connect()
        return (harness, hub, pings, heartbeats, server, try await acceptBothSubscribes(server))
    }

    /// Accepts the two subscribes of the two types on `app/socket`; their ids, in order.
    static func acceptBothSubscribes(_ server: FakeServer) async throws -> [String] {
        var ids: [String] = []
        for _ in 0..<2 {
            let message = try #require(await server.nextMessage())
            #expect(message["channel"] as? String == "app/socket")
            let id = try #require(message["id"] as? String)
            ids.append(id)
            server.push(["type": "subscribe_success", "id": id])
        }
        return ids
    }

    /// Each channel's stream gets its own messages and those nobody declared (nothing is lost);
    /// the other channel's are skipped and counted, not logged as undecodable.
    @Test func eachStreamGetsItsOwnEventsAndTheUndeclaredOnes() async throws {
        let (harness, hub, pings, heartbeats, server, ids) = try await Self.bothTypesSubscribed()
        let events = [
            #"{"event":"ping","n":1}"#, #"{"event":"heartbeat"}"#, #"{"n":2,"event":"ping"}"#,
            #"{"event":"subscriptionStatus","n":3}"#, #"  { "event" : "heartbeat" , "n": 4}"#,
        ]
        for event in events {
            for id in ids { server.push(["type": "data", "id": id, "event": event]) }
        }
        try await pings.waitFor(count: 3)
        try await heartbeats.waitFor(count: 3)
        await harness.settle()
        #expect(pings.elements == [SocketEvent(event: "ping", n: 1), SocketEvent(event: "ping", n: 2), SocketEvent(event: "subscriptionStatus", n: 3)])
        #expect(heartbeats.elements == [SocketEvent(event: "heartbeat"), SocketEvent(event: "subscriptionStatus", n: 3), SocketEvent(event: "heartbeat", n: 4)])
        let counts = harness.connection.metrics.snapshot().channels["app/socket"]
        #expect(counts == RuntimeMetrics.Channel(received: 10, decoded: 6, dropped: 0, otherChannels: 4))
        withExtendedLifetime(hub) {}  // the hub serves both streams to the end
        await harness.connection.disconnect()
    }

    /// Regression: the hub kept one entry per address, so the second type on a shared address
    /// replaced the first one's: the first type's status read the second's, and its last consumer
    /// leaving never unsubscribed. Entries are per type now.
    @Test func eachTypeOnASharedAddressHasItsOwnSubscriptionStatusAndEnd() async throws {
        let (harness, hub, pings, heartbeats, server, ids) = try await Self.bothTypesSubscribed()
        try await eventually("both active") {
            let pings = await hub.status(of: SocketPingSubscription.self)
            let heartbeats = await hub.status(of: SocketHeartbeatSubscription.self)
            return pings == .active && heartbeats == .active
        }
        pings.cancel()
        let unsubscribe = try #require(await server.nextMessage())
        #expect(unsubscribe["type"] as? String == "unsubscribe")
        // The two subscribes go out in either order: the one left must be the heartbeats'.
        let unsubscribed = try #require(unsubscribe["id"] as? String)
        let remaining = try #require(ids.first { $0 != unsubscribed })
        #expect(ids.contains(unsubscribed))
        try await eventually("the pings' entry gone") { await hub.status(of: SocketPingSubscription.self) == nil }
        #expect(await hub.status(of: SocketHeartbeatSubscription.self) == .active)
        server.push(["type": "data", "id": remaining, "event": #"{"event":"heartbeat","n":9}"#])
        try await heartbeats.waitFor(count: 1)
        #expect(heartbeats.elements == [SocketEvent(event: "heartbeat", n: 9)])
        heartbeats.cancel()
        let last = try #require(await server.nextMessage())
        #expect(last["type"] as? String == "unsubscribe" && last["id"] as? String == remaining)
        await harness.connection.disconnect()
    }

    @Test func textThatIsNotAnObjectWithTheStringGoesOnToDecoding() {
        let routing = SharedAddressRouting(property: "event", otherChannelsValues: ["ping"])
        #expect(routing.isOtherChannelsEvent(#"{"event":"ping"}"#))
        #expect(routing.isOtherChannelsEvent(#"{"a":{"event":"x"},"event":"p\u0069ng"}"#))
        for text in [#"{"event":"pong"}"#, #"{"a":{"event":"ping"}}"#, #"["ping"]"#, "not json", "", #"{"event":1}"#, #"{"event":"ping","event":"ping"}"#, #"{"event":"ping""#] {
            #expect(!routing.isOtherChannelsEvent(text), "\(text)")
        }
    }
}

/// Bounded buffers, gaps and statuses as consumers and the notifier's source see them.
@Suite("Hub buffering and status")
struct HubBufferingTests {
    func event(_ n: Int) -> String { #"{"eventType":"ping","n":\#(n)}"# }

    /// A hub and a connected server with the ping subscription acknowledged.
    func subscribed(policy: StreamBufferPolicy, _ makeConsumer: (ChannelEventHub) async -> Void) async throws -> (Harness, ChannelEventHub, FakeServer, String) {
        let harness = Harness()
        let hub = ChannelEventHub(connection: harness.connection, parameters: ["userId": try ChannelSegment("u1")], bufferPolicy: policy)
        await makeConsumer(hub)
        let server = try await harness.connect()
        let id = try #require(try await server.acceptSubscribes(1)["app/user/u1/ping"])
        try await untilStatus(.active, of: PingSubscription.self, on: hub)
        return (harness, hub, server, id)
    }

    func push(_ range: ClosedRange<Int>, to server: FakeServer, id: String, harness: Harness) async throws {
        for n in range { server.push(["type": "data", "id": id, "event": event(n)]) }
        try await eventually("\(range.upperBound) decoded") {
            harness.connection.metrics.snapshot().channels["app/user/u1/ping"]?.decoded == range.upperBound
        }
    }

    @Test func aStalledPlainStreamKeepsTheNewestEventsAndCountsTheRest() async throws {
        let stream = LockedBox<AsyncStream<Ping>?>(nil)
        let (harness, _, server, id) = try await subscribed(policy: .bufferingNewest(3)) { hub in
            let events = await hub.events(PingSubscription.self)
            stream.mutate { $0 = events }
        }
        try await push(1...10, to: server, id: id, harness: harness)
        #expect(harness.connection.metrics.snapshot().channels["app/user/u1/ping"]?.overflowed == 7)
        var iterator = try #require(stream.value).makeAsyncIterator()
        var received: [Int] = []
        for _ in 0..<3 { received.append(try #require(await iterator.next()).n) }
        #expect(received == [8, 9, 10])
        await harness.connection.disconnect()
    }

    @Test func aStalledUpdateStreamIsToldOfTheGapBeforeTheNewestEvents() async throws {
        let stream = LockedBox<ChannelUpdates<Ping>?>(nil)
        let (harness, _, server, id) = try await subscribed(policy: .bufferingNewest(4)) { hub in
            let updates = await hub.updates(PingSubscription.self)
            stream.mutate { $0 = updates }
        }
        try await push(1...20, to: server, id: id, harness: harness)
        let overflowed = try #require(harness.connection.metrics.snapshot().channels["app/user/u1/ping"]?.overflowed)
        var iterator = try #require(stream.value).makeAsyncIterator()
        let first = await iterator.next()
        #expect(first == .gap(missed: overflowed))
        var events: [Int] = []
        while events.last != 20, let update = await iterator.next() {
            if case .event(let ping) = update { events.append(ping.n) }
        }
        // Nothing is lost without being counted: the gap plus what arrived is everything sent.
        #expect(overflowed + events.count == 20)
        #expect(events == Array((21 - events.count)...20))
        await harness.connection.disconnect()
    }

    /// Events of 512 KiB to a consumer that does not read: its buffer holds at most 8 MiB of them
    /// whatever the count allows (before: all 40, 20 MiB, and a thousand would have been 500 MiB).
    @Test(arguments: [false, true])
    func aStalledConsumerHoldsAtMostEightMebibytesOfEvents(updates: Bool) async throws {
        let plain = LockedBox<AsyncStream<Ping>?>(nil)
        let updating = LockedBox<ChannelUpdates<Ping>?>(nil)
        let (harness, _, server, id) = try await subscribed(policy: .default) { hub in
            if updates {
                let stream = await hub.updates(PingSubscription.self)
                updating.mutate { $0 = stream }
            } else {
                let stream = await hub.events(PingSubscription.self)
                plain.mutate { $0 = stream }
            }
        }
        let padding = String(repeating: "x", count: 512 << 10)
        for n in 1...40 {
            server.push(["type": "data", "id": id, "event": #"{"eventType":"ping","n":\#(n),"padding":"\#(padding)"}"#])
            try await eventually("event \(n) decoded") { harness.connection.metrics.snapshot().channels["app/user/u1/ping"]?.decoded == n }
        }
        let overflowed = try #require(harness.connection.metrics.snapshot().channels["app/user/u1/ping"]?.overflowed)
        var received: [Int] = []
        if let stream = plain.value {
            var iterator = stream.makeAsyncIterator()
            while received.last != 40, let ping = await iterator.next() { received.append(ping.n) }
        } else {
            var iterator = try #require(updating.value).makeAsyncIterator()
            let first = await iterator.next()
            #expect(first == .gap(missed: overflowed))
            while received.last != 40, let update = await iterator.next() {
                if case .event(let ping) = update { received.append(ping.n) }
            }
        }
        // 8 MiB hold 15 events of 512 KiB and their text's overhead; nothing lost uncounted.
        #expect(received == Array((41 - received.count)...40))
        #expect(received.count <= 16, "\(received.count) events of 512 KiB held")
        #expect(overflowed + received.count == 40)
        await harness.connection.disconnect()
    }

    @Test func anOldestFirstUpdateStreamGetsTheGapAfterWhatItKept() async throws {
        let stream = LockedBox<ChannelUpdates<Ping>?>(nil)
        let (harness, _, server, id) = try await subscribed(policy: .bufferingOldest(4)) { hub in
            let updates = await hub.updates(PingSubscription.self)
            stream.mutate { $0 = updates }
        }
        try await push(1...10, to: server, id: id, harness: harness)
        var iterator = try #require(stream.value).makeAsyncIterator()
        var kept: [Int] = []
        // Read what the buffer kept (statuses and the oldest events), then one more event arrives.
        for _ in 0..<4 {
            if case .event(let ping) = try #require(await iterator.next()) { kept.append(ping.n) }
        }
        #expect(kept == Array(1...kept.count))
        server.push(["type": "data", "id": id, "event": event(11)])
        #expect(await iterator.next() == .gap(missed: 10 - kept.count))
        #expect(await iterator.next() == .event(Ping(eventType: "ping", n: 11)))
        await harness.connection.disconnect()
    }

    @Test func statusesReachTheNotifiersSource() async throws {
        let harness = Harness()
        let source: any ChannelEventSource = ChannelEventHub(connection: harness.connection)
        let consumer = TypedCollector(await source.events(PingSubscription.self))
        let statuses = TypedCollector(await source.statusUpdates(for: PingSubscription.self))
        #expect(await source.status(of: PingSubscription.self) == .waitingForParameter)
        #expect(await source.connectionState == .idle)
        let server = try await harness.connect()
        #expect(await source.connectionState == .connected)
        await source.setParameter("userId", to: try ChannelSegment("u1"))
        let message = try #require(await server.nextMessage())
        let id = try #require(message["id"] as? String)
        server.push(["type": "subscribe_error", "id": id, "errors": [["errorType": "UnauthorizedException", "message": "not yours"]]])
        let rejected = SubscriptionStatus.rejected([ServiceError(errorType: "UnauthorizedException", message: "not yours")])
        try await untilStatus(rejected, of: PingSubscription.self, on: source)
        try await harness.clock.waitForSleeper(until: .seconds(1))
        harness.clock.advance(by: .seconds(1))
        try await server.acceptSubscribes(1)
        try await untilStatus(.active, of: PingSubscription.self, on: source)
        try await statuses.wait("every status collected") { $0.count >= 5 }
        #expect(statuses.elements == [.waitingForParameter, .subscribing, rejected, .subscribing, .active])
        consumer.cancel()
        await harness.connection.disconnect()
    }
}

/// The app's lifecycle: suspend in the background, resume in the foreground.
@Suite("Suspend and resume")
struct SuspendResumeTests {
    @Test func resumeResubscribesEverythingAtOnceAndReportsTheGap() async throws {
        let harness = Harness()
        let hub = ChannelEventHub(connection: harness.connection, parameters: ["userId": try ChannelSegment("u1")], clock: harness.clock)
        let updates = LockedBox<[ChannelUpdate<Ping>]>([])
        let stream = await hub.updates(PingSubscription.self)
        let reader = Task { for await update in stream { updates.mutate { $0.append(update) } } }
        let raw = try await harness.connection.subscribe(to: vortexChannels[0])
        let server = try await harness.connect()
        try await server.acceptSubscribes(2)
        try await untilStatus(.active, of: PingSubscription.self, on: hub)

        await harness.connection.suspend()
        #expect(await harness.connection.state == .suspended)
        #expect(server.isClosedByClient)
        harness.clock.advance(by: .seconds(3600))  // an hour in the background: no reconnect
        await harness.settle()
        #expect(harness.transport.connectCount == 1)

        await harness.connection.resume()
        let second = try await harness.transport.nextConnection()  // at once, no reconnect delay
        try await second.acceptConnection()
        let ids = try await second.acceptSubscribes(2)
        #expect(Set(ids.keys) == ["app/user/u1/ping", vortexChannels[0]])
        try await updates.wait("the gap reported") { $0.contains(.resumed(after: .seconds(3600))) }
        #expect(updates.value.suffix(3) == [.status(.subscribing), .status(.active), .resumed(after: .seconds(3600))])
        reader.cancel()
        _ = raw
        await harness.connection.disconnect()
    }
}

/// A channel with two parameters, for per-instance subscriptions.
struct RoomSubscription: ChannelSubscription {
    typealias Event = Ping
    static let template = ChannelTemplate("app/org/{orgId}/room/{roomId}")
    static let eventType: String? = nil
    let orgId: ChannelSegment
    let roomId: ChannelSegment

    init(orgId: String, roomId: String) throws {
        self.orgId = try ChannelSegment(orgId, parameter: "orgId")
        self.roomId = try ChannelSegment(roomId, parameter: "roomId")
    }

    var channel: String { "app/org/\(orgId.value)/room/\(roomId.value)" }
}

@Suite("Per-instance subscriptions")
struct InstanceSubscriptionTests {
    @Test func twoRoomsOnOneConnectionEachGetOnlyTheirOwnEvents() async throws {
        let harness = Harness()
        let hub = ChannelEventHub(connection: harness.connection)
        let roomA = try RoomSubscription(orgId: "o1", roomId: "a")
        let roomB = try RoomSubscription(orgId: "o1", roomId: "b")
        let firstA = TypedCollector(await hub.events(for: roomA))
        let secondA = TypedCollector(await hub.events(for: roomA))
        let onlyB = TypedCollector(await hub.events(for: roomB))
        let server = try await harness.connect()
        let ids = try await server.acceptSubscribes(2)  // room A's two consumers share one subscription
        #expect(Set(ids.keys) == ["app/org/o1/room/a", "app/org/o1/room/b"])
        try await eventually("both active") {
            let a = await hub.status(ofInstance: roomA), b = await hub.status(ofInstance: roomB)
            return a == .active && b == .active
        }
        #expect(server.unreadFrameCount == 0)

        server.push(["type": "data", "id": ids["app/org/o1/room/a"]!, "event": #"{"eventType":"ping","n":1}"#])
        server.push(["type": "data", "id": ids["app/org/o1/room/b"]!, "event": #"{"eventType":"ping","n":2}"#])
        try await firstA.waitFor(count: 1)
        try await secondA.waitFor(count: 1)
        try await onlyB.waitFor(count: 1)
        #expect(firstA.elements.map(\.n) == [1])
        #expect(secondA.elements.map(\.n) == [1])
        #expect(onlyB.elements.map(\.n) == [2])

        // A parameter change does not move instance streams.
        await hub.setParameter("roomId", to: try ChannelSegment("c"))
        await harness.settle()
        #expect(server.unreadFrameCount == 0)

        firstA.cancel()
        secondA.cancel()
        let unsubscribe = try #require(await server.nextMessage())
        #expect(unsubscribe["type"] as? String == "unsubscribe")
        #expect(unsubscribe["id"] as? String == ids["app/org/o1/room/a"])
        onlyB.cancel()
        await harness.connection.disconnect()
    }
}

/// The runtime's counters also reach swift-metrics, with channel templates (never user ids) as dimensions.
@Suite("swift-metrics")
struct SwiftMetricsTests {
    @Test func countersAndPublishDurationsReachTheMetricsFactory() async throws {
        let factory = TestMetrics()
        let clock = ManualClock()
        let transport = InMemoryTransport()
        let connection = AppSyncConnection(
            configuration: AppSyncConfiguration(endpoint: Harness.endpoint, authorization: .apiKey("da2-k")),
            transport: transport, clock: clock, metrics: RuntimeMetrics(metricsFactory: factory), logger: Logger(label: "test"))
        let hub = ChannelEventHub(connection: connection, parameters: ["userId": try ChannelSegment("u1")])
        let consumer = TypedCollector(await hub.events(PingSubscription.self))
        await connection.start()
        let server = try await transport.nextConnection()
        clock.advance(by: .milliseconds(30))  // the service takes 30 ms to accept
        try await server.acceptConnection()
        let id = try #require(try await server.acceptSubscribes(1)["app/user/u1/ping"])
        clock.advance(by: .milliseconds(20))  // and the first event comes 20 ms later
        server.push(["type": "data", "id": id, "event": #"{"eventType":"ping","n":1}"#])
        server.push(["type": "data", "id": id, "event": "not json"])
        try await consumer.waitFor(count: 1)
        try await eventually("counted") { connection.metrics.snapshot().channels["app/user/u1/ping"]?.dropped == 1 }

        // Every metric names the transport; per-channel ones the channel's template too.
        let dimension = [("transport", "websocket")]
        let template = dimension + [("channel", "app/user/{userId}/ping")]
        #expect(try factory.expectCounter("channelgen_frames_received", dimension).totalValue == 4)  // ack, success, two data
        #expect(try factory.expectCounter("channelgen_events_received", dimension).totalValue == 2)
        #expect(try factory.expectCounter("channelgen_events_decoded", template).totalValue == 1)
        #expect(try factory.expectCounter("channelgen_events_dropped", template).totalValue == 1)
        #expect(try factory.expectCounter("channelgen_connect_attempts", dimension).totalValue == 1)
        #expect(try factory.expectCounter("channelgen_connect_successes", dimension).totalValue == 1)
        #expect(try factory.expectTimer("channelgen_connect_duration", dimension).values == [30_000_000])
        #expect(try factory.expectTimer("channelgen_first_event_duration", dimension).values == [50_000_000])

        let publish = Task { try await connection.publish([#"{"n":2}"#], to: "app/user/u1/ping") }
        var message = await server.nextMessage()
        while message?["type"] as? String != "publish" { message = await server.nextMessage() }
        clock.advance(by: .milliseconds(42))
        server.push(["type": "publish_success", "id": message?["id"] as? String ?? "", "successful": [["identifier": "e1", "index": 0]], "failed": []])
        _ = try await publish.value
        #expect(try factory.expectTimer("channelgen_publish_duration", dimension).lastValue == 42_000_000)
        consumer.cancel()
        await connection.disconnect()
    }
}

@Suite("Envelopes and history")
struct EnvelopeHistoryTests {
    func event(_ n: Int) -> String { #"{"eventType":"ping","n":\#(n)}"# }

    @Test func envelopesCarryChannelTypeAndTheConnectionsSequence() async throws {
        let harness = Harness()
        let hub = ChannelEventHub(connection: harness.connection, parameters: ["userId": try ChannelSegment("u1")], clock: harness.clock)
        let stream = await hub.envelopes(PingSubscription.self)
        let raw = try await harness.connection.subscribe(to: vortexChannels[0])
        let server = try await harness.connect()
        let ids = try await server.acceptSubscribes(2)
        let before = Date()
        server.push(["type": "data", "id": ids["app/user/u1/ping"]!, "event": event(1)])
        server.push(["type": "data", "id": ids[vortexChannels[0]]!, "event": "{}"])  // another subscription's event takes a number too
        server.push(["type": "data", "id": ids["app/user/u1/ping"]!, "event": event(2)])
        var iterator = stream.makeAsyncIterator()
        let first = try #require(await iterator.next())
        let second = try #require(await iterator.next())
        #expect(first.event == Ping(eventType: "ping", n: 1))
        #expect(first.channel == "app/user/u1/ping")
        #expect(first.eventType == "ping")
        #expect(first.receivedAt >= before)
        #expect(first.sequence == 1)
        #expect(second.sequence == 3)
        _ = raw
        await harness.connection.disconnect()
    }

    @Test func historyKeepsExactlyTheConfiguredCountAndAge() async throws {
        let harness = Harness()
        let hub = ChannelEventHub(connection: harness.connection, parameters: ["userId": try ChannelSegment("u1")], clock: harness.clock)
        await hub.keepHistory(of: PingSubscription.self, HistoryRetention(count: 3, maximumAge: .seconds(12)))
        let consumer = TypedCollector(await hub.events(PingSubscription.self))
        let server = try await harness.connect()
        let id = try #require(try await server.acceptSubscribes(1)["app/user/u1/ping"])
        for n in 1...5 { server.push(["type": "data", "id": id, "event": event(n)]) }
        try await consumer.waitFor(count: 5)
        #expect(await hub.history(of: PingSubscription.self).map(\.event.n) == [3, 4, 5])  // the count

        harness.clock.advance(by: .seconds(10))
        server.push(["type": "data", "id": id, "event": event(6)])
        try await consumer.waitFor(count: 6)
        #expect(await hub.history(of: PingSubscription.self).map(\.event.n) == [4, 5, 6])
        harness.clock.advance(by: .seconds(3))  // 3…5 are now 13 s old, 6 is 3 s old
        #expect(await hub.history(of: PingSubscription.self).map(\.event.n) == [6])
        consumer.cancel()
        await harness.connection.disconnect()
    }

    @Test func aLateConsumerGetsTheHistoryThenLiveEventsOnceEach() async throws {
        let harness = Harness()
        let hub = ChannelEventHub(connection: harness.connection, parameters: ["userId": try ChannelSegment("u1")], clock: harness.clock)
        await hub.keepHistory(of: PingSubscription.self, HistoryRetention(count: 10))
        let early = TypedCollector(await hub.events(PingSubscription.self))
        let server = try await harness.connect()
        let id = try #require(try await server.acceptSubscribes(1)["app/user/u1/ping"])
        for n in 1...3 { server.push(["type": "data", "id": id, "event": event(n)]) }
        try await early.waitFor(count: 3)
        let late = await hub.envelopes(PingSubscription.self, replayingHistory: true)
        server.push(["type": "data", "id": id, "event": event(4)])
        var iterator = late.makeAsyncIterator()
        var seen: [Int] = []
        for _ in 0..<4 { seen.append(try #require(await iterator.next()).event.n) }
        #expect(seen == [1, 2, 3, 4])
        early.cancel()
        await harness.connection.disconnect()
    }
}

@Suite("The hub's tasks")
struct HubTaskTests {
    /// Issue 62: each subscription of the hub is one child of the hub's root (its pump): no task
    /// per consumer, no status watcher beside it (a runtime connection's statuses come in its
    /// events). Consumers that stop are removed by children that end, and the pumps with them.
    @Test func eachSubscriptionIsOneChildOfTheHubsRoot() async throws {
        let harness = Harness()
        let hub = ChannelEventHub(connection: harness.connection)
        let rooms = try ["a", "b", "c"].map { try RoomSubscription(orgId: "o1", roomId: $0) }
        let active = Watched(0)
        var readers: [Task<Void, Never>] = []
        for room in rooms {
            let updates = await hub.updates(for: room)
            readers.append(Task {
                var seen = false
                for await update in updates where !seen {
                    if case .status(.active) = update {
                        seen = true
                        active.update { $0 += 1 }
                    }
                }
            })
        }
        let server = try await harness.connect()
        let ids = try await server.acceptSubscribes(3)
        try await active.wait("three subscriptions active") { $0 == 3 }
        #expect(hub.liveTasks == 1 + 3)
        // More consumers of a subscription share its pump.
        let more = [await hub.events(for: rooms[0]), await hub.events(for: rooms[1])]
        #expect(hub.liveTasks == 1 + 3)

        for reader in readers { reader.cancel() }
        var unsubscribed: Set<String> = []
        while unsubscribed.count < 1, let message = await server.nextMessage() {
            if message["type"] as? String == "unsubscribe", let id = message["id"] as? String { unsubscribed.insert(id) }
        }
        // Room c had no other consumer: its subscription ends, and its pump.
        #expect(unsubscribed == [try #require(ids["app/org/o1/room/c"])])
        try await eventually("room c's pump ended") { hub.liveTasks == 1 + 2 }
        #expect(server.unreadFrameCount == 0)  // rooms a and b keep theirs: `more` still reads them
        withExtendedLifetime(more) {}
        await harness.connection.disconnect()
    }
}
