import AppSyncRuntime
import ChannelRuntime
import Foundation
import SSERuntime
import Testing
import VortexEvents
import ChannelRuntimeTesting

/// Issue 14: a typed publish goes over the app's own WebSocket to the channel its parameters name,
/// and the app's stream of that channel receives it.
@Suite("Typed publish over loopback")
struct PublishThroughHubTests {
    @Test func aTypedPublishArrivesOnTheChannelsStream() async throws {
        let stack = try await Stack.start()
        let roles = Collected { await stack.notifier.roleValues() }
        await stack.connection.start()
        try await untilPublished(by: stack.connection, "the role subscription") {
            await stack.connection.acknowledgedChannels.contains("vortex-app/user/alice/roleChanged")
        }
        let hub = ChannelEventHub(connection: stack.connection, parameters: ["userId": try ChannelSegment("alice")])
        let event = RoleChangeOutput(eventType: "user/roleChanged", timestamp: Date(timeIntervalSince1970: 1_700_000_000), reason: "promoted")
        try await hub.publish([event], to: RoleChangeEventsSubscription.self)
        try await roles.wait("the published event") { $0.count == 1 }
        #expect(roles.elements.first?.reason == "promoted")
        roles.cancel()
        await stack.stop()
    }

    /// Issue 48: a `send` works over HTTP too. An app that receives over SSE (a connection that
    /// cannot publish) publishes typed events through an `AppSyncHTTPPublisher`, and a backend
    /// publishes generated payloads to one channel instance.
    @Test func typedPublishesGoOverHTTPBesideAReceiveOnlyConnection() async throws {
        let sse = try await SSEConnectionTests.start()
        let http = sse.publisher
        let hub = ChannelEventHub(connection: sse.connection, parameters: ["userId": try ChannelSegment("alice")], publisher: http)
        let roles = Collected { await hub.events(RoleChangeEventsSubscription.self) }
        await sse.connection.start()
        try await untilPublished(by: sse.connection, "the role stream") { await sse.connection.acknowledgedChannels.contains("vortex-app/user/alice/roleChanged") }
        let event = RoleChangeOutput(eventType: "user/roleChanged", timestamp: Date(timeIntervalSince1970: 1_700_000_000), reason: "promoted")
        try await hub.publish([event], to: RoleChangeEventsSubscription.self)
        let result = try await http.publish([RoleChangeOutput(timestamp: Date(), reason: "by the backend")], to: try RoleChangeEventsSubscription(userId: "alice"))
        #expect(result.successful.count == 1 && result.failed.isEmpty)
        try await roles.wait("both events") { $0.count == 2 }
        #expect(roles.elements.map(\.reason) == ["promoted", "by the backend"])

        // Without a publisher, the receive-only connection says so.
        let receiveOnly = ChannelEventHub(connection: sse.connection, parameters: ["userId": try ChannelSegment("alice")])
        await #expect(throws: ChannelPublishError.unsupportedTransport) { try await receiveOnly.publish([event], to: RoleChangeEventsSubscription.self) }
        roles.cancel()
        await sse.stop()
    }
}
