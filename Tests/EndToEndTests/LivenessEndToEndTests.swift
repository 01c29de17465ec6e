import AppSyncEmulator
import AppSyncRuntime
import ChannelRuntime
import ChannelRuntimeTesting
import Foundation
import Logging
import NIOChannelTransports
import SSERuntime
import Testing

/// A dead connection found with no network path signal, over sockets on 127.0.0.1 with the
/// client on a manual clock: the times asserted are the clock's, whatever the machine's speed.
/// A frozen WebSocket server (the socket open, nothing sent, pings unanswered) is replaced 45 s
/// in by the idle ping, or after two missed keep-alives without pings (not after the 300 s the
/// server announces); a live one answers the ping and is kept; a suspended client sends nothing;
/// a silent event stream is reopened after two missed heartbeats, with `Last-Event-ID`.
@Suite("Liveness over sockets")
struct LivenessEndToEndTests {
    static let quiet = Logger(label: "liveness") { _ in SwiftLogNoOpLogHandler() }
    static let apiKey = "da2-liveness"

    /// Upgrades and acknowledges with AppSync's 300 s, then sends nothing and answers nothing.
    static func frozenServer() async throws -> ScriptedServer {
        try await ScriptedServer.start(closing: false) { accept in
            ScriptedServer.switchingProtocols(accept: accept) + ScriptedServer.text(#"{"type":"connection_ack","connectionTimeoutMs":300000}"#)
        }
    }

    static func connection(
        to endpoint: String, clock: ManualClock, _ configure: (inout AppSyncConfiguration) -> Void = { _ in }
    ) throws -> AppSyncConnection {
        var configuration = AppSyncConfiguration(endpoint: try ChannelEndpoint(http: endpoint), authorization: .apiKey(apiKey))
        configure(&configuration)
        return AppSyncConnection(configuration: configuration, transport: WSClientTransport(logger: quiet), clock: clock, logger: quiet)
    }

    /// An emulator whose own keep-alive never comes during a test: only the client's pings are traffic.
    static func emulator() async throws -> (AppSyncEmulator, String) {
        let emulator = AppSyncEmulator(configuration: EmulatorConfiguration(apiKeys: [apiKey], keepAliveInterval: .seconds(3600)), logger: quiet)
        return (emulator, try await emulator.start().absoluteString)
    }

    static func connected(_ connection: AppSyncConnection) async throws {
        await connection.start()
        try await untilPublished(by: connection, "connected") { await connection.state == .connected }
    }

    /// Disconnects from a frozen server, which never finishes the close: its grace period (2 s)
    /// passes on the manual clock, and the socket is closed hard.
    static func disconnect(_ connection: AppSyncConnection, frozen clock: ManualClock) async throws {
        let now = clock.now.offset
        async let stopped: Void = connection.disconnect()
        try await clock.waitForSleeper(until: now + .seconds(2))
        clock.advance(by: .seconds(2))
        await stopped
    }

    @Test func aFrozenServerIsFoundByAPingAndReplaced45SecondsIn() async throws {
        let server = try await Self.frozenServer()
        let clock = ManualClock()
        // The defaults: a ping after 30 s of silence, 15 s for its pong.
        let connection = try Self.connection(to: "http://127.0.0.1:\(server.port)/event", clock: clock)
        try await Self.connected(connection)
        try await clock.waitForSleeper(until: .seconds(30))
        clock.advance(by: .seconds(30))
        try await clock.waitForSleeper(until: .seconds(45))  // the ping is out, its pong due at 45 s
        #expect(server.openedConnections.value == 1)
        clock.advance(by: .seconds(15))
        try await server.openedConnections.wait("the replacement connection") { $0 == 2 }
        try await server.closedConnections.wait("the frozen one closed") { $0 >= 1 }
        #expect(clock.now.offset == .seconds(45))
        #expect(connection.metrics.snapshot().keepAliveTimeouts == 1)
        try await untilPublished(by: connection, "connected again") { await connection.state == .connected }
        try await Self.disconnect(connection, frozen: clock)
        await server.stop()
    }

    @Test func withoutPingsAFrozenServerIsReplacedAfterTwoMissedKeepAlivesNot300Seconds() async throws {
        let server = try await Self.frozenServer()
        let clock = ManualClock()
        let connection = try Self.connection(to: "http://127.0.0.1:\(server.port)/event", clock: clock) { $0.pingInterval = nil }
        try await Self.connected(connection)
        try await clock.waitForSleeper(until: .seconds(120))  // twice AppSync's 60 s keep-alive
        clock.advance(by: .seconds(120))
        try await clock.waitForSleeper(until: .seconds(122))  // the close frame the frozen server never answers
        clock.advance(by: .seconds(2))
        try await untilPublished(by: connection, "reconnecting") {
            await connection.state == .reconnecting(after: .seconds(10), because: .keepAliveTimeout)
        }
        try await clock.waitForSleeper(until: .seconds(132))
        #expect(server.openedConnections.value == 1)
        clock.advance(by: .seconds(10))
        try await server.openedConnections.wait("the replacement connection") { $0 == 2 }
        #expect(clock.now.offset == .seconds(132))
        #expect(connection.metrics.snapshot().keepAliveTimeouts == 1)
        try await untilPublished(by: connection, "connected again") { await connection.state == .connected }
        try await Self.disconnect(connection, frozen: clock)
        await server.stop()
    }

    @Test func aServerThatAnswersThePingIsKeptAndPingedAgainAfterAnotherSilentInterval() async throws {
        let (emulator, endpoint) = try await Self.emulator()
        let clock = ManualClock()
        let connection = try Self.connection(to: endpoint, clock: clock)
        try await Self.connected(connection)
        try await clock.waitForSleeper(until: .seconds(30))
        clock.advance(by: .seconds(30))
        try await emulator.untilActivity("the ping") { $0.pingsReceived == 1 }
        // The pong came: no deadline at 45 s, the next ping due a whole interval on.
        try await clock.untilSleepers("the next ping at 60 s") { $0.contains(.seconds(60)) && !$0.contains(.seconds(45)) }
        clock.advance(by: .seconds(15))
        #expect(await connection.state == .connected)
        clock.advance(by: .seconds(15))
        try await emulator.untilActivity("the second ping") { $0.pingsReceived == 2 }
        #expect(await emulator.connectionsAccepted == 1)
        await connection.disconnect()
        await emulator.stop()
    }

    @Test func aSuspendedConnectionSendsNothingAndKeepsNoTimer() async throws {
        let (emulator, endpoint) = try await Self.emulator()
        let clock = ManualClock()
        let connection = try Self.connection(to: endpoint, clock: clock)
        try await Self.connected(connection)
        await connection.suspend()
        try await untilPublished(by: connection, "suspended") { await connection.state == .suspended }
        // Nothing is scheduled, so no amount of time can send anything.
        try await clock.untilSleepers("no timer left") { $0.isEmpty }
        clock.advance(by: .seconds(3600))
        #expect(await emulator.pingsReceived == 0)
        #expect(await emulator.connectionsAccepted == 1)
        #expect(await connection.state == .suspended)
        await connection.disconnect()
        await emulator.stop()
    }

    @Test func aSilentEventStreamIsReopenedAfterTwoMissedHeartbeatsWithLastEventID() async throws {
        let requests = RecordedRequests()
        // Answers each request with one event, then keeps the stream open and silent.
        let server = try await ScriptedServer.start(closing: false) { _, request in
            requests.append(request)
            return Array((SSEHostileServerTests.eventStreamHead + "id: \(requests.count)\nevent: /app/a\ndata: {}\n\n").utf8)
        }
        let clock = ManualClock()
        let configuration = SSEConfiguration(endpoint: try ChannelEndpoint(http: "http://127.0.0.1:\(server.port)/event"), authorization: .apiKey("key"))
        #expect(configuration.heartbeatInterval == .seconds(40))  // Mercure's default
        let connection = SSEConnection(configuration: configuration, transport: NIOEventStreamTransport(), clock: clock, logger: Self.quiet)
        let subscription = try await connection.subscribe(to: "/app/a")
        let received = Collected { subscription.events }
        await connection.start()
        try await received.wait("the first event") { $0.count == 1 }
        try await clock.waitForSleeper(until: .seconds(80))  // two heartbeats missed
        clock.advance(by: .seconds(80))
        try await untilPublished(by: connection, "reconnecting") {
            await connection.state == .reconnecting(after: .seconds(1), because: .keepAliveTimeout)
        }
        #expect(requests.count == 1)
        try await clock.waitForSleeper(until: .seconds(81))
        clock.advance(by: .seconds(1))
        try await requests.untilCount(2, "the reopened stream")
        #expect(requests.all[1].lowercased().contains("last-event-id: 1\r\n"))
        #expect(connection.metrics.snapshot().keepAliveTimeouts == 1)
        await connection.disconnect()
        received.cancel()
        await server.stop()
    }
}
