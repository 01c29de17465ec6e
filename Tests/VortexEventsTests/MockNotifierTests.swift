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
}
