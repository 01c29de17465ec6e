import AppSyncRuntime
@_spi(Generated) import ChannelRuntime
import ChannelRuntimeTesting
import Foundation
import Testing

/// A network path change (issue 45): a connected session is probed and replaced at once when it
/// does not answer; a healthy one is kept; without a path nothing is attempted. The machine,
/// synchronously.
@Suite("Network path: the machine")
struct NetworkPathMachineTests {
    typealias Machine = ConnectionStateMachine
    static func session(_ value: Int) -> Machine.SessionID { ConnectionStateMachineTests.session(value) }

    @Test func aPathChangeProbesAConnectedSessionAndAnAnswerKeepsIt() {
        var machine = ConnectionStateMachineTests.connected()
        #expect(machine.networkPathChanged(available: true) == [.sendProbe(Self.session(1)), .startTimer(.probe, .seconds(2))])
        #expect(machine.networkPathChanged(available: true) == [])  // one probe at a time
        #expect(machine.probeAnswered(Self.session(1)) == [.cancelTimer(.probe)])
        #expect(machine.state == .connected)
        #expect(machine.timerFired(.probe) == [])
    }

    /// Foreground without a suspend: the socket kept is probed like after a path change.
    @Test func resumingAConnectedSessionProbesIt() {
        var machine = ConnectionStateMachineTests.connected()
        #expect(machine.resume() == [.sendProbe(Self.session(1)), .startTimer(.probe, .seconds(2))])
        #expect(machine.timerFired(.probe).contains(.openTransport(Self.session(2))))
    }

    @Test func anUnansweredProbeReplacesTheSessionAtOnce() {
        var machine = ConnectionStateMachineTests.connected(subscriptions: ["a": "app/a"])
        _ = machine.subscribeSucceeded(Self.session(1), id: "a")
        _ = machine.networkPathChanged(available: true)
        let actions = machine.timerFired(.probe)
        #expect(actions.contains(.abortTransport(Self.session(1))))
        #expect(!actions.contains(.closeTransport(Self.session(1))))  // nothing would answer a close
        #expect(actions.contains(.publishSubscriptionStatus(id: "a", .subscribing)))
        #expect(actions.suffix(3) == [.publishState(.connecting), .openTransport(Self.session(2)), .startTimer(.connect, .seconds(15))])
        #expect(!actions.contains { if case .startTimer(.reconnect, _) = $0 { true } else { false } })
    }

    @Test func aSessionThatCannotBeProbedIsReplacedAtOnce() {
        var machine = ConnectionStateMachineTests.connected()
        _ = machine.networkPathChanged(available: true)
        #expect(machine.probeFailed(Self.session(1)).contains(.openTransport(Self.session(2))))
    }

    @Test func noPathMeansNoAttemptsUntilOneComesBack() {
        var machine = ConnectionStateMachineTests.connected()
        #expect(machine.networkPathChanged(available: false) == [])  // the session may still work
        let dropped = machine.transportClosed(Self.session(1), .dropped)
        #expect(dropped.last == .publishState(.waitingForNetwork))
        #expect(!dropped.contains { if case .startTimer(.reconnect, _) = $0 { true } else { false } })
        #expect(machine.timerFired(.reconnect) == [])
        #expect(machine.networkPathChanged(available: true) == [
            .cancelTimer(.reconnect), .publishState(.connecting), .openTransport(Self.session(2)), .startTimer(.connect, .seconds(15)),
        ])
    }

    @Test func losingThePathDuringAReconnectDelayCancelsIt() {
        var machine = ConnectionStateMachineTests.connected()
        _ = machine.transportClosed(Self.session(1), .dropped)
        #expect(machine.networkPathChanged(available: false) == [.cancelTimer(.reconnect), .publishState(.waitingForNetwork)])
    }

    @Test func startingWithoutAPathWaitsForOne() {
        var machine = Machine(settings: ConnectionStateMachineTests.settings)
        _ = machine.networkPathChanged(available: false)
        #expect(machine.start() == [.publishState(.waitingForNetwork)])
        #expect(machine.networkPathChanged(available: true).contains(.openTransport(Self.session(1))))
    }

    @Test func aNewPathCutsAReconnectDelayAndAConnectOnTheOldOneShort() {
        var waiting = ConnectionStateMachineTests.connected()
        _ = waiting.transportClosed(Self.session(1), .dropped)
        #expect(waiting.networkPathChanged(available: true).contains(.openTransport(Self.session(2))))

        var opening = Machine(settings: ConnectionStateMachineTests.settings)
        _ = opening.start()
        let actions = opening.networkPathChanged(available: true)
        #expect(actions.contains(.abortTransport(Self.session(1))))
        #expect(actions.contains(.openTransport(Self.session(2))))
    }
}

/// The same over a connection, the in-memory transport and the manual clock.
@Suite("Network path: the connection")
struct NetworkPathConnectionTests {
    @Test func aFrozenSessionIsReplacedTwoSecondsAfterThePathChangeAndStreamsResume() async throws {
        let harness = Harness()
        let hub = ChannelEventHub(connection: harness.connection, parameters: ["userId": try ChannelSegment("u1")], clock: harness.clock)
        let updates = LockedBox<[ChannelUpdate<Ping>]>([])
        let stream = await hub.updates(PingSubscription.self)
        let reader = Task { for await update in stream { updates.mutate { $0.append(update) } } }
        let server = try await harness.connect()
        _ = try await server.acceptSubscribes(1)
        try await eventually("active") { await hub.status(of: PingSubscription.self) == .active }

        await harness.connection.networkPathChanged()
        try await eventually("a ping") { server.pingCount == 1 }
        try await harness.clock.waitForSleeper(until: .seconds(2))
        harness.clock.advance(by: .seconds(2))  // no pong: the path is dead
        let second = try await harness.transport.nextConnection()  // at once, not after the 10 s delay
        #expect(server.isClosedByClient)
        try await second.acceptConnection()
        let id = try #require(try await second.acceptSubscribes(1)["app/user/u1/ping"])
        // Down from the replacement to the resubscription, no time on the manual clock.
        try await eventually("resumed") { updates.value.contains(.resumed(after: .zero)) }
        second.push(["type": "data", "id": id, "event": #"{"eventType":"ping","n":1}"#])
        try await eventually("the event on the new connection") { updates.value.contains(.event(Ping(eventType: "ping", n: 1))) }
        reader.cancel()
        await harness.connection.disconnect()
    }

    @Test func aHealthySessionIsKept() async throws {
        let harness = Harness()
        let server = try await harness.connect()
        await harness.connection.networkPathChanged()
        try await eventually("a ping") { server.pingCount == 1 }
        server.answerPings()
        await harness.settle()
        harness.clock.advance(by: .seconds(60))
        await harness.settle()
        #expect(harness.transport.connectCount == 1)
        #expect(!server.isClosedByClient)
        #expect(await harness.connection.state == .connected)
        await harness.connection.disconnect()
    }

    @Test func withoutAPathNothingIsAttempted() async throws {
        let harness = Harness()
        let server = try await harness.connect()
        await harness.connection.networkPathChanged(available: false)
        server.drop()
        try await harness.waitForState(.waitingForNetwork)
        harness.clock.advance(by: .seconds(3600))
        await harness.settle()
        #expect(harness.transport.connectCount == 1)
        await harness.connection.networkPathChanged(available: true)
        let second = try await harness.transport.nextConnection()
        try await second.acceptConnection()
        try await harness.waitForState(.connected)
        await harness.connection.disconnect()
    }
}
