import AppSyncRuntime
import ChannelRuntime
import Foundation
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

    init(parameters: [String: ChannelSegment]) throws(ChannelParameterError) {
        guard let userId = parameters["userId"] else { throw .missing(parameter: "userId", channel: Self.template.address) }
        self.userId = userId
    }

    var parameters: [String: ChannelSegment] { ["userId": userId] }
    var channel: String { "app/user/\(userId.value)/ping" }
}

/// Collects typed events in the background.
final class TypedCollector<Element: Sendable>: Sendable {
    private let box = LockedBox<[Element]>([])
    private let task: Task<Void, Never>

    init(_ stream: AsyncStream<Element>) {
        let box = self.box
        task = Task { for await element in stream { box.mutate { $0.append(element) } } }
    }

    var elements: [Element] { box.value }
    func cancel() { task.cancel() }
    func waitFor(count: Int) async throws {
        try await eventually("\(count) events") { self.elements.count >= count }
    }
}

final class LockedBox<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value { lock.withLock { stored } }
    func mutate(_ change: (inout Value) -> Void) { lock.withLock { change(&stored) } }
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
        try await eventually("acknowledged") { await harness.connection.acknowledgedChannels == ["app/user/u1/ping"] }
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

    @Test func badPayloadsAndForeignEventTypesAreDroppedAndCounted() async throws {
        let harness = Harness()
        let hub = ChannelEventHub(connection: harness.connection, parameters: ["userId": try ChannelSegment("u1")])
        let consumer = TypedCollector(await hub.events(PingSubscription.self))
        let server = try await harness.connect()
        let id = try #require(try await server.acceptSubscribes(1)["app/user/u1/ping"])
        server.push(["type": "data", "id": id, "event": "not json"])
        server.push(["type": "data", "id": id, "event": #"{"eventType":"ping","n":"one"}"#])
        server.push(["type": "data", "id": id, "event": event(7, type: "pong")])
        server.push(["type": "data", "id": id, "event": event(8)])
        try await consumer.waitFor(count: 1)
        #expect(consumer.elements == [Ping(eventType: "ping", n: 8)])
        let counts = harness.connection.metrics.snapshot().channels["app/user/u1/ping"]
        #expect(counts == RuntimeMetrics.Channel(received: 4, decoded: 1, dropped: 3))
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
