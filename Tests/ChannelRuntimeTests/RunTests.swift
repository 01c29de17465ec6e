import AppSyncRuntime
@_spi(Transport) import ChannelRuntime
import ChannelRuntimeTesting
import ChannelTransports
import Foundation
import Logging
import SSERuntime
import ServiceLifecycle
import Testing

/// `run()`: a connection run in the caller's task, for servers and ServiceLifecycle. On both wires
/// it holds the connection until `disconnect()`, a cancelled caller cuts the session off at once, a
/// failure for good is thrown, and nothing of the connection outlives the call. Every delay is on
/// a manual clock that no test moves: a run that waited out a timer would never return.
@Suite("Running a connection in the caller's task")
struct RunTests {
    typealias Wire = WireLifecycleTests.Wire
    typealias Rig = WireLifecycleTests.Rig

    /// A subscribed connection that `run()` runs in a task, connected.
    static func running(_ wire: Wire) async throws -> (Rig, Collector, WireLifecycleTests.Session, Task<Void, any Error>) {
        let rig = Rig(wire)
        let events = Collector(try await rig.connection.subscribe(ChannelRequest(channel: WireLifecycleTests.channel)).events)
        let connection = rig.connection
        let run = Task { try await connection.run() }
        let session = try await rig.acceptSession()
        try await rig.waitForState(.connected)
        return (rig, events, session, run)
    }

    @Test(arguments: Wire.allCases)
    func runHoldsTheConnectionUntilDisconnectAndLeavesNothingAlive(_ wire: Wire) async throws {
        let (rig, events, session, run) = try await Self.running(wire)
        session.send(#"{"n":1}"#)
        try await events.waitFor(count: 1)
        #expect(await rig.liveTasks > 1)

        await rig.connection.disconnect()
        try await awaiting("run() to return") { try await run.value }
        #expect(await rig.connection.state == .disconnected)
        #expect(await rig.liveTasks == 0)
    }

    /// The abort path: cancelling the task that runs the connection ends it without the close
    /// handshake and its grace period. The subscription stays registered, as after `disconnect()`.
    @Test(arguments: Wire.allCases)
    func cancellingRunCutsTheConnectionOffAtOnce(_ wire: Wire) async throws {
        let (rig, events, session, run) = try await Self.running(wire)
        session.send(#"{"n":1}"#)
        try await events.waitFor(count: 1)

        run.cancel()
        try await awaiting("run() to return") { try await run.value }
        #expect(await rig.connection.state == .disconnected)
        #expect(await rig.liveTasks == 0)

        await rig.connection.start()
        let second = try await rig.acceptSession()
        try await rig.waitForState(.connected)
        second.send(#"{"n":2}"#)
        try await events.waitFor(count: 2)
        await rig.connection.disconnect()
        #expect(await rig.liveTasks == 0)
    }

    @Test(arguments: Wire.allCases)
    func aConnectionRunsOnceAtATime(_ wire: Wire) async throws {
        let (rig, _, _, run) = try await Self.running(wire)
        await #expect(throws: ConnectionRunError.alreadyRunning) { try await rig.connection.run() }
        await rig.connection.disconnect()
        try await awaiting("run() to return") { try await run.value }

        await rig.connection.start()
        _ = try await rig.acceptSession()
        await #expect(throws: ConnectionRunError.alreadyRunning) { try await rig.connection.run() }
        await rig.connection.disconnect()
        #expect(await rig.liveTasks == 0)
    }

    /// A cancelled run on AppSync sends no close frame (the handshake would wait for the server's
    /// answer); a graceful `disconnect()` does.
    @Test func aCancelledRunCutsTheWebSocketOffWithoutAHandshake() async throws {
        let transport = InMemoryTransport()
        let connection = Self.appSync(transport)
        let run = Task { try await connection.run() }
        let server = try await transport.nextConnection()
        try await server.acceptConnection()
        try await untilPublished(by: connection, "connected") { await connection.state == .connected }

        run.cancel()
        try await awaiting("run() to return") { try await run.value }
        #expect(server.isClosedByClient)
        #expect(!server.clientStartedCloseHandshake)
    }

    /// A wrong API key: the run ends, saying why, as the connection's state does.
    @Test func runThrowsWhenTheCredentialsAreRefused() async throws {
        let transport = InMemoryTransport()
        let connection = Self.appSync(transport)
        let run = Task { try await connection.run() }
        // Refused, then refused again after credentials fetched anew: failed for good.
        let refusal: [String: Any] = ["type": "connection_error", "errors": [["errorType": "UnauthorizedException", "message": "no", "errorCode": 401]]]
        for _ in 0..<2 {
            let server = try await transport.nextConnection()
            _ = await server.nextMessage()
            server.push(refusal)
        }
        let thrown = await #expect(throws: ConnectionRunError.self) { try await run.value }
        guard case .failed(.unauthorized(let errors)) = thrown else {
            Issue.record("expected an authorization failure, got \(String(describing: thrown))")
            return
        }
        #expect(errors.map(\.errorType) == ["UnauthorizedException"])
        #expect(await connection.state == .failed(.unauthorized(errors)))
        #expect(await (connection.lifecycle as? ConnectionDriver)?.liveTasks == 0)
    }

    /// Under ServiceLifecycle: a graceful shutdown of the group disconnects (with the close
    /// handshake) and the group's run returns.
    @Test func aServiceGroupsGracefulShutdownDisconnects() async throws {
        let transport = InMemoryTransport()
        let connection = Self.appSync(transport)
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [connection], logger: Logger(label: "test")))
        let running = Task { try await group.run() }
        let server = try await transport.nextConnection()
        try await server.acceptConnection()
        try await untilPublished(by: connection, "connected") { await connection.state == .connected }

        await group.triggerGracefulShutdown()
        try await awaiting("the service group to end") { try await running.value }
        #expect(server.clientStartedCloseHandshake)
        #expect(await connection.state == .disconnected)
        #expect(await (connection.lifecycle as? ConnectionDriver)?.liveTasks == 0)
    }

    /// Server-Sent Events with a job's own stream beside the shared one: a cancelled run cuts both
    /// off, and nothing of either is left.
    @Test func aCancelledRunEndsTheOwnStreamsToo() async throws {
        let transport = InMemoryEventStreamTransport()
        let connection = SSEConnection(
            configuration: SSEConfiguration(endpoint: WireLifecycleTests.endpoint, authorization: .apiKey("da2-test")),
            transport: transport, clock: ManualClock(), logger: Logger(label: "test"))
        let shared = try await connection.subscribe(ChannelRequest(channel: WireLifecycleTests.channel))
        let job = try await connection.subscribe(ChannelRequest(channel: "/jobs/j1", isOwnStream: true))
        let run = Task { try await connection.run() }
        _ = try await transport.nextStream()
        _ = try await transport.nextStream()
        try await untilPublished(by: connection, "both streams active") {
            let statuses = [await connection.status(ofSubscription: shared.id), await connection.status(ofSubscription: job.id)]
            return statuses == [.active, .active]
        }
        let group = try #require(connection.lifecycle as? OwnStreamGroup)
        #expect(await group.liveTasks > 2)

        run.cancel()
        try await awaiting("run() to return") { try await run.value }
        #expect(transport.openStreams.isEmpty)
        #expect(await connection.state == .disconnected)
        #expect(await group.liveTasks == 0)
    }

    /// A switchable connection's run lasts across switches, ends with `disconnect()`, and a
    /// cancelled one cuts the transport in use off.
    @Test func aSwitchableConnectionRunsAcrossSwitchesUntilItEnds() async throws {
        let (first, second) = (InMemoryTransport(), InMemoryTransport())
        let (a, b) = (Self.appSync(first), Self.appSync(second))
        let connection = SwitchableConnection(["a": a, "b": b], using: "a")
        let run = Task { try await connection.run() }
        try await first.nextConnection().acceptConnection()
        try await untilPublished(by: connection, "connected on a") { await connection.state == .connected }

        try await connection.switchTransport(to: "b")
        let onB = try await second.nextConnection()
        try await onB.acceptConnection()
        try await untilPublished(by: connection, "connected on b") { await b.state == .connected }
        await #expect(throws: ConnectionRunError.alreadyRunning) { try await connection.run() }

        await connection.disconnect()
        try await awaiting("run() to return") { try await run.value }
        #expect(await connection.state == .disconnected)
        #expect(await (a.lifecycle as? ConnectionDriver)?.liveTasks == 0)
        #expect(await (b.lifecycle as? ConnectionDriver)?.liveTasks == 0)

        // Run again, then cancel: the transport in use is cut off without a handshake.
        let runAgain = Task { try await connection.run() }
        let again = try await second.nextConnection()
        try await again.acceptConnection()
        try await untilPublished(by: connection, "connected again") { await connection.state == .connected }
        runAgain.cancel()
        try await awaiting("run() to return") { try await runAgain.value }
        #expect(again.isClosedByClient && !again.clientStartedCloseHandshake)
        #expect(await (b.lifecycle as? ConnectionDriver)?.liveTasks == 0)
    }

    /// What an adapter runs for its socket (`TransportTasks`) is a child of the connection's root:
    /// `disconnect()` returns only once it ended, and a cancelled run's abort ends it too.
    @Test func anAdaptersSocketWorkEndsBeforeDisconnectReturns() async throws {
        let transport = SocketWorkTransport()
        let connection = Self.appSync(transport)
        await connection.start()
        try await transport.inner.nextConnection().acceptConnection()
        try await untilPublished(by: connection, "connected") { await connection.state == .connected }
        #expect(transport.working.value == 1)

        await connection.disconnect()
        #expect(transport.working.value == 0)  // no wait: ended before disconnect() returned
        #expect(await (connection.lifecycle as? ConnectionDriver)?.liveTasks == 0)

        let run = Task { try await connection.run() }
        try await transport.inner.nextConnection().acceptConnection()
        try await transport.working.wait("the second socket's work") { $0 == 1 }
        run.cancel()
        try await awaiting("run() to return") { try await run.value }
        #expect(transport.working.value == 0)
    }

    static func appSync(_ transport: some WebSocketTransport) -> AppSyncConnection {
        AppSyncConnection(
            configuration: AppSyncConfiguration(endpoint: WireLifecycleTests.endpoint, authorization: .apiKey("da2-test")),
            transport: transport, clock: ManualClock(), logger: Logger(label: "test"))
    }
}

/// An in-memory WebSocket whose socket has work of its own, run where the adapter contract says
/// (`TransportTasks`), as a real adapter's reader: it runs until cancelled and counts itself.
private final class SocketWorkTransport: WebSocketTransport {
    let inner = InMemoryTransport()
    /// Socket work running now.
    let working = Watched(0)

    func connect(to url: URL, subprotocols: [String], tasks: TransportTasks) async throws -> any WebSocketSession {
        let session = try await inner.connect(to: url, subprotocols: subprotocols, tasks: tasks)
        let working = self.working
        working.update { $0 += 1 }
        _ = try tasks.run {
            // A stream nothing is sent on: read until the task is cancelled.
            let (untilCancelled, keptOpen) = AsyncStream.makeStream(of: Void.self)
            for await _ in untilCancelled {}
            withExtendedLifetime(keptOpen) {}
            working.update { $0 -= 1 }
        }
        return session
    }
}
