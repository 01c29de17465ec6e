import AppSyncRuntime
import ChannelRuntimeTesting
import Foundation
import Testing
import VortexEvents

/// An app's test with `ChannelRuntimeTesting` (the README's example): the generated notifier on a
/// real `AppSyncConnection`, its WebSocket in memory and its time on a manual clock, so a dropped
/// connection and the reconnect delay take no real time.
@Suite("App test with ChannelRuntimeTesting")
struct ReconnectAppTests {
    @Test func theStreamGoesOnAfterTheConnectionDrops() async throws {
        let clock = ManualClock()
        let transport = InMemoryTransport()
        var configuration = AppSyncConfiguration(
            endpoint: try ChannelEndpoint(http: "https://example.appsync-api.eu-west-1.amazonaws.com/event"), authorization: .apiKey("da2-test"))
        configuration.reconnectPolicy = .fixed(.seconds(2))
        let connection = AppSyncConnection(configuration: configuration, transport: transport, clock: clock)
        let notifier = BackendNotifier(source: ChannelEventHub(connection: connection))
        try await notifier.setUserId("alice")
        var presence = await notifier.devicePresenceValues().makeAsyncIterator()
        await connection.start()

        let server = try await transport.nextConnection()
        try await server.acceptConnection()
        let ids = try await server.acceptSubscribes(1)
        let event = #"{"eventType":"device/presenceChanged","timestamp":"2026-11-25T10:00:00Z","thingName":"cam-1","online":true}"#
        server.push(["type": "data", "id": ids["vortex-app/user/alice/device/presenceChanged"] ?? "", "event": event])
        #expect(await presence.next()?.online == true)

        server.drop()  // the network goes away
        try await clock.waitForSleeper(until: .seconds(2))
        clock.advance(by: .seconds(2))  // the reconnect delay, without waiting for it
        let again = try await transport.nextConnection()
        try await again.acceptConnection()
        let resubscribed = try await again.acceptSubscribes(1)
        again.push(["type": "data", "id": resubscribed["vortex-app/user/alice/device/presenceChanged"] ?? "",
                    "event": event.replacingOccurrences(of: "true", with: "false")])
        #expect(await presence.next()?.online == false)
        await connection.disconnect()
    }
}
