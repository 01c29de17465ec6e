import ChannelRuntime
import Testing

/// A dead session found with no network path signal (a NAT mapping or a middlebox gone, a captive
/// portal): two missed keep-alives end it long before the announced timeout, and while connected
/// a ping after silence finds it within the ping's interval plus its timeout. The machine,
/// synchronously; `LivenessEndToEndTests` runs the same over sockets on a manual clock.
@Suite("Liveness: the machine")
struct LivenessMachineTests {
    typealias Machine = ConnectionStateMachine
    static func session(_ value: Int) -> Machine.SessionID { ConnectionStateMachineTests.session(value) }

    /// AppSync's shape: a `ka` about every 60 s, 300 s announced, a ping after 30 s of silence.
    static var settings: Machine.Settings {
        var settings = ConnectionStateMachineTests.settings
        settings.keepAliveInterval = .seconds(60)
        settings.idlePingInterval = .seconds(30)
        settings.idlePingTimeout = .seconds(15)
        return settings
    }

    static func isTimer(_ timer: Machine.Timer) -> (Machine.Action) -> Bool {
        { if case .startTimer(timer, _) = $0 { true } else { false } }
    }

    @Test(arguments: [
        (Duration?.some(.seconds(60)), Duration?.some(.seconds(300)), Duration.seconds(120)),  // two missed, not 300 s
        (.seconds(60), .seconds(90), .seconds(90)),  // the announced timeout stays the outer bound
        (.seconds(60), nil, .seconds(120)),  // none announced: the default (300 s), bounded the same
        (nil, .seconds(300), .seconds(300)),  // no interval known: the announced timeout alone
    ])
    func theSilenceBoundIsTwoKeepAliveIntervalsWithinTheAnnouncedTimeout(interval: Duration?, announced: Duration?, bound: Duration) {
        var settings = ConnectionStateMachineTests.settings
        settings.keepAliveInterval = interval
        var machine = Machine(settings: settings)
        _ = machine.start()
        _ = machine.transportOpened(Self.session(1))
        #expect(machine.sessionAccepted(Self.session(1), keepAliveTimeout: announced).contains(.startTimer(.keepAlive, bound)))
        #expect(machine.timerFired(.keepAlive, silence: bound - .seconds(1)) == [.startTimer(.keepAlive, .seconds(1))])
        let silent = machine.timerFired(.keepAlive, silence: bound)
        #expect(silent.first == .count(.keepAliveTimeout))
        #expect(silent.contains(.closeTransport(Self.session(1))))
    }

    @Test func aSilentSessionIsPingedAndReplacedAtOnceWhenNoPongComes() {
        var machine = Machine(settings: Self.settings)
        _ = machine.subscribe(id: "a", channel: "app/a")
        _ = machine.start()
        _ = machine.transportOpened(Self.session(1))
        #expect(machine.sessionAccepted(Self.session(1), keepAliveTimeout: .seconds(300)).contains(.startTimer(.idlePing, .seconds(30))))
        _ = machine.subscribeSucceeded(Self.session(1), id: "a")
        // Traffic 20 s ago: the ping waits for 30 s of silence.
        #expect(machine.timerFired(.idlePing, silence: .seconds(10)) == [.startTimer(.idlePing, .seconds(20))])
        #expect(machine.timerFired(.idlePing, silence: .seconds(30)) == [.sendProbe(Self.session(1)), .startTimer(.probe, .seconds(15))])
        #expect(machine.isProbing && !machine.isProbingAfterPathChange)
        let dead = machine.timerFired(.probe)
        #expect(dead.first == .count(.keepAliveTimeout))
        #expect(dead.contains(.abortTransport(Self.session(1))))
        #expect(!dead.contains(.closeTransport(Self.session(1))))  // nothing would answer a close
        #expect(dead.contains(.publishSubscriptionStatus(id: "a", .subscribing)))
        // At once: 30 s of silence plus 15 s without a pong is 45 s, not 300.
        #expect(dead.suffix(3) == [.publishState(.connecting), .openTransport(Self.session(2)), .startTimer(.connect, .seconds(15))])
        #expect(!dead.contains(where: Self.isTimer(.reconnect)))
    }

    @Test func aPongKeepsTheSessionAndTheNextPingWaitsAWholeInterval() {
        var machine = ConnectionStateMachineTests.connected(settings: Self.settings)
        _ = machine.timerFired(.idlePing, silence: .seconds(30))
        #expect(machine.probeAnswered(Self.session(1)) == [.cancelTimer(.probe), .startTimer(.idlePing, .seconds(30))])
        #expect(machine.state == .connected)
        #expect(machine.timerFired(.probe) == [])
        // Still silent after a whole interval (a pong is not a frame): one more ping, at most two a minute.
        #expect(machine.timerFired(.idlePing, silence: .seconds(60)) == [.sendProbe(Self.session(1)), .startTimer(.probe, .seconds(15))])
    }

    /// A path change needs its answer within `probeTimeout`, not the idle ping's 15 s; an idle ping
    /// does not stretch a path change's probe.
    @Test func aPathChangeWhileAnIdlePingIsOutAsksAgainWithItsShorterBound() {
        var machine = ConnectionStateMachineTests.connected(settings: Self.settings)
        _ = machine.timerFired(.idlePing, silence: .seconds(30))
        #expect(machine.networkPathChanged(available: true) == [.sendProbe(Self.session(1)), .startTimer(.probe, .seconds(2))])
        #expect(machine.isProbingAfterPathChange)
        #expect(machine.networkPathChanged(available: true) == [])
        #expect(machine.timerFired(.idlePing, silence: .seconds(100)) == [])
        // A late pong of either ping keeps the session and starts the idle ping again.
        #expect(machine.probeAnswered(Self.session(1)) == [.cancelTimer(.probe), .startTimer(.idlePing, .seconds(30))])
    }

    /// A WebSocket adapter without pings must not have its connection replaced every 45 s: after
    /// silence it is kept and not pinged again, on that session or the next (the adapter is the
    /// connection's for its life; each session asked again logged "cannot be pinged" again); the
    /// keep-alive bound remains. After a path change it cannot prove it is alive and is replaced.
    @Test func aSessionThatCannotBePingedIsKeptAfterSilenceAndNotPingedAgain() {
        var machine = ConnectionStateMachineTests.connected(settings: Self.settings)
        _ = machine.timerFired(.idlePing, silence: .seconds(30))
        #expect(machine.probeCannotTell(Self.session(1)) == [.cancelTimer(.probe)])
        #expect(machine.state == .connected && !machine.isProbing)
        #expect(machine.timerFired(.idlePing, silence: .seconds(100)) == [])
        #expect(machine.timerFired(.keepAlive, silence: .seconds(120)).contains(.closeTransport(Self.session(1))))
        // The next session is not pinged after silence either.
        _ = machine.timerFired(.closeGrace)
        _ = machine.timerFired(.reconnect)
        _ = machine.transportOpened(Self.session(2))
        let accepted = machine.sessionAccepted(Self.session(2), keepAliveTimeout: nil)
        #expect(!accepted.contains { if case .startTimer(.idlePing, _) = $0 { true } else { false } }, "\(accepted)")
        #expect(machine.timerFired(.idlePing, silence: .seconds(30)) == [])
        // After a path change it is replaced at once.
        _ = machine.networkPathChanged(available: true)
        #expect(machine.probeCannotTell(Self.session(2)).contains(.openTransport(Self.session(3))))
    }

    @Test func aPingThatCannotBeSentReplacesTheSession() {
        var machine = ConnectionStateMachineTests.connected(settings: Self.settings)
        _ = machine.timerFired(.idlePing, silence: .seconds(30))
        #expect(machine.probeFailed(Self.session(1)).contains(.openTransport(Self.session(2))))
    }

    /// Suspended, there is no session: nothing is sent and no timer can send anything.
    @Test func aSuspendedConnectionPingsNothingAndKeepsNoSessionTimer() {
        var machine = ConnectionStateMachineTests.connected(settings: Self.settings)
        let suspending = machine.suspend()
        #expect(suspending.contains(.cancelTimer(.idlePing)))
        #expect(suspending.contains(.cancelTimer(.keepAlive)))
        _ = machine.transportClosed(Self.session(1), .closed(code: 1000, reason: ""))
        #expect(machine.state == .suspended)
        for timer: Machine.Timer in [.idlePing, .keepAlive, .probe, .plannedReconnect, .reconnect] {
            #expect(machine.timerFired(timer, silence: .seconds(3600)) == [], "\(timer)")
        }
    }

    /// Without an idle ping interval (Server-Sent Events, or an app that turned pings off) no
    /// idle-ping timer runs at all.
    @Test func noIntervalNoIdlePing() {
        var machine = ConnectionStateMachineTests.connected()
        #expect(machine.timerFired(.idlePing, silence: .seconds(3600)) == [])
        _ = machine.timerFired(.keepAlive, silence: .seconds(300))
        _ = machine.timerFired(.closeGrace)
        _ = machine.timerFired(.reconnect)
        _ = machine.transportOpened(Self.session(2))
        #expect(!machine.sessionAccepted(Self.session(2), keepAliveTimeout: nil).contains(where: Self.isTimer(.idlePing)))
    }
}
