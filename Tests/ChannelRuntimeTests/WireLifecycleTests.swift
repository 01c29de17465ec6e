import AppSyncRuntime
@_spi(Transport) import ChannelRuntime
import ChannelRuntimeTesting
import ChannelTransports
import Foundation
import Logging
import SSERuntime
import Testing

/// One lifecycle, run for every transport's wire under the one `ConnectionDriver`: the real wires
/// (AppSync Events over a WebSocket, Server-Sent Events from a hub) against in-memory servers, every
/// delay on a manual clock. What the driver promises holds whatever wire it runs.
@Suite("Wire lifecycle")
struct WireLifecycleTests {
    enum Wire: String, CaseIterable, CustomTestStringConvertible {
        case appSync, serverSentEvents
        var testDescription: String { rawValue }
    }

    static let channel = "app/user/u1/ping"
    static let endpoint = try! ChannelEndpoint(http: "https://abc123.appsync-api.eu-west-1.amazonaws.com/event")

    /// A connection over `wire` and the server it talks to.
    struct Rig {
        let clock = ManualClock()
        let connection: any ManagedConnection & ChannelConnection
        private let webSockets = InMemoryTransport()
        private let eventStreams = InMemoryEventStreamTransport()
        let wire: Wire

        init(
            _ wire: Wire, reconnectPolicy: ReconnectPolicy = .fixed(.seconds(2)), isSignedIn: @escaping @Sendable () async -> Bool = { true }
        ) {
            self.wire = wire
            switch wire {
            case .appSync:
                var configuration = AppSyncConfiguration(endpoint: WireLifecycleTests.endpoint, authorization: .apiKey("da2-test"))
                configuration.reconnectPolicy = reconnectPolicy
                configuration.isSignedIn = isSignedIn
                connection = AppSyncConnection(configuration: configuration, transport: webSockets, clock: clock, logger: Logger(label: "test"))
            case .serverSentEvents:
                var configuration = SSEConfiguration(endpoint: WireLifecycleTests.endpoint, authorization: .apiKey("da2-test"))
                configuration.reconnectPolicy = reconnectPolicy
                configuration.isSignedIn = isSignedIn
                connection = SSEConnection(configuration: configuration, transport: eventStreams, clock: clock, logger: Logger(label: "test"))
            }
        }

        /// Sessions the connection opened (or tried to).
        var sessionsOpened: Int {
            switch wire {
            case .appSync: webSockets.connectCount
            case .serverSentEvents: eventStreams.openCount
            }
        }

        /// Accepts the next session and its subscription; returns how to send on it and end it.
        func acceptSession() async throws -> Session {
            switch wire {
            case .appSync:
                let server = try await webSockets.nextConnection()
                try await server.acceptConnection()
                let ids = try await server.acceptSubscribes(1)
                let id = try #require(ids[WireLifecycleTests.channel])
                return Session(
                    send: { server.push(["type": "data", "id": id, "event": $0]) },
                    end: { server.drop() })
            case .serverSentEvents:
                let stream = try await eventStreams.nextStream()
                #expect(stream.topics == [WireLifecycleTests.channel])
                return Session(send: { stream.send($0, channel: WireLifecycleTests.channel) }, end: { stream.end() })
            }
        }

        /// Returns once the connection's state is `expected`, read from its state updates as they come.
        func waitForState(_ expected: ConnectionState) async throws {
            let connection = self.connection
            guard try await awaiting("state \(expected)", {
                for await state in await connection.stateUpdates() where state == expected { return true }
                return false
            }) else { throw WaitTimedOut(description: "the state updates ended before \(expected)") }
        }

        /// `time` passes on the clock and no session is tried beyond the first.
        func expectNoAttempt(during time: Duration, sourceLocation: SourceLocation = #_sourceLocation) async {
            clock.advance(by: time)
            await settle()
            #expect(sessionsOpened == 1, sourceLocation: sourceLocation)
        }

        /// Tasks of the connection alive now (its roots and their children).
        var liveTasks: Int {
            get async {
                switch connection.lifecycle {
                case let driver as ConnectionDriver: return await driver.liveTasks
                case let group as OwnStreamGroup: return await group.liveTasks
                default:
                    Issue.record("an unknown lifecycle: \(type(of: connection.lifecycle))")
                    return -1
                }
            }
        }

        /// Lets every task that can run, run.
        func settle() async {
            for _ in 0..<1_000 { await Task.yield() }
        }
    }

    struct Session {
        let send: @Sendable (String) -> Void
        let end: @Sendable () -> Void
    }

    /// Subscribes before starting (so the first session carries the channel), starts, accepts.
    static func connected(_ wire: Wire, reconnectPolicy: ReconnectPolicy = .fixed(.seconds(2))) async throws -> (Rig, Collector, Session) {
        let rig = Rig(wire, reconnectPolicy: reconnectPolicy)
        let events = Collector(try await rig.connection.subscribe(ChannelRequest(channel: channel)).events)
        await rig.connection.start()
        let session = try await rig.acceptSession()
        try await rig.waitForState(.connected)
        return (rig, events, session)
    }

    @Test(arguments: Wire.allCases)
    func eventsFlowAndADropReconnectsAfterThePolicysDelay(_ wire: Wire) async throws {
        let (rig, events, first) = try await Self.connected(wire)
        first.send(#"{"n":1}"#)
        try await events.waitFor(count: 1)

        first.end()
        try await rig.clock.waitForSleeper(until: .seconds(2))
        #expect(rig.sessionsOpened == 1)  // nothing before the delay
        rig.clock.advance(by: .seconds(2))
        let second = try await rig.acceptSession()
        try await rig.waitForState(.connected)
        second.send(#"{"n":2}"#)
        try await events.waitFor(count: 2)
        #expect(events.elements == [#"{"n":1}"#, #"{"n":2}"#])
        await rig.connection.disconnect()
    }

    /// Signed out before the first attempt: the connection stops and says so, with no timer left to
    /// ask again; `start()` after sign-in connects and the subscription's events flow.
    @Test(arguments: Wire.allCases)
    func signedOutStopsUntilStartAfterSignIn(_ wire: Wire) async throws {
        let signedIn = Flag(false)
        let rig = Rig(wire, isSignedIn: { signedIn.value })
        let subscription = try await rig.connection.subscribe(ChannelRequest(channel: Self.channel))
        let events = Collector(subscription.events)
        await rig.connection.start()
        try await rig.waitForState(.closed(.signedOut))
        try await untilPublished(by: rig.connection, "the subscription says why") {
            await rig.connection.status(ofSubscription: subscription.id) == .failed(ConnectionTests.signedOut)
        }
        try await rig.clock.untilSleepers("no timer") { $0.isEmpty }
        rig.clock.advance(by: .seconds(3600))
        await rig.settle()
        #expect(rig.sessionsOpened == 0)

        signedIn.value = true
        await rig.connection.start()
        let session = try await rig.acceptSession()
        try await rig.waitForState(.connected)
        session.send(#"{"n":1}"#)
        try await events.waitFor(count: 1)
        await rig.connection.disconnect()
    }

    /// A server that ends every session after its first event (on Server-Sent Events, a hub ending
    /// each response after one event: 43 requests in 45 s in a field report): the delay grows on
    /// both wires, as for sessions without events; only a session lasting the settle time restarts it.
    @Test(arguments: Wire.allCases)
    func sessionsThatEachCarryAnEventStillBackOff(_ wire: Wire) async throws {
        let (rig, events, first) = try await Self.connected(wire, reconnectPolicy: .exponential(initial: .seconds(1), maximum: .seconds(8)))
        var session = first
        var elapsed = Duration.zero
        for (index, delay) in [1, 2, 4, 8].map(Duration.seconds).enumerated() {
            session.send(#"{"n":\#(index)}"#)
            try await events.waitFor(count: index + 1)
            rig.clock.advance(by: .seconds(5))  // shorter than the settle time (30 s)
            elapsed += .seconds(5)
            session.end()
            try await rig.clock.waitForSleeper(until: elapsed + delay)
            #expect(rig.sessionsOpened == index + 1)  // nothing before the delay
            rig.clock.advance(by: delay)
            elapsed += delay
            session = try await rig.acceptSession()
            try await rig.waitForState(.connected)
        }
        #expect(rig.sessionsOpened == 5)
        await rig.connection.disconnect()
    }

    /// Connects, stops with `stop` (which shows `stopped`), lets ten minutes pass with no attempt,
    /// restarts with `restart` (no delay to wait for) and accepts the new session.
    static func stoppedAndRestarted(
        _ wire: Wire, stop: (any ManagedConnection) async -> Void, showing stopped: ConnectionState,
        restart: (any ManagedConnection) async -> Void
    ) async throws -> (Rig, Collector, first: Session, second: Session) {
        let (rig, events, first) = try await connected(wire)
        await stop(rig.connection)
        #expect(await rig.connection.state == stopped)
        await rig.expectNoAttempt(during: .seconds(600))
        await restart(rig.connection)
        let second = try await rig.acceptSession()
        try await rig.waitForState(.connected)
        return (rig, events, first, second)
    }

    @Test(arguments: Wire.allCases)
    func suspendHoldsEveryAttemptAndResumeConnectsAtOnce(_ wire: Wire) async throws {
        let (rig, events, first, second) = try await Self.stoppedAndRestarted(
            wire, stop: { await $0.suspend() }, showing: .suspended, restart: { await $0.resume() })
        first.send(#"{"n":0}"#)  // the closed session's: never delivered
        second.send(#"{"n":1}"#)
        try await events.waitFor(count: 1)
        await rig.settle()
        #expect(events.elements == [#"{"n":1}"#])
        await rig.connection.disconnect()
    }

    @Test(arguments: Wire.allCases)
    func withoutANetworkPathNothingIsTriedAndItsReturnConnectsAtOnce(_ wire: Wire) async throws {
        let (rig, _, first) = try await Self.connected(wire)
        await rig.connection.networkPathChanged(available: false)
        first.end()
        try await rig.waitForState(.waitingForNetwork)
        await rig.expectNoAttempt(during: .seconds(600))

        await rig.connection.networkPathChanged(available: true)
        _ = try await rig.acceptSession()
        try await rig.waitForState(.connected)
        #expect(rig.sessionsOpened == 2)
        await rig.connection.disconnect()
    }

    @Test(arguments: Wire.allCases)
    func disconnectEndsForGoodUntilStart(_ wire: Wire) async throws {
        // The subscription stays registered: its stream resumes after `start()`.
        let (rig, events, _, second) = try await Self.stoppedAndRestarted(
            wire, stop: { await $0.disconnect() }, showing: .disconnected, restart: { await $0.start() })
        second.send(#"{"n":1}"#)
        try await events.waitFor(count: 1)
        await rig.connection.disconnect()
    }

    /// Every task of a connection is a child of its root: once `disconnect()` returns, none is alive,
    /// also with a reconnect delay running when it was called, and again after a restart.
    @Test(arguments: Wire.allCases)
    func nothingOfTheConnectionIsAliveAfterDisconnect(_ wire: Wire) async throws {
        let (rig, events, first) = try await Self.connected(wire)
        first.send(#"{"n":1}"#)
        try await events.waitFor(count: 1)
        #expect(await rig.liveTasks > 1)
        first.end()
        try await rig.clock.waitForSleeper(until: .seconds(2))  // the reconnect delay
        await rig.connection.disconnect()
        #expect(await rig.liveTasks == 0)

        await rig.connection.start()
        let second = try await rig.acceptSession()
        try await rig.waitForState(.connected)
        second.send(#"{"n":2}"#)
        try await events.waitFor(count: 2)
        await rig.connection.disconnect()
        #expect(await rig.liveTasks == 0)
    }

    /// A subscription whose stream ends while no root runs (before `start()`, after `disconnect()`)
    /// is not told through a task of its own: its status reads `nil` at once, and the driver applies
    /// the end when it next acts, so the next session does not carry the channel.
    @Test(arguments: Wire.allCases)
    func aStreamEndedWhileStoppedIsNotCarriedByTheNextSession(_ wire: Wire) async throws {
        let rig = Rig(wire)
        let gone = try await rig.connection.subscribe(ChannelRequest(channel: "app/user/u1/gone"))
        let events = Collector(try await rig.connection.subscribe(ChannelRequest(channel: Self.channel)).events)
        let reader = Task { for await _ in gone.events {} }
        reader.cancel()
        await reader.value
        #expect(await rig.connection.status(ofSubscription: gone.id) == nil)
        #expect(await rig.liveTasks == 0)
        await rig.connection.start()
        let session = try await rig.acceptSession()  // the one channel, alone
        try await rig.waitForState(.connected)
        session.send(#"{"n":1}"#)
        try await events.waitFor(count: 1)
        #expect(await rig.connection.acknowledgedChannels == [Self.channel])
        await rig.connection.disconnect()
        #expect(await rig.liveTasks == 0)
    }

    /// Two `disconnect()`s, the second while the first waits for a child that ends slowly on
    /// cancel (an open stuck in the system): the second found no root to take and returned at
    /// once, while the first's root still ran. It now waits for that root too.
    @Test func aSecondDisconnectReturnsOnlyOnceTheFirstOnesRootEnded() async throws {
        let transport = HeldConnectTransport()
        let connection = AppSyncConnection(
            configuration: AppSyncConfiguration(endpoint: Self.endpoint, authorization: .apiKey("da2-test")),
            transport: transport, clock: ManualClock(), logger: Logger(label: "test"))
        let driver = try #require(connection.lifecycle as? ConnectionDriver)
        await connection.start()
        try await transport.started.wait("the open", until: { $0 == 1 })
        let first = Task { await connection.disconnect() }
        try await transport.cancelled.wait("the first disconnect ending the root", until: { $0 == 1 })
        let secondSaw = Watched<Int?>(nil)  // the tasks alive when the second disconnect returned
        let second = Task {
            await connection.disconnect()
            let live = await driver.liveTasks
            secondSaw.update { $0 = live }
        }
        try await eventually("the second disconnect waiting, or returned") {
            await driver.disconnectsWaiting == 2 || secondSaw.value != nil
        }
        #expect(secondSaw.value == nil, "the second disconnect returned with \(secondSaw.value ?? 0) tasks of the connection alive")
        transport.release()
        await first.value
        await second.value
        #expect(secondSaw.value == 0)
        #expect(await driver.liveTasks == 0)
    }
}

/// A WebSocket transport whose every connect waits for `release()`, whatever cancellation says:
/// a child that ends slowly on cancel. It then fails the open, as a cancelled one does.
private final class HeldConnectTransport: WebSocketTransport {
    let started = Watched(0)
    let cancelled = Watched(0)
    /// Connects waiting; nil once released.
    private let held = LockedValue<[CheckedContinuation<Void, Never>]?>([])

    func connect(to url: URL, subprotocols: [String], tasks: TransportTasks) async throws -> any WebSocketSession {
        started.update { $0 += 1 }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let waits = held.withLock { held -> Bool in
                    guard held != nil else { return false }
                    held?.append(continuation)
                    return true
                }
                if !waits { continuation.resume() }
            }
        } onCancel: {
            cancelled.update { $0 += 1 }
        }
        throw CancellationError()
    }

    func release() {
        let waiting = held.withLock { held -> [CheckedContinuation<Void, Never>] in
            defer { held = nil }
            return held ?? []
        }
        for continuation in waiting { continuation.resume() }
    }
}
