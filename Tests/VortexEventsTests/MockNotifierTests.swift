import ChannelRuntimeTesting
import Foundation
import Testing
import VortexEventsTesting

/// App code depends on `BackendNotifierProtocol`; its tests use the generated mock.
private actor PresenceModel {
    private(set) var online: [String: Bool] = [:]

    func run(_ notifier: any BackendNotifierProtocol) async {
        for await event in await notifier.devicePresenceValues() {
            if let thing = event.thingName { online[thing] = event.online ?? false }
        }
    }
}

@Suite("Generated mock notifier")
struct MockNotifierTests {
    @Test func pushesTypedEventsToTheCodeUnderTest() async throws {
        let notifier = MockBackendNotifier()
        let model = PresenceModel()
        let task = Task { await model.run(notifier) }
        for _ in 0..<10_000 where notifier.devicePresence.consumerCount == 0 { await Task.yield() }
        #expect(notifier.devicePresence.consumerCount == 1)

        notifier.devicePresence.send(DevicePresenceOutput(eventType: "device/presenceChanged", timestamp: .now, thingName: "cam-1", online: true))
        notifier.devicePresence.send(DevicePresenceOutput(eventType: "device/presenceChanged", timestamp: .now, thingName: "cam-2", online: false))
        notifier.devicePresence.finish()
        await task.value
        #expect(await model.online == ["cam-1": true, "cam-2": false])
        #expect(notifier.devicePresence.history.count == 2)
    }

    @Test func recordsAndValidatesUserIds() async throws {
        let notifier = MockBackendNotifier()
        try await notifier.setUserId("user-1")
        await #expect(throws: ChannelParameterError.invalidCharacter(parameter: "userId", character: "*")) {
            try await notifier.setUserId("*")
        }
        #expect(notifier.userIdChanges.history == ["user-1"])
    }

    @Test func theMockServesInstancesAndNumberedEnvelopes() async throws {
        let notifier = MockBackendNotifier()
        let envelopes = await notifier.envelopes(RoleChangeEventsSubscription.self)
        let instance = await notifier.values(for: try RoleChangeEventsSubscription(userId: "u2"))
        for _ in 0..<10_000 where notifier.role.consumerCount < 2 { await Task.yield() }
        #expect(notifier.role.consumerCount == 2)
        for reason in ["promoted", "demoted"] {
            notifier.role.send(RoleChangeOutput(eventType: "user/roleChanged", timestamp: .now, reason: reason))
        }
        notifier.role.finish()
        var numbered: [String] = []
        for await envelope in envelopes { numbered.append("\(envelope.sequence) \(envelope.event.reason ?? "") \(envelope.channel)") }
        #expect(numbered == ["1 promoted vortex-app/user/{userId}/roleChanged", "2 demoted vortex-app/user/{userId}/roleChanged"])
        var reasons: [String] = []
        for await event in instance { reasons.append(event.reason ?? "") }
        #expect(reasons == ["promoted", "demoted"])
    }

    // MARK: Scripting the world (issue 48)

    static func presence(_ thing: String) -> DevicePresenceOutput {
        DevicePresenceOutput(timestamp: Date(timeIntervalSince1970: 0), thingName: thing, online: true)
    }

    /// Before: an event sent before the code under test subscribed reached no one, silently.
    @Test func anEventSentBeforeAnyoneListensWaitsForTheFirstConsumer() async throws {
        let notifier = MockBackendNotifier()
        notifier.devicePresence.send(Self.presence("early"))
        #expect(notifier.devicePresence.waiting.map(\.thingName) == ["early"])
        var events = await notifier.devicePresenceValues().makeAsyncIterator()
        notifier.devicePresence.send(Self.presence("later"))
        #expect(await events.next()?.thingName == "early")
        #expect(await events.next()?.thingName == "later")
        #expect(notifier.devicePresence.waiting.isEmpty)
    }

    @Test func manualDeliveryHoldsEventsUntilFlushInTheOrderSent() async throws {
        let notifier = MockBackendNotifier(delivery: .manual)
        var presence = await notifier.devicePresenceValues().makeAsyncIterator()
        var roles = await notifier.roleValues().makeAsyncIterator()
        notifier.devicePresence.send(Self.presence("cam-1"))
        notifier.role.send(RoleChangeOutput(timestamp: .now, reason: "promoted"))
        #expect(notifier.delivery.pendingCount == 2)
        #expect(notifier.devicePresence.history.count == 1)  // recorded at once, delivered at flush
        notifier.flush()
        #expect(notifier.delivery.pendingCount == 0)
        #expect(await presence.next()?.thingName == "cam-1")
        #expect(await roles.next()?.reason == "promoted")
    }

    @Test func delayedDeliveryComesAfterTheDelayOnTheClock() async throws {
        let clock = ManualClock()
        let notifier = MockBackendNotifier(delivery: .delayed(.milliseconds(300), clock: clock))
        let received = LockedEvents()
        let reader = Task { for await event in await notifier.devicePresenceValues() { received.append(event.thingName ?? "") } }
        for _ in 0..<10_000 where notifier.devicePresence.consumerCount == 0 { await Task.yield() }
        notifier.devicePresence.send(Self.presence("cam-1"))
        try await clock.waitForSleeper(until: .milliseconds(300))
        clock.advance(by: .milliseconds(100))
        notifier.devicePresence.send(Self.presence("cam-2"))  // due at 400 ms
        try await clock.waitForSleeper(until: .milliseconds(400))
        #expect(received.values.isEmpty)
        clock.advance(by: .milliseconds(200))
        try await eventually("the first delivered") { received.values == ["cam-1"] }
        clock.advance(by: .milliseconds(100))
        try await eventually("the second delivered") { received.values == ["cam-1", "cam-2"] }
        reader.cancel()
    }

    /// App code that shows a "reconnecting" banner reads the state through the protocol; the mock drives it.
    @Test func theCodeUnderTestSeesTheConnectionStatesTheTestSends() async throws {
        let notifier = MockBackendNotifier()
        let app: any BackendNotifierProtocol = notifier
        var states = await app.connectionStates().makeAsyncIterator()
        #expect(await states.next() == .connected)
        notifier.connection.send(.reconnecting(after: .seconds(2), because: .dropped))
        notifier.connection.send(.connecting)
        notifier.connection.send(.connected)
        #expect(await states.next() == .reconnecting(after: .seconds(2), because: .dropped))
        #expect(await states.next() == .connecting)
        #expect(await states.next() == .connected)

        // `reset()`: streams end, records and waiting events go, the connection is `.connected` again.
        notifier.devicePresence.send(Self.presence("left over"))
        try await notifier.setUserId("u1")
        notifier.connection.send(.disconnected)
        notifier.reset()
        #expect(await states.next() == .disconnected)  // sent before the reset
        #expect(await states.next() == nil)
        #expect(notifier.devicePresence.waiting.isEmpty && notifier.devicePresence.history.isEmpty && notifier.userIdChanges.history.isEmpty)
        #expect(notifier.connection.current == .connected)
    }
}

extension MockNotifierTests {
    /// App code that catches up after a reconnect reads `.resumed(after:)` from `updates(_:)`; the
    /// mock sends it in order with the events.
    @Test func updatesCarryEventsAndTheResumptionsTheTestSends() async throws {
        let notifier = MockBackendNotifier(delivery: .manual)
        let app: any BackendNotifierProtocol = notifier
        var updates = await app.updates(DevicePresenceSubscription.self).makeAsyncIterator()
        notifier.devicePresence.send(Self.presence("before"))
        notifier.send(.status(.subscribing))
        notifier.send(.resumed(after: .seconds(30)))
        notifier.devicePresence.send(Self.presence("after"))
        notifier.flush()
        var seen: [String] = []
        for _ in 0..<4 {
            switch await updates.next() {
            case .event(let event)?: seen.append(event.thingName ?? "")
            case .status(let status)?: seen.append("status \(status)")
            case .resumed(let after)?: seen.append("resumed after \(after)")
            case .gap(let missed)?: seen.append("gap \(missed)")
            case nil: seen.append("end")
            }
        }
        #expect(seen == ["before", "status subscribing", "resumed after 30.0 seconds", "after"])
    }
}

/// Values a background reader collected.
private final class LockedEvents: @unchecked Sendable {
    // @unchecked: `collected` is guarded by `lock`.
    private let lock = NSLock()
    private var collected: [String] = []
    func append(_ value: String) { lock.withLock { collected.append(value) } }
    var values: [String] { lock.withLock { collected } }
}
