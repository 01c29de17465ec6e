import AppSyncRuntime
import ChannelRuntime
import Foundation
import Testing
import VortexEvents
import ChannelRuntimeTesting

/// Statuses and bounded buffers through the generated notifier, the runtime and the emulator.
@Suite("Status and buffering over loopback")
struct RuntimeStatusTests {
    let now = Date(timeIntervalSince1970: 1_737_892_800)

    /// Defect 7: an app can see that a subscription is refused (and the connection's state) from the
    /// notifier's side, instead of a stream that stays silent.
    @Test func aRefusedSubscriptionIsVisibleFromTheNotifier() async throws {
        // Mallory's valid token, pointed at Alice's channels: the emulator refuses every subscribe.
        let stack = try await Stack.start(user: "alice", authorization: { emulator in
            .token { try await emulator.token(forUser: "mallory") }
        })
        let source = stack.notifier.source
        let presence = Collected { await stack.notifier.devicePresenceValues() }
        await stack.connection.start()
        try await waitFor("the refusal") {
            if case .rejected(let errors) = await source.status(of: DevicePresenceSubscription.self) {
                return errors.contains { $0.isAuthorizationFailure }
            }
            return false
        }
        #expect(await source.connectionState == .connected)
        #expect(presence.count == 0)
        presence.cancel()
        await stack.stop()
    }

    @Test func aSubscriptionBecomesActiveAndWaitsForItsParameter() async throws {
        let stack = try await Stack.start()
        let hub = ChannelEventHub(connection: stack.connection)  // no user id yet
        let roles = await hub.updates(RoleChangeEventsSubscription.self)
        var iterator = roles.makeAsyncIterator()
        #expect(await iterator.next() == .status(.waitingForParameter))
        await stack.connection.start()
        await hub.setParameter("userId", to: try ChannelSegment("alice"))
        #expect(await iterator.next() == .status(.subscribing))
        #expect(await iterator.next() == .status(.active))
        await stack.stop()
    }

    /// Defect 5: a consumer that stops reading holds at most its buffer; the rest is counted and the
    /// consumer is told of the gap.
    @Test func aStalledConsumerHoldsItsBufferAndLearnsOfTheGap() async throws {
        let stack = try await Stack.start()
        let hub = ChannelEventHub(connection: stack.connection, parameters: ["userId": try ChannelSegment("alice")], bufferPolicy: .bufferingNewest(10))
        let updates = await hub.updates(DevicePresenceSubscription.self)
        await stack.connection.start()
        try await untilStatus(.active, of: DevicePresenceSubscription.self, on: hub)
        let channel = try DevicePresenceSubscription(userId: "alice").channel
        for batch in stride(from: 0, to: 200, by: 5) {
            let events = try (batch..<batch + 5).map { try json(DevicePresenceOutput(eventType: "device/presenceChanged", timestamp: now, thingName: "\($0)")) }
            let result = try await stack.publisher.publish(events, to: channel)
            #expect(result.successful.count == 5, "\(result)")
        }
        try await waitFor("200 events decoded") { stack.connection.metrics.snapshot().channels[channel]?.decoded == 200 }
        let overflowed = try #require(stack.connection.metrics.snapshot().channels[channel]?.overflowed)
        #expect(overflowed >= 190)
        var iterator = updates.makeAsyncIterator()
        #expect(await iterator.next() == .gap(missed: overflowed))
        var names: [String] = []
        while names.last != "199", let update = await iterator.next() {
            if case .event(let presence) = update { names.append(presence.thingName ?? "?") }
        }
        #expect(names == (200 - names.count..<200).map(String.init))
        #expect(overflowed + names.count == 200)
        await stack.stop()
    }
}
