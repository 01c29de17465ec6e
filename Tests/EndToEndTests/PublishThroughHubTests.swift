import AppSyncRuntime
import ChannelRuntime
import Foundation
import Testing
import VortexEvents

/// Issue 14: a typed publish goes over the app's own WebSocket to the channel its parameters name,
/// and the app's stream of that channel receives it.
@Suite("Typed publish over loopback")
struct PublishThroughHubTests {
    @Test func aTypedPublishArrivesOnTheChannelsStream() async throws {
        let stack = try await Stack.start()
        let roles = Collected { await stack.notifier.roleValues() }
        await stack.connection.start()
        try await waitFor("the role subscription") {
            await stack.connection.acknowledgedChannels.contains("vortex-app/user/alice/roleChanged")
        }
        let hub = ChannelEventHub(connection: stack.connection, parameters: ["userId": try ChannelSegment("alice")])
        let event = RoleChangeOutput(eventType: "user/roleChanged", timestamp: Date(timeIntervalSince1970: 1_700_000_000), reason: "promoted")
        try await hub.publish([event], to: RoleChangeEventsSubscription.self)
        try await waitFor("the published event") { roles.count == 1 }
        #expect(roles.elements.first?.reason == "promoted")
        roles.cancel()
        await stack.stop()
    }
}
