import AppSyncEmulator
import AppSyncRuntime
import ChannelRuntime
import Foundation
import SSERuntime
import Testing
import VortexEvents
import ChannelRuntimeTesting

/// A network path change over real sockets (issue 45): a frozen WebSocket (the socket open,
/// nothing answered) is replaced without waiting for the keep-alive watchdog's five minutes, a
/// healthy one is kept, and an SSE stream is reopened at once with `Last-Event-ID`.
@Suite("Network path changes over loopback", .serialized)
struct NetworkPathEndToEndTests {
    @Test func aFrozenWebSocketIsReplacedAndTheNineStreamsGoOn() async throws {
        let stack = try await Stack.start()
        let nine = EndToEndTests.Nine(stack.notifier)
        await stack.connection.start()
        try await untilPublished(by: stack.connection, "nine subscriptions") { await stack.connection.acknowledgedChannels.count == 9 }
        await stack.emulator.freezeConnections()
        await stack.connection.networkPathChanged()
        try await stack.emulator.untilActivity("a new connection") { $0.connectionsAccepted == 2 }
        try await untilPublished(by: stack.connection, "nine resubscriptions") { await stack.connection.acknowledgedChannels.count == 9 }
        try await EndToEndTests().publishAll(stack, user: "alice", tag: "after")
        try await nine.untilEachReceived("nine events")
        for collector in nine.all { #expect(collector.elements == ["after"]) }
        #expect(stack.connection.metrics.snapshot().keepAliveTimeouts == 0)  // the probe found it, not the watchdog
        nine.cancel()
        await stack.stop()
    }

    @Test func aHealthyWebSocketAnswersTheProbeAndIsKept() async throws {
        // The pong comes at once over loopback, but a busy machine can hold it past the default
        // 2 s: a bound that generous keeps the test about the answer, not about the machine's speed.
        let stack = try await Stack.start(configure: { $0.probeTimeout = .seconds(120) })
        await stack.connection.start()
        try await untilPublished(by: stack.connection, "connected") { await stack.connection.state == .connected }
        // A change while a probe is out is ignored: a second ping proves the first was answered.
        try await waitFor("two probes answered") {
            await stack.connection.networkPathChanged()
            return await stack.emulator.pingsReceived >= 2
        }
        #expect(await stack.emulator.connectionsAccepted == 1)
        #expect(await stack.connection.state == .connected)
        await stack.stop()
    }

    @Test func anSSEStreamIsReopenedAtOnceWithLastEventID() async throws {
        let setup = try await SSEConnectionTests.start()
        let subscription = try await setup.connection.subscribe(to: "/app/a")
        let received = Collected { subscription.events }
        await setup.connection.start()
        try await untilPublished(by: setup.connection, "the stream") { await setup.connection.acknowledgedChannels == ["/app/a"] }
        _ = try await setup.publisher.publish([SSEConnectionTests.event(0)], to: "/app/a")
        try await received.wait("the first event") { $0.count >= 1 }
        setup.emulator.stallEventStreams()
        for index in 1..<10 { _ = try await setup.publisher.publish([SSEConnectionTests.event(index)], to: "/app/a") }
        await setup.connection.networkPathChanged()
        try await received.wait("the events after the reopen") { $0.count >= 10 }
        #expect(received.elements.compactMap(SSEConnectionTests.index) == Array(0..<10))
        #expect(setup.emulator.eventStreamsOpened == 2)
        #expect(setup.connection.metrics.snapshot().keepAliveTimeouts == 0)  // the path change reopened it, not the watchdog
        await setup.stop()
        received.cancel()
    }
}
