import AppSyncEmulator
import AppSyncRuntime
import ChannelRuntime
import Foundation
import Logging
import NIOConcurrencyHelpers
import SSERuntime
import Testing
import VortexEvents
import ChannelRuntimeTesting

/// Seed 004's rollout and rollback, live: one generated notifier over a `SwitchableConnection`
/// of the emulator's WebSocket and its SSE hub, moved back and forth while an app's loop reads.
@Suite("Live transport switch")
struct TransportSwitchTests {
    @Test func theAppsLoopSurvivesEverySwitchAndNoEventArrivesTwice() async throws {
        let (stack, sse, connection, hub, notifier) = try await Self.setUp(using: "sse")
        let transports = Collected { await connection.transportUpdates() }
        let updates = await notifier.updates(UserTokenRevokeEventsSubscription.self)
        let seen = NIOLockedValueBox((events: [Int](), resumed: 0, ended: false))
        let reader = Task {
            for await update in updates {
                switch update {
                case .event(let event): seen.withLockedValue { $0.events.append(Int(event.timestamp.timeIntervalSince1970) - 1_700_000_000) }
                case .resumed: seen.withLockedValue { $0.resumed += 1 }
                case .status, .gap: break
                }
            }
            seen.withLockedValue { $0.ended = true }
        }
        await connection.start()

        let channel = try UserTokenRevokeEventsSubscription(userId: "alice").channel
        var published = 0
        func publishBatch() async throws {
            try await untilStatus(.active, of: UserTokenRevokeEventsSubscription.self, on: hub)
            for _ in 0..<10 {
                published += 1
                let result = try await stack.publisher.publish([try UserSwitchEndToEndTests.revocation(of: "alice", published)], to: channel)
                #expect(result.failed.isEmpty)
            }
        }
        // Switches once every event so far arrived: nothing is lost, and nothing comes twice.
        func delivered() async throws {
            let total = published
            try await waitFor("every event so far") { seen.withLockedValue { $0.events.count } >= total }
        }
        try await publishBatch()
        for next in ["websocket", "sse", "websocket"] {
            try await delivered()
            try await connection.switchTransport(to: next)
            #expect(await connection.activeTransport == next)
            try await publishBatch()
        }
        try await delivered()
        #expect(seen.withLockedValue { $0.events } == Array(1...published))
        #expect(seen.withLockedValue { $0.resumed } == 3)

        // Switches under a flood: what was in flight on the transport left is not delivered (the
        // app gets `.resumed` to catch up), and still no event comes twice.
        let flood = Task {
            var n = 1000
            while !Task.isCancelled {
                n += 1
                _ = try? await stack.publisher.publish([try UserSwitchEndToEndTests.revocation(of: "alice", n)], to: channel)
            }
        }
        for next in ["sse", "websocket"] {
            // Each switch from an active subscription, so each one ends in one `.resumed`.
            try await untilStatus(.active, of: UserTokenRevokeEventsSubscription.self, on: hub)
            try await Task.sleep(for: .milliseconds(100))
            try await connection.switchTransport(to: next)
        }
        try await untilStatus(.active, of: UserTokenRevokeEventsSubscription.self, on: hub)
        let before = seen.withLockedValue { $0.events.count }
        try await waitFor("events after the last switch") { seen.withLockedValue { $0.events.count } > before + 5 }
        flood.cancel()
        let flooded = seen.withLockedValue { $0.events.filter { $0 > 1000 } }
        #expect(flooded == flooded.sorted() && Set(flooded).count == flooded.count)
        #expect(seen.withLockedValue { $0.resumed } == 5)
        await connection.disconnect()
        await sse.disconnect()
        // The loop is still reading: no switch, nor the end of the connection, ended its stream.
        #expect(!seen.withLockedValue { $0.ended })
        reader.cancel()
        #expect(transports.elements == ["sse", "websocket", "sse", "websocket", "sse", "websocket"])
        await stack.stop()
    }

    /// The emulator's WebSocket and its SSE hub behind one switchable connection, alice's notifier on it.
    static func setUp(using active: String) async throws
        -> (Stack, SSEConnection, SwitchableConnection, ChannelEventHub, BackendNotifier)
    {
        let stack = try await Stack.start(authorization: { _ in .apiKey(Stack.publisherKey) })
        var sseConfiguration = SSEConfiguration(endpoint: stack.endpoint, authorization: .apiKey(Stack.publisherKey))
        sseConfiguration.reconnectPolicy = .fixed(.milliseconds(100))
        sseConfiguration.connectTimeout = boundForLoadedMachines
        let sse = SSEConnection(configuration: sseConfiguration, logger: SSEConnectionTests.quiet)
        let connection = SwitchableConnection(["websocket": stack.connection, "sse": sse], using: active, logger: SSEConnectionTests.quiet)
        let hub = ChannelEventHub(connection: connection, logger: SSEConnectionTests.quiet)
        let notifier = BackendNotifier(source: hub)
        try await notifier.setUserId("alice")
        return (stack, sse, connection, hub, notifier)
    }

    @Test func anUnknownTransportIsRefusedWithTheKnownOnes() async throws {
        let endpoint = try ChannelEndpoint(http: "http://127.0.0.1:1/event")
        let sse = SSEConnection(configuration: SSEConfiguration(endpoint: endpoint, authorization: .apiKey("k")), logger: SSEConnectionTests.quiet)
        let connection = SwitchableConnection(["sse": sse], using: "sse")
        await #expect(throws: SwitchableConnection.SwitchError.unknownTransport("mqtt", known: ["sse"])) {
            try await connection.switchTransport(to: "mqtt")
        }
    }
}

extension TransportSwitchTests {
    /// A switch while the app is in the background does not open the new transport; coming back
    /// opens it, and the stream goes on.
    @Test func aSwitchWhileSuspendedWaitsForTheResume() async throws {
        let (stack, sse, connection, hub, notifier) = try await Self.setUp(using: "websocket")
        let events = Collected { await notifier.revokeValues() }
        await connection.start()
        try await untilStatus(.active, of: UserTokenRevokeEventsSubscription.self, on: hub)
        await connection.suspend()
        try await connection.switchTransport(to: "sse")
        #expect(await sse.state == .idle)
        #expect(emulatorStreams(stack) == 0)
        await connection.resume()
        try await untilStatus(.active, of: UserTokenRevokeEventsSubscription.self, on: hub)
        let channel = try UserTokenRevokeEventsSubscription(userId: "alice").channel
        _ = try await stack.publisher.publish([try UserSwitchEndToEndTests.revocation(of: "alice", 1)], to: channel)
        try await events.wait("the event over SSE") { $0.count == 1 }
        events.cancel()
        await connection.disconnect()
        await stack.stop()
    }

    private func emulatorStreams(_ stack: Stack) -> Int { stack.emulator.eventStreamCount }
}
