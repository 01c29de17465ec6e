import AppSyncRuntime
import ChannelRuntime
import ChannelRuntimeTesting
import Testing

/// The server's close code decides what follows (issue 45, seed 000: "only reconnect on non-normal
/// close"), and the state says why a connection ended. The machine, synchronously.
@Suite("Close codes: the machine")
struct CloseCodeMachineTests {
    typealias Machine = ConnectionStateMachine

    @Test func aNormalCloseEndsTheConnectionUntilTheAppStartsIt() {
        var machine = ConnectionStateMachineTests.connected(subscriptions: ["a": "app/a"])
        let end = ConnectionEnd.closed(code: 1000, reason: "maintenance")
        let actions = machine.transportClosed(ConnectionStateMachineTests.session(1), end)
        #expect(actions.contains(.publishState(.closed(end))))
        // Its subscriptions say so too (they no longer wait, `.subscribing`, for a session that never comes).
        #expect(actions.last == .publishSubscriptionStatus(id: "a", .failed(end.finalCloseErrors)))
        #expect(!actions.contains { if case .startTimer(.reconnect, _) = $0 { true } else { false } })
        #expect(machine.state == .closed(end))
        #expect(machine.start().contains(.openTransport(ConnectionStateMachineTests.session(2))))
    }

    @Test(arguments: [1001, 1006, 1011, 4000, 4999])
    func otherCloseCodesReconnectAndSayWhy(code: Int) {
        var machine = ConnectionStateMachineTests.connected()
        let end = ConnectionEnd.closed(code: code, reason: "r")
        let actions = machine.transportClosed(ConnectionStateMachineTests.session(1), end)
        #expect(actions.suffix(3) == [.publishState(.reconnecting(after: .seconds(1), because: end)), .count(.reconnect), .startTimer(.reconnect, .seconds(1))])
    }

    @Test func theAppChoosesWhichCodesAreFinal() {
        var settings = ConnectionStateMachineTests.settings
        settings.finalCloseCodes = [4001]
        var always = ConnectionStateMachineTests.connected(settings: settings)
        #expect(always.transportClosed(ConnectionStateMachineTests.session(1), .closed(code: 1000, reason: "")).last == .startTimer(.reconnect, .seconds(1)))
        var final = ConnectionStateMachineTests.connected(settings: settings)
        #expect(final.transportClosed(ConnectionStateMachineTests.session(1), .closed(code: 4001, reason: "banned")).last
            == .publishState(.closed(.closed(code: 4001, reason: "banned"))))
    }

    /// A close the client started for a reason of its own keeps that reason, whatever the server
    /// answers (its echo of a close is 1000).
    @Test func aCloseTheClientStartedKeepsItsReason() {
        var machine = ConnectionStateMachineTests.connected()
        _ = machine.timerFired(.keepAlive, silence: .seconds(300))
        let actions = machine.transportClosed(ConnectionStateMachineTests.session(1), .closed(code: 1000, reason: ""))
        #expect(actions.contains(.publishState(.reconnecting(after: .seconds(1), because: .keepAliveTimeout))))
    }

    @Test func aNormalCloseDuringTheHandshakeIsFinalToo() {
        var machine = Machine(settings: ConnectionStateMachineTests.settings)
        _ = machine.start()
        _ = machine.transportOpened(ConnectionStateMachineTests.session(1))
        let end = ConnectionEnd.closed(code: 1000, reason: "")
        #expect(machine.transportClosed(ConnectionStateMachineTests.session(1), end).last == .publishState(.closed(end)))
    }
}

/// The same over a connection and the in-memory transport, on the manual clock.
@Suite("Close codes: the connection")
struct CloseCodeConnectionTests {
    @Test func aNormalCloseIsFinalAndCarriesItsCodeAndReason() async throws {
        let harness = Harness()
        let server = try await harness.connect()
        server.close(code: 1000, reason: "maintenance")
        try await harness.waitForState(.closed(.closed(code: 1000, reason: "maintenance")))
        harness.clock.advance(by: .seconds(3600))
        await harness.settle()
        #expect(harness.transport.connectCount == 1)  // nothing reconnected
        await harness.connection.start()
        let second = try await harness.transport.nextConnection()
        try await second.acceptConnection()
        try await harness.waitForState(.connected)
        await harness.connection.disconnect()
    }

    @Test func goingAwayAndADropReconnectSayingWhy() async throws {
        let harness = Harness()
        let server = try await harness.connect()
        server.close(code: 1001, reason: "going away")
        try await harness.waitForState(.reconnecting(after: .seconds(10), because: .closed(code: 1001, reason: "going away")))
        try await harness.clock.waitForSleeper(until: .seconds(10))
        harness.clock.advance(by: .seconds(10))
        let second = try await harness.transport.nextConnection()
        try await second.acceptConnection()
        try await harness.waitForState(.connected)
        second.drop()
        try await harness.waitForState(.reconnecting(after: .seconds(10), because: .dropped))
        await harness.connection.disconnect()
    }
}
