import Testing
import VortexEvents

/// A source that records which subscriptions the notifier asks for and replays one event each.
private actor RecordingSource: ChannelEventSource {
    private(set) var requested: [String] = []
    private(set) var userId: ChannelSegment
    let events: [String: any Sendable]

    init(userId: ChannelSegment, events: [String: any Sendable]) {
        self.userId = userId
        self.events = events
    }

    func events<Subscription: ChannelSubscription>(_ subscription: Subscription.Type) async -> AsyncStream<Subscription.Event> {
        let channel = (try? Subscription.template.channel(["userId": userId])) ?? "invalid"
        requested.append(channel)
        let event = events[Subscription.template.address] as? Subscription.Event
        return AsyncStream { continuation in
            if let event { continuation.yield(event) }
            continuation.finish()
        }
    }

    func setParameter(_ name: String, to value: ChannelSegment) {
        if name == "userId" { userId = value }
    }

    func events<Subscription: ChannelSubscription>(for instance: Subscription) -> AsyncStream<Subscription.Event> {
        requested.append(instance.channel)
        let event = events[Subscription.template.address] as? Subscription.Event
        return AsyncStream { continuation in
            if let event { continuation.yield(event) }
            continuation.finish()
        }
    }

    func envelopes<Subscription: ChannelSubscription>(_ subscription: Subscription.Type) -> AsyncStream<ChannelEnvelope<Subscription.Event>> {
        let channel = (try? Subscription.template.channel(["userId": userId])) ?? "invalid"
        requested.append(channel)
        let event = events[Subscription.template.address] as? Subscription.Event
        return AsyncStream { continuation in
            if let event { continuation.yield(ChannelEnvelope(event: event, channel: channel, eventType: Subscription.eventType, receivedAt: .now, sequence: 1)) }
            continuation.finish()
        }
    }

    func status<Subscription: ChannelSubscription>(of subscription: Subscription.Type) -> SubscriptionStatus? { .active }

    func statusUpdates<Subscription: ChannelSubscription>(for subscription: Subscription.Type) -> AsyncStream<SubscriptionStatus> {
        AsyncStream { $0.yield(.active); $0.finish() }
    }

    var connectionState: ConnectionState { .connected }

    func connectionStateUpdates() -> AsyncStream<ConnectionState> {
        AsyncStream { $0.yield(.connected); $0.finish() }
    }
}

@Suite("Generated notifier")
struct NotifierTests {
    @Test func eachMethodAsksForItsOwnChannel() async throws {
        let presence = DevicePresenceOutput(eventType: "device/presenceChanged", timestamp: .now, online: true)
        let revoke = UserTokenRevokeOutput(eventType: "user/tokenRevoked", timestamp: .now, userId: "u1", revokedAt: .now)
        let source = RecordingSource(userId: try ChannelSegment("u1"), events: [
            Channels.devicePresence.address: presence,
            Channels.userTokenRevokeEvents.address: revoke,
        ])
        let notifier: any BackendNotifierProtocol = BackendNotifier(source: source)

        var received: [DevicePresenceOutput] = []
        for await event in await notifier.devicePresenceValues() { received.append(event) }
        #expect(received == [presence])
        var revoked: [UserTokenRevokeOutput] = []
        for await event in await notifier.revokeValues() { revoked.append(event) }
        #expect(revoked == [revoke])

        _ = await notifier.deviceRecordingValues()
        _ = await notifier.deviceFirmwareValues()
        _ = await notifier.archiveValues()
        _ = await notifier.licenseValues()
        _ = await notifier.planValues()
        _ = await notifier.aiSettingsValues()
        _ = await notifier.roleValues()
        #expect(await source.requested == [
            "vortex-app/user/u1/device/presenceChanged", "vortex-app/user/u1/tokenRevoked",
            "vortex-app/user/u1/device/recordingStateChanged", "vortex-app/user/u1/device/firmwareUpdated",
            "vortex-app/user/u1/archive/stateChanged", "vortex-app/user/u1/organization/licensePhaseChanged",
            "vortex-app/user/u1/organization/planChanged", "vortex-app/user/u1/organization/aiSettingsChanged",
            "vortex-app/user/u1/roleChanged",
        ])
    }

    @Test func instanceAndEnvelopeMethodsGoThroughTheSource() async throws {
        let presence = DevicePresenceOutput(eventType: "device/presenceChanged", timestamp: .now, online: true)
        let source = RecordingSource(userId: try ChannelSegment("u1"), events: [Channels.devicePresence.address: presence])
        let notifier: any BackendNotifierProtocol = BackendNotifier(source: source)

        var fromInstance: [DevicePresenceOutput] = []
        for await event in await notifier.values(for: try DevicePresenceSubscription(userId: "someone-else")) {
            fromInstance.append(event)
        }
        #expect(fromInstance == [presence])
        var envelopes: [ChannelEnvelope<DevicePresenceOutput>] = []
        for await envelope in await notifier.envelopes(DevicePresenceSubscription.self) { envelopes.append(envelope) }
        #expect(envelopes.map(\.event) == [presence])
        #expect(envelopes.first?.channel == "vortex-app/user/u1/device/presenceChanged")
        #expect(envelopes.first?.eventType == "device/presenceChanged")
        #expect(await source.requested == [
            "vortex-app/user/someone-else/device/presenceChanged", "vortex-app/user/u1/device/presenceChanged",
        ])
    }
}
