import AppSyncRuntime
@_spi(Generated) import ChannelRuntime
import ChannelRuntimeTesting
import Foundation
import Testing

/// Issue 44: once a parameter change (the user id) returns, no stream hands out an event of the
/// channel it left — not the ones buffered for a consumer that reads slowly, not a batch a consumer
/// already took, not the kept history. The end-to-end flood is in `UserSwitchEndToEndTests`.
@Suite("User switch")
struct UserSwitchTests {
    func event(_ n: Int) -> String { #"{"eventType":"ping","n":\#(n)}"# }

    @Test func nothingOfTheOldUserIsReadAfterTheSwitchReturns() async throws {
        let harness = Harness()
        let hub = ChannelEventHub(connection: harness.connection, parameters: ["userId": try ChannelSegment("alice")])
        await hub.keepHistory(of: PingSubscription.self, HistoryRetention(count: 100))
        var events = await hub.events(PingSubscription.self).makeAsyncIterator()
        var updates = await hub.updates(PingSubscription.self).makeAsyncIterator()
        var envelopes = await hub.envelopes(PingSubscription.self).makeAsyncIterator()
        let server = try await harness.connect()
        let alice = try #require(try await server.acceptSubscribes(1)["app/user/alice/ping"])
        for n in 1...30 { server.push(["type": "data", "id": alice, "event": event(n)]) }
        // An event is counted decoded just before it is delivered: the history says when all are in.
        try await eventually("alice's events delivered") { await hub.history(of: PingSubscription.self).count == 30 }
        #expect(await events.next()?.n == 1)  // takes a batch, hands out one: the rest is the consumer's

        await hub.setParameter("userId", to: try ChannelSegment("bob"))

        #expect(await hub.history(of: PingSubscription.self).isEmpty)
        _ = try #require(await server.nextMessage())  // alice's unsubscribe
        let bob = try #require(try await server.acceptSubscribes(1)["app/user/bob/ping"])
        server.push(["type": "data", "id": bob, "event": event(100)])
        #expect(await events.next()?.n == 100)
        #expect(await envelopes.next()?.event.n == 100)
        var read: [ChannelUpdate<Ping>] = []
        while let update = await updates.next() {
            read.append(update)
            if case .event = update { break }
        }
        let readEvents = read.compactMap { if case .event(let ping) = $0 { ping.n } else { nil } }
        #expect(readEvents == [100], "updates read after the switch: \(read)")
        #expect(await hub.history(of: PingSubscription.self).map(\.event.n) == [100])
        await harness.connection.disconnect()
    }

    /// Every channel of the old user is left before any of the new user's is joined.
    @Test func theOldChannelsAreLeftBeforeTheNewOnesAreJoined() async throws {
        let harness = Harness()
        let hub = ChannelEventHub(connection: harness.connection, parameters: ["userId": try ChannelSegment("alice")])
        let pings = await hub.events(PingSubscription.self)
        let pongs = await hub.events(PongSubscription.self)
        let server = try await harness.connect()
        _ = try await server.acceptSubscribes(2)
        await hub.setParameter("userId", to: try ChannelSegment("bob"))
        var frames: [String] = []
        for _ in 0..<4 {
            let message = try #require(await server.nextMessage())
            frames.append("\(message["type"] ?? "?") \(message["channel"] ?? "")")
        }
        // The subscribes go out as their authorization is ready: in either order, but after both unsubscribes.
        #expect(frames.prefix(2) == ["unsubscribe ", "unsubscribe "])
        #expect(Set(frames.suffix(2)) == ["subscribe app/user/bob/ping", "subscribe app/user/bob/pong"])
        withExtendedLifetime((pings, pongs)) {}
        await harness.connection.disconnect()
    }
}

struct PongSubscription: ChannelSubscription {
    typealias Event = Ping
    static let template = ChannelTemplate("app/user/{userId}/pong")
    static let eventType: String? = "ping"
    let userId: ChannelSegment

    var channel: String { "app/user/\(userId.value)/pong" }
}
