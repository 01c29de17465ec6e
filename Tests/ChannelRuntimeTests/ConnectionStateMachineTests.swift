import ChannelRuntime
import Testing

/// One test per transition of `ConnectionStateMachine`: events in, actions out, synchronously.
/// No clock, no tasks, no waiting: timers are events the test fires.
@Suite("Connection state machine")
struct ConnectionStateMachineTests {
    typealias Machine = ConnectionStateMachine
    typealias Action = ConnectionStateMachine.Action

    static let settings = Machine.Settings(
        reconnectPolicy: .exponential(initial: .seconds(1), maximum: .seconds(8)),
        subscribeRetryPolicy: ReconnectPolicy.fixed(.seconds(3)).limited(to: 2),
        connectTimeout: .seconds(15),
        operationTimeout: .seconds(5),
        defaultKeepAliveTimeout: .seconds(300),
        keepAliveRange: .seconds(1) ... .seconds(3600),
        plannedReconnectInterval: .seconds(86_000),
        closeGracePeriod: .seconds(2)
    )

    static let refusal = [ServiceError(errorType: "UnauthorizedException", message: "no", code: "401")]

    /// A machine with an accepted session 1 (and the actions that got it there, discarded).
    static func connected(subscriptions: [String: String] = [:], settings: Machine.Settings = settings) -> Machine {
        var machine = Machine(settings: settings)
        for (id, channel) in subscriptions.sorted(by: { $0.key < $1.key }) { _ = machine.subscribe(id: id, channel: channel) }
        _ = machine.start()
        _ = machine.transportOpened(session(1))
        _ = machine.sessionAccepted(session(1), keepAliveTimeout: .seconds(300))
        return machine
    }

    static func session(_ value: Int) -> Machine.SessionID { Machine.SessionID(value: value) }

    // MARK: Opening

    @Test func startOpensATransportWithAConnectTimer() {
        var machine = Machine(settings: Self.settings)
        #expect(machine.start() == [.publishState(.connecting), .openTransport(Self.session(1)), .startTimer(.connect, .seconds(15))])
        #expect(machine.start() == [])  // already on its way
    }

    @Test func anOpenedTransportSendsTheHandshake() {
        var machine = Machine(settings: Self.settings)
        _ = machine.start()
        #expect(machine.transportOpened(Self.session(1)) == [.sendHandshake(Self.session(1))])
        #expect(machine.currentSession == Self.session(1))
        #expect(!machine.isConnected)
    }

    @Test func acceptanceConnectsStartsTimersAndSubscribesEverythingInIdOrder() {
        var machine = Machine(settings: Self.settings)
        _ = machine.subscribe(id: "b", channel: "app/b")
        _ = machine.subscribe(id: "a", channel: "app/a")
        _ = machine.start()
        _ = machine.transportOpened(Self.session(1))
        #expect(machine.sessionAccepted(Self.session(1), keepAliveTimeout: .seconds(60)) == [
            .cancelTimer(.connect), .count(.connectSucceeded), .publishState(.connected),
            .startTimer(.keepAlive, .seconds(60)), .startTimer(.plannedReconnect, .seconds(86_000)), .startTimer(.settled, .seconds(30)),
            .cancelTimer(.resubscribe("a")), .sendSubscribe(id: "a", channel: "app/a"), .startTimer(.subscribe("a"), .seconds(5)),
            .publishSubscriptionStatus(id: "a", .subscribing),
            .cancelTimer(.resubscribe("b")), .sendSubscribe(id: "b", channel: "app/b"), .startTimer(.subscribe("b"), .seconds(5)),
            .publishSubscriptionStatus(id: "b", .subscribing),
        ])
        #expect(machine.isConnected)
    }

    @Test func announcedKeepAliveTimeoutsAreClampedAndAMissingOneUsesTheDefault() {
        for (announced, used) in [(Duration.seconds(1_000_000_000), Duration.seconds(3600)), (.seconds(-5), .seconds(1)), (nil, .seconds(300))] {
            var machine = Machine(settings: Self.settings)
            _ = machine.start()
            _ = machine.transportOpened(Self.session(1))
            #expect(machine.sessionAccepted(Self.session(1), keepAliveTimeout: announced).contains(.startTimer(.keepAlive, used)))
        }
    }

    @Test func aSecondAcknowledgementIsIgnoredAndCounted() {
        var machine = Self.connected(subscriptions: ["a": "app/a"])
        #expect(machine.sessionAccepted(Self.session(1), keepAliveTimeout: .seconds(10)) == [.count(.duplicateAcknowledgement)])
        #expect(machine.isConnected)
    }

    @Test func noAcknowledgementInTimeClosesAndTheCloseIsBounded() {
        var machine = Machine(settings: Self.settings)
        _ = machine.start()
        _ = machine.transportOpened(Self.session(1))
        let actions = machine.timerFired(.connect)
        #expect(actions.contains(.closeTransport(Self.session(1))))
        #expect(actions.last == .startTimer(.closeGrace, .seconds(2)))
    }

    @Test func aConnectThatDoesNotOpenInTimeIsAbortedAndRetried() {
        var machine = Machine(settings: Self.settings)
        _ = machine.start()
        #expect(machine.timerFired(.connect) == [
            .count(.connectFailed(.timedOut)), .abortTransport(Self.session(1)), .sessionEnded(Self.session(1)),
            .publishState(.reconnecting(after: .seconds(1), because: .timedOut)), .count(.reconnect), .startTimer(.reconnect, .seconds(1)),
        ])
        // The transport still completes later: that socket is closed at once.
        #expect(machine.transportOpened(Self.session(1)) == [.abortTransport(Self.session(1))])
    }

    @Test func failedOpensBackOffByThePolicyUntilASessionIsAccepted() {
        var machine = Machine(settings: Self.settings)
        _ = machine.start()
        var delays: [Duration] = []
        for attempt in 1...5 {
            let actions = machine.transportFailed(Self.session(attempt), "refused")
            for case .startTimer(.reconnect, let delay) in actions { delays.append(delay) }
            #expect(machine.timerFired(.reconnect).contains(.openTransport(Self.session(attempt + 1))))
        }
        #expect(delays == [.seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(8)])
        // After a session that was accepted and lasted `settleTime`, the count starts again.
        _ = machine.transportOpened(Self.session(6))
        _ = machine.sessionAccepted(Self.session(6), keepAliveTimeout: nil)
        _ = machine.timerFired(.settled)
        #expect(machine.transportClosed(Self.session(6), .dropped).contains(.startTimer(.reconnect, .seconds(1))))
    }

    /// Issue 44: a server that accepts every session and drops it at once was reconnected to
    /// after the policy's first delay every time; the backoff now goes on until a session lasts.
    @Test func sessionsThatEndBeforeTheySettleKeepBackingOff() {
        var machine = Machine(settings: Self.settings)
        _ = machine.start()
        var delays: [Duration] = []
        for attempt in 1...5 {
            _ = machine.transportOpened(Self.session(attempt))
            _ = machine.sessionAccepted(Self.session(attempt), keepAliveTimeout: nil)
            for case .startTimer(.reconnect, let delay) in machine.transportClosed(Self.session(attempt), .dropped) { delays.append(delay) }
            _ = machine.timerFired(.reconnect)
        }
        #expect(delays == [.seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(8)])
    }

    @Test func aPolicyThatGivesUpEndsInFailed() {
        var settings = Self.settings
        settings.reconnectPolicy = .never
        var machine = Machine(settings: settings)
        _ = machine.start()
        #expect(machine.transportFailed(Self.session(1), "refused") == [
            .cancelTimer(.connect), .count(.connectFailed(.network)), .sessionEnded(Self.session(1)), .publishState(.failed(.gaveUp)),
        ])
        #expect(machine.state == .failed(.gaveUp))
        #expect(machine.start().contains(.openTransport(Self.session(2))))  // the app may start again
    }

    @Test func signedOutStopsTheConnectionAndEverySubscriptionUntilStart() {
        var machine = Machine(settings: Self.settings)
        _ = machine.subscribe(id: "a", channel: "/default/a")
        _ = machine.start()
        let signedOut = [ServiceError(errorType: "SignedOut", message: "signed out; start() after sign-in connects again")]
        #expect(machine.signedOut(Self.session(1)) == [
            .cancelTimer(.connect), .sessionEnded(Self.session(1)),
            .publishState(.closed(.signedOut)), .publishSubscriptionStatus(id: "a", .failed(signedOut)),
        ])
        #expect(machine.state == .closed(.signedOut))
        // Nothing asks again: no timer was started, and a stray one does nothing.
        #expect(machine.timerFired(.reconnect) == [])
        #expect(machine.networkPathChanged(available: true).isEmpty)
        // A subscription made meanwhile says why it waits.
        #expect(machine.subscribe(id: "b", channel: "/default/b") == [.publishSubscriptionStatus(id: "b", .failed(signedOut))])
        // Signed in again, the app starts it: a new session opens.
        #expect(machine.start().contains(.openTransport(Self.session(2))))
    }

    // MARK: Connected

    @Test func aDropReconnectsAfterThePolicyDelayAndSubscriptionsWaitAgain() {
        var machine = Self.connected(subscriptions: ["a": "app/a"])
        _ = machine.subscribeSucceeded(Self.session(1), id: "a")
        let actions = machine.transportClosed(Self.session(1), .dropped)
        #expect(actions.contains(.sessionEnded(Self.session(1))))
        #expect(actions.contains(.publishSubscriptionStatus(id: "a", .subscribing)))
        #expect(actions.suffix(3) == [.publishState(.reconnecting(after: .seconds(1), because: .dropped)), .count(.reconnect), .startTimer(.reconnect, .seconds(1))])
        #expect(!machine.isActive("a"))
    }

    @Test func keepAliveWatchdogRearmsForTheRestThenClosesWhenSilent() {
        var machine = Self.connected()
        #expect(machine.timerFired(.keepAlive, silence: .seconds(100)) == [.startTimer(.keepAlive, .seconds(200))])
        let actions = machine.timerFired(.keepAlive, silence: .seconds(300))
        #expect(actions.first == .count(.keepAliveTimeout))
        #expect(actions.contains(.closeTransport(Self.session(1))))
        #expect(actions.last == .startTimer(.closeGrace, .seconds(2)))
    }

    @Test func aPeerThatNeverFinishesTheCloseIsCutOffAfterTheGracePeriod() {
        var machine = Self.connected()
        _ = machine.timerFired(.keepAlive, silence: .seconds(301))
        let actions = machine.timerFired(.closeGrace)
        #expect(actions.first == .abortTransport(Self.session(1)))
        #expect(actions.contains(.startTimer(.reconnect, .seconds(1))))
        // Frames or an end from the abandoned socket change nothing.
        #expect(machine.transportClosed(Self.session(1), .dropped) == [])
        #expect(machine.sessionAccepted(Self.session(1), keepAliveTimeout: nil) == [])
    }

    @Test func aCloseThePeerFinishesProceedsWithoutAbort() {
        var machine = Self.connected()
        _ = machine.timerFired(.keepAlive, silence: .seconds(301))
        let actions = machine.transportClosed(Self.session(1), .dropped)
        #expect(actions.first == .cancelTimer(.closeGrace))
        #expect(!actions.contains(.abortTransport(Self.session(1))))
        #expect(actions.contains(.startTimer(.reconnect, .seconds(1))))
    }

    /// A cancelled `run()`: the session is cut off (no close frame, no grace period to wait out) and
    /// the connection rests at once; nothing it sends afterwards counts.
    @Test func anAbortCutsTheSessionOffAndRestsAtOnce() {
        var machine = Self.connected(subscriptions: ["a": "app/a"])
        _ = machine.subscribeSucceeded(Self.session(1), id: "a")
        let actions = machine.abort()
        #expect(actions.contains(.abortTransport(Self.session(1))))
        #expect(!actions.contains(.closeTransport(Self.session(1))))
        #expect(!actions.contains { if case .startTimer = $0 { true } else { false } })
        #expect(actions.contains(.publishSubscriptionStatus(id: "a", .subscribing)))
        #expect(actions.last == .publishState(.disconnected))
        #expect(machine.state == .disconnected)
        #expect(machine.transportClosed(Self.session(1), .dropped) == [])

        // Also while a close is under way: the grace period is not waited out.
        var closing = Self.connected()
        _ = closing.stop()
        let cut = closing.abort()
        #expect(!cut.contains(.closeTransport(Self.session(1))))
        #expect(cut.contains(.cancelTimer(.closeGrace)))
        #expect(cut.contains(.abortTransport(Self.session(1))))
        #expect(cut.last == .publishState(.disconnected))

        // And with no session: a reconnect delay is cut short.
        var waiting = Self.connected()
        _ = waiting.transportClosed(Self.session(1), .dropped)
        #expect(waiting.abort() == [.cancelTimer(.reconnect), .publishState(.disconnected)])
    }

    @Test func plannedReconnectOpensAgainAtOnce() {
        var machine = Self.connected()
        #expect(machine.timerFired(.plannedReconnect).contains(.closeTransport(Self.session(1))))
        let actions = machine.transportClosed(Self.session(1), .dropped)
        #expect(actions.contains(.count(.reconnect)))
        #expect(actions.contains(.openTransport(Self.session(2))))
        #expect(!actions.contains { if case .startTimer(.reconnect, _) = $0 { true } else { false } })
    }

    // MARK: Refusals

    @Test func anAuthorizationFailureIsRetriedOnceAtOnceThenFails() {
        var machine = Machine(settings: Self.settings)
        _ = machine.start()
        _ = machine.transportOpened(Self.session(1))
        #expect(machine.sessionRefused(Self.session(1), .unauthorized(Self.refusal)).contains(.closeTransport(Self.session(1))))
        #expect(machine.transportClosed(Self.session(1), .dropped).contains(.openTransport(Self.session(2))))
        _ = machine.transportOpened(Self.session(2))
        _ = machine.sessionRefused(Self.session(2), .unauthorized(Self.refusal))
        let actions = machine.transportClosed(Self.session(2), .dropped)
        #expect(actions.last == .publishState(.failed(.unauthorized(Self.refusal))))
        #expect(machine.state == .failed(.unauthorized(Self.refusal)))
    }

    /// Issue 62: with a wrong API key the connection failed, but every subscription stayed
    /// `.subscribing` for ever. Each now fails with the connection's reason, one added later too,
    /// until `start()` tries again.
    @Test func whenTheConnectionFailsForGoodEverySubscriptionFailsWithItsReason() {
        var machine = Machine(settings: Self.settings)
        _ = machine.subscribe(id: "a", channel: "/default/a")
        _ = machine.subscribe(id: "b", channel: "/default/b")
        _ = machine.start()
        _ = machine.transportOpened(Self.session(1))
        _ = machine.sessionRefused(Self.session(1), .unauthorized(Self.refusal))
        _ = machine.transportClosed(Self.session(1), .dropped)
        _ = machine.transportOpened(Self.session(2))
        _ = machine.sessionRefused(Self.session(2), .unauthorized(Self.refusal))
        let failed = machine.transportClosed(Self.session(2), .dropped)
        #expect(failed.contains(.publishState(.failed(.unauthorized(Self.refusal)))))
        #expect(failed.contains(.publishSubscriptionStatus(id: "a", .failed(Self.refusal))))
        #expect(failed.contains(.publishSubscriptionStatus(id: "b", .failed(Self.refusal))))
        #expect(machine.subscribe(id: "c", channel: "/default/c") == [.publishSubscriptionStatus(id: "c", .failed(Self.refusal))])
        // `start()` tries again: each is sent, and says so, once a session is accepted.
        _ = machine.start()
        _ = machine.transportOpened(Self.session(3))
        let accepted = machine.sessionAccepted(Self.session(3), keepAliveTimeout: nil)
        for id in ["a", "b", "c"] { #expect(accepted.contains(.publishSubscriptionStatus(id: id, .subscribing)), "\(id)") }
    }

    /// A close the settings treat as final (1000 by default) ended the connection until `start()`,
    /// but every subscription still said `.subscribing`, for a session that never came. Each now
    /// fails with the close, one added later too, until `start()`.
    @Test func aFinalCloseFailsEverySubscriptionSayingSoUntilStart() {
        var settings = Self.settings
        settings.finalCloseCodes = [1000]
        var machine = Machine(settings: settings)
        _ = machine.subscribe(id: "a", channel: "/default/a")
        _ = machine.start()
        _ = machine.transportOpened(Self.session(1))
        _ = machine.sessionAccepted(Self.session(1), keepAliveTimeout: nil)
        let end = ConnectionEnd.closed(code: 1000, reason: "bye")
        let closed = machine.transportClosed(Self.session(1), end)
        let errors = [ServiceError(errorType: "ConnectionClosed", message: "closed by the peer (code 1000: bye); start() connects again", code: "1000")]
        #expect(end.finalCloseErrors == errors)
        #expect(closed.contains(.publishState(.closed(end))), "\(closed)")
        #expect(closed.contains(.publishSubscriptionStatus(id: "a", .failed(errors))), "\(closed)")
        #expect(!closed.contains { if case .openTransport = $0 { true } else { false } })
        #expect(machine.subscribe(id: "b", channel: "/default/b") == [.publishSubscriptionStatus(id: "b", .failed(errors))])
        _ = machine.start()
        _ = machine.transportOpened(Self.session(2))
        let accepted = machine.sessionAccepted(Self.session(2), keepAliveTimeout: nil)
        for id in ["a", "b"] { #expect(accepted.contains(.publishSubscriptionStatus(id: id, .subscribing)), "\(id)") }
        // The app's own disconnect is not the service's close: a subscription then waits for `start()`.
        _ = machine.stop()
        _ = machine.transportClosed(Self.session(2), end)
        #expect(machine.state == .disconnected)
        #expect(machine.subscribe(id: "c", channel: "/default/c") == [.publishSubscriptionStatus(id: "c", .subscribing)])
    }

    @Test func aPolicyThatGivesUpFailsEverySubscriptionSayingSo() {
        var settings = Self.settings
        settings.reconnectPolicy = ReconnectPolicy.fixed(.seconds(1)).limited(to: 1)
        var machine = Machine(settings: settings)
        _ = machine.subscribe(id: "a", channel: "/default/a")
        _ = machine.start()
        _ = machine.transportFailed(Self.session(1), "refused")
        _ = machine.timerFired(.reconnect)
        let gaveUp = machine.transportFailed(Self.session(2), "refused")
        #expect(gaveUp.contains(.publishState(.failed(.gaveUp))))
        #expect(gaveUp.contains(.publishSubscriptionStatus(id: "a", .failed(ConnectionFailure.gaveUp.serviceErrors))), "\(gaveUp)")
    }

    @Test func theAuthorizationRetryIsAvailableAgainAfterASessionThatSettled() {
        var machine = Self.connected()
        _ = machine.sessionRefused(Self.session(1), .unauthorized(Self.refusal))
        #expect(machine.transportClosed(Self.session(1), .dropped).contains(.openTransport(Self.session(2))))
        _ = machine.transportOpened(Self.session(2))
        _ = machine.sessionAccepted(Self.session(2), keepAliveTimeout: nil)
        _ = machine.timerFired(.settled)
        _ = machine.sessionRefused(Self.session(2), .unauthorized(Self.refusal))
        #expect(machine.transportClosed(Self.session(2), .dropped).contains(.openTransport(Self.session(3))))
    }

    /// Issue 44: each acceptance reset the one retry, so a server that accepts and then answers
    /// "Unauthorized" was reconnected to at once, every time (4 365 connections in 30 s).
    @Test func acceptedThenUnauthorizedTwiceInARowFails() {
        var machine = Self.connected()
        _ = machine.sessionRefused(Self.session(1), .unauthorized(Self.refusal))
        #expect(machine.transportClosed(Self.session(1), .dropped).contains(.openTransport(Self.session(2))))
        _ = machine.transportOpened(Self.session(2))
        _ = machine.sessionAccepted(Self.session(2), keepAliveTimeout: nil)
        _ = machine.sessionRefused(Self.session(2), .unauthorized(Self.refusal))
        #expect(machine.transportClosed(Self.session(2), .dropped).last == .publishState(.failed(.unauthorized(Self.refusal))))
    }

    /// SSE promises a floor between opens: its retry with fresh credentials waits for it, and an
    /// event (an in-band error proves nothing) does not make a second refusal retry again.
    @Test func anAuthorizationRetryWaitsItsDelayWhenTheTransportAsksForOne() {
        var settings = Self.settings
        settings.unauthorizedRetryDelay = .seconds(3)
        var machine = Self.connected(settings: settings)
        _ = machine.sessionRefused(Self.session(1), .unauthorized(Self.refusal))
        let actions = machine.transportClosed(Self.session(1), .dropped)
        #expect(!actions.contains(.openTransport(Self.session(2))))
        #expect(actions.contains(.startTimer(.reconnect, .seconds(3))))
        #expect(machine.timerFired(.reconnect).contains(.openTransport(Self.session(2))))
        _ = machine.transportOpened(Self.session(2))
        _ = machine.sessionAccepted(Self.session(2), keepAliveTimeout: nil)
        _ = machine.sessionRefused(Self.session(2), .unauthorized(Self.refusal))
        #expect(machine.transportClosed(Self.session(2), .dropped).last == .publishState(.failed(.unauthorized(Self.refusal))))
    }

    /// Issue 59: the three questions the first-event rule merged, asked of time alone. A session
    /// that ends before `settleTime` is one more failed attempt (the backoff moves a step up) and
    /// leaves the authorization retry used; one that lasted it starts both over. The machine takes
    /// no events at all: what a server sends cannot buy a session health.
    @Test func onlyASessionThatLastedTheSettleTimeRestartsTheBackoffAndTheAuthorizationRetry() {
        var machine = Self.connected()
        // Short: the retry is spent and the next failure backs off.
        _ = machine.sessionRefused(Self.session(1), .unauthorized(Self.refusal))
        #expect(machine.transportClosed(Self.session(1), .dropped).contains(.openTransport(Self.session(2))))
        _ = machine.transportOpened(Self.session(2))
        _ = machine.sessionAccepted(Self.session(2), keepAliveTimeout: nil)
        #expect(machine.transportClosed(Self.session(2), .dropped).contains(.startTimer(.reconnect, .seconds(1))))
        _ = machine.timerFired(.reconnect)
        _ = machine.transportOpened(Self.session(3))
        _ = machine.sessionAccepted(Self.session(3), keepAliveTimeout: nil)
        #expect(machine.transportClosed(Self.session(3), .dropped).contains(.startTimer(.reconnect, .seconds(2))))
        _ = machine.timerFired(.reconnect)
        _ = machine.transportOpened(Self.session(4))
        _ = machine.sessionAccepted(Self.session(4), keepAliveTimeout: nil)
        // Settled: a drop waits the first delay again, and a refusal may be retried once more.
        _ = machine.timerFired(.settled)
        #expect(machine.transportClosed(Self.session(4), .dropped).contains(.startTimer(.reconnect, .seconds(1))))
        _ = machine.timerFired(.reconnect)
        _ = machine.transportOpened(Self.session(5))
        _ = machine.sessionAccepted(Self.session(5), keepAliveTimeout: nil)
        _ = machine.timerFired(.settled)
        _ = machine.sessionRefused(Self.session(5), .unauthorized(Self.refusal))
        #expect(machine.transportClosed(Self.session(5), .dropped).contains(.openTransport(Self.session(6))))
        // Short again: a second refusal in a row fails.
        _ = machine.transportOpened(Self.session(6))
        _ = machine.sessionAccepted(Self.session(6), keepAliveTimeout: nil)
        _ = machine.sessionRefused(Self.session(6), .unauthorized(Self.refusal))
        #expect(machine.transportClosed(Self.session(6), .dropped).last == .publishState(.failed(.unauthorized(Self.refusal))))
    }

    @Test func withoutTheRetryAnAuthorizationFailureFailsAtOnce() {
        var settings = Self.settings
        settings.retriesUnauthorizedOnce = false
        var machine = Self.connected(settings: settings)
        _ = machine.sessionRefused(Self.session(1), .unauthorized(Self.refusal))
        #expect(machine.timerFired(.closeGrace).last == .publishState(.failed(.unauthorized(Self.refusal))))
    }

    @Test func aNonRetryableRefusalFailsAndARetryableOneReconnects() {
        var rejected = Self.connected()
        _ = rejected.sessionRefused(Self.session(1), .rejected(Self.refusal))
        #expect(rejected.transportClosed(Self.session(1), .dropped).last == .publishState(.failed(.rejected(Self.refusal))))

        var retryable = Self.connected()
        _ = retryable.sessionRefused(Self.session(1), .retryable(Self.refusal))
        #expect(retryable.transportClosed(Self.session(1), .dropped).last == .startTimer(.reconnect, .seconds(1)))
    }

    // MARK: Subscriptions

    @Test func aSubscriptionWhileConnectedIsSentAtOnceAndBecomesActive() {
        var machine = Self.connected()
        #expect(machine.subscribe(id: "a", channel: "app/a") == [
            .publishSubscriptionStatus(id: "a", .subscribing),
            .sendSubscribe(id: "a", channel: "app/a"), .startTimer(.subscribe("a"), .seconds(5)),
            .publishSubscriptionStatus(id: "a", .subscribing),
        ])
        #expect(machine.subscribeSucceeded(Self.session(1), id: "a") == [.cancelTimer(.subscribe("a")), .publishSubscriptionStatus(id: "a", .active)])
        #expect(machine.isActive("a"))
        #expect(machine.subscribeSucceeded(Self.session(1), id: "a") == [])  // a duplicate success
    }

    @Test func aSubscriptionWhileDisconnectedWaitsForTheSession() {
        var machine = Machine(settings: Self.settings)
        #expect(machine.subscribe(id: "a", channel: "app/a") == [.publishSubscriptionStatus(id: "a", .subscribing)])
    }

    @Test func aRefusedSubscribeIsReportedRetriedAndFinallyFailed() {
        var machine = Self.connected(subscriptions: ["a": "app/a"])
        #expect(machine.subscribeRejected(Self.session(1), id: "a", errors: Self.refusal) == [
            .cancelTimer(.subscribe("a")), .count(.subscribeError),
            .publishSubscriptionStatus(id: "a", .rejected(Self.refusal)), .startTimer(.resubscribe("a"), .seconds(3)),
        ])
        #expect(machine.timerFired(.resubscribe("a")).first == .sendSubscribe(id: "a", channel: "app/a"))
        _ = machine.subscribeRejected(Self.session(1), id: "a", errors: Self.refusal)
        _ = machine.timerFired(.resubscribe("a"))
        #expect(machine.subscribeRejected(Self.session(1), id: "a", errors: Self.refusal) == [
            .cancelTimer(.subscribe("a")), .count(.subscribeError), .publishSubscriptionStatus(id: "a", .failed(Self.refusal)),
        ])
        #expect(machine.timerFired(.resubscribe("a")) == [])
        // A new session tries it again.
        _ = machine.transportClosed(Self.session(1), .dropped)
        _ = machine.timerFired(.reconnect)
        _ = machine.transportOpened(Self.session(2))
        #expect(machine.sessionAccepted(Self.session(2), keepAliveTimeout: nil).contains(.sendSubscribe(id: "a", channel: "app/a")))
    }

    @Test func anUnansweredSubscribeEndsTheSession() {
        var machine = Self.connected(subscriptions: ["a": "app/a"])
        #expect(machine.timerFired(.subscribe("a")).contains(.closeTransport(Self.session(1))))
    }

    @Test func unsubscribingAnActiveSubscriptionSendsUnsubscribe() {
        var machine = Self.connected(subscriptions: ["a": "app/a"])
        _ = machine.subscribeSucceeded(Self.session(1), id: "a")
        #expect(machine.unsubscribe(id: "a") == [.cancelTimer(.subscribe("a")), .cancelTimer(.resubscribe("a")), .sendUnsubscribe(id: "a")])
        #expect(machine.unsubscribe(id: "a") == [])
    }

    @Test func unsubscribingBeforeTheSuccessSendsItWhenTheSuccessArrives() {
        var machine = Self.connected(subscriptions: ["a": "app/a"])
        #expect(machine.unsubscribe(id: "a") == [.cancelTimer(.subscribe("a")), .cancelTimer(.resubscribe("a"))])
        #expect(machine.subscribeSucceeded(Self.session(1), id: "a") == [.cancelTimer(.subscribe("a")), .sendUnsubscribe(id: "a")])
    }

    @Test func eventsOfAnotherSessionChangeNothing() {
        var machine = Self.connected(subscriptions: ["a": "app/a"])
        let stale = Self.session(7)
        #expect(machine.subscribeSucceeded(stale, id: "a") == [])
        #expect(machine.subscribeRejected(stale, id: "a", errors: []) == [])
        #expect(machine.sessionRefused(stale, .rejected([])) == [])
        #expect(machine.transportClosed(stale, .dropped) == [])
        #expect(machine.transportFailed(stale, "refused") == [])
        #expect(machine.signedOut(stale) == [])
        #expect(machine.isConnected)
    }

    // MARK: Stopping

    @Test func stopWhileConnectedClosesAndPublishesDisconnectedOnceClosed() {
        var machine = Self.connected()
        let actions = machine.stop()
        #expect(actions.contains(.closeTransport(Self.session(1))))
        #expect(!actions.contains(.publishState(.disconnected)))
        #expect(machine.transportClosed(Self.session(1), .dropped) == [.cancelTimer(.closeGrace), .sessionEnded(Self.session(1)), .publishState(.disconnected)])
    }

    @Test func stopWhileAPeerIgnoresTheCloseEndsAfterTheGracePeriod() {
        var machine = Self.connected()
        _ = machine.stop()
        #expect(machine.timerFired(.closeGrace) == [.abortTransport(Self.session(1)), .sessionEnded(Self.session(1)), .publishState(.disconnected)])
    }

    @Test func stopWhileOpeningAbortsAndWhileWaitingCancelsTheDelay() {
        var opening = Machine(settings: Self.settings)
        _ = opening.start()
        #expect(opening.stop() == [.cancelTimer(.connect), .abortTransport(Self.session(1)), .sessionEnded(Self.session(1)), .publishState(.disconnected)])

        var waiting = Machine(settings: Self.settings)
        _ = waiting.start()
        _ = waiting.transportFailed(Self.session(1), "refused")
        #expect(waiting.stop() == [.cancelTimer(.reconnect), .publishState(.disconnected)])
        #expect(waiting.timerFired(.reconnect) == [])
    }

    @Test func stopDuringAReconnectingCloseWins() {
        var machine = Self.connected()
        _ = machine.timerFired(.plannedReconnect)
        _ = machine.stop()
        #expect(machine.transportClosed(Self.session(1), .dropped).last == .publishState(.disconnected))
    }

    // MARK: Suspend and resume

    @Test func suspendClosesWithoutReconnectingAndPublishesSuspendedOnceClosed() {
        var machine = Self.connected(subscriptions: ["a": "app/a"])
        let actions = machine.suspend()
        #expect(actions.contains(.closeTransport(Self.session(1))))
        #expect(!actions.contains(.publishState(.suspended)))
        let closed = machine.transportClosed(Self.session(1), .dropped)
        #expect(closed.last == .publishState(.suspended))
        #expect(!closed.contains { if case .startTimer(.reconnect, _) = $0 { true } else { false } })
        #expect(machine.timerFired(.reconnect) == [])
    }

    @Test func resumeConnectsAtOnceAndResubscribes() {
        var machine = Self.connected(subscriptions: ["a": "app/a"])
        _ = machine.suspend()
        _ = machine.timerFired(.closeGrace)
        #expect(machine.resume() == [.publishState(.connecting), .openTransport(Self.session(2)), .startTimer(.connect, .seconds(15))])
        _ = machine.transportOpened(Self.session(2))
        #expect(machine.sessionAccepted(Self.session(2), keepAliveTimeout: nil).contains(.sendSubscribe(id: "a", channel: "app/a")))
    }

    @Test func resumeDuringAReconnectDelaySkipsTheDelay() {
        var machine = Self.connected()
        _ = machine.transportClosed(Self.session(1), .dropped)  // a drop: the policy's delay runs
        #expect(machine.resume() == [.cancelTimer(.reconnect), .publishState(.connecting), .openTransport(Self.session(2)), .startTimer(.connect, .seconds(15))])
    }

    @Test func suspendWhileWaitingOrOpeningNeedsNoClose() {
        var waiting = Self.connected()
        _ = waiting.transportClosed(Self.session(1), .dropped)
        #expect(waiting.suspend() == [.cancelTimer(.reconnect), .publishState(.suspended)])

        var opening = Machine(settings: Self.settings)
        _ = opening.start()
        #expect(opening.suspend() == [.cancelTimer(.connect), .abortTransport(Self.session(1)), .sessionEnded(Self.session(1)), .publishState(.suspended)])
    }

    @Test func resumeWhileTheSuspendingCloseRunsReconnectsWhenItEnds() {
        var machine = Self.connected()
        _ = machine.suspend()
        #expect(machine.resume() == [])
        #expect(machine.transportClosed(Self.session(1), .dropped).contains(.openTransport(Self.session(2))))
    }

    @Test func stopWinsOverSuspendAndASuspendedConnectionStops() {
        var closing = Self.connected()
        _ = closing.stop()
        #expect(closing.suspend() == [])
        #expect(closing.transportClosed(Self.session(1), .dropped).last == .publishState(.disconnected))

        var suspended = Self.connected()
        _ = suspended.suspend()
        _ = suspended.transportClosed(Self.session(1), .dropped)
        #expect(suspended.stop() == [.publishState(.disconnected)])
        #expect(suspended.resume() == [])
    }

    // MARK: Delays the service names, renewing a session (SSE)

    @Test func aRetryAfterIsWaitedWhenLongerThanThePolicyDelay() {
        var longer = Self.connected()
        _ = longer.sessionRefused(Self.session(1), .retryable(Self.refusal, retryAfter: .seconds(120)))
        #expect(longer.transportClosed(Self.session(1), .dropped).suffix(3) == [.publishState(.reconnecting(after: .seconds(120), because: .refused(Self.refusal))), .count(.reconnect), .startTimer(.reconnect, .seconds(120))])

        var shorter = Self.connected()
        _ = shorter.sessionRefused(Self.session(1), .retryable(Self.refusal, retryAfter: .milliseconds(10)))
        #expect(shorter.transportClosed(Self.session(1), .dropped).last == .startTimer(.reconnect, .seconds(1)))
    }

    @Test func theServicesReconnectDelayLengthensThePolicyDelayButNeverShortensIt() {
        var machine = Self.connected()
        machine.serviceAskedForReconnectDelay(.seconds(3))
        #expect(machine.transportClosed(Self.session(1), .dropped).last == .startTimer(.reconnect, .seconds(3)))

        var limited = Self.connected(settings: { var settings = Self.settings; settings.reconnectPolicy = .never; return settings }())
        limited.serviceAskedForReconnectDelay(.milliseconds(250))
        #expect(limited.transportClosed(Self.session(1), .dropped).last == .publishState(.failed(.gaveUp)))

        machine.serviceAskedForReconnectDelay(nil)
        _ = machine.timerFired(.reconnect)
        _ = machine.transportOpened(Self.session(2))
        _ = machine.sessionAccepted(Self.session(2), keepAliveTimeout: nil)
        _ = machine.timerFired(.settled)
        #expect(machine.transportClosed(Self.session(2), .dropped).last == .startTimer(.reconnect, .seconds(1)))
    }

    /// A hostile or careless `retry: 0` used to replace the policy for every later failure: a hub
    /// answering 500 was asked again every 100 ms. The hint is a floor on the policy's delays, so
    /// the backoff after failures is the policy's (1, 2, 4, 8, 8 s here), and a longer hint holds
    /// until the backoff passes it.
    @Test func afterARetryHintFailuresStillBackOffExponentially() {
        func delays(hint: Duration) -> [Duration] {
            var machine = Self.connected()
            machine.serviceAskedForReconnectDelay(hint)
            var delays: [Duration] = []
            var actions = machine.transportClosed(Self.session(1), .dropped)
            for session in 2...6 {
                for case .startTimer(.reconnect, let delay) in actions { delays.append(delay) }
                _ = machine.timerFired(.reconnect)
                actions = machine.transportFailed(Self.session(session), "refused")
            }
            return delays
        }
        #expect(delays(hint: .milliseconds(100)) == [.seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(8)])
        #expect(delays(hint: .seconds(3)) == [.seconds(3), .seconds(3), .seconds(4), .seconds(8), .seconds(8)])
    }

    @Test func renewingASessionClosesItAndOpensANewOneAtOnce() {
        var machine = Self.connected(subscriptions: ["a": "app/a"])
        let closing = machine.renewSession(Self.session(1))
        #expect(closing.contains(.closeTransport(Self.session(1))))
        #expect(machine.isRenewing)
        #expect(machine.renewSession(Self.session(1)) == [])  // already closing
        let reopened = machine.transportClosed(Self.session(1), .dropped)
        #expect(reopened.contains(.openTransport(Self.session(2))))
        #expect(!reopened.contains { if case .startTimer(.reconnect, _) = $0 { true } else { false } })
        #expect(machine.renewSession(Self.session(1)) == [])  // stale
    }

    static func isPublication(_ action: Action) -> Bool {
        switch action {
        case .publishState, .publishSubscriptionStatus, .count: true
        default: false
        }
    }

    /// A changed channel set (SSE: the channels are in the request) is no drop: the app sees
    /// `.connected` and `.active` throughout, nothing is counted as a reconnect.
    @Test func aRenewalShowsTheAppNoDrop() {
        var machine = Self.connected(subscriptions: ["a": "app/a", "b": "app/b"])
        _ = machine.subscribeSucceeded(Self.session(1), id: "a")
        _ = machine.subscribeRejected(Self.session(1), id: "b", errors: [])
        let changed = machine.renewSession(Self.session(1)) + machine.transportClosed(Self.session(1), .dropped)
            + machine.transportOpened(Self.session(2))
        // Only the refused one, tried again on the new session, says it waits; `.rejected` would be stale.
        #expect(changed.filter(Self.isPublication) == [.publishSubscriptionStatus(id: "b", .subscribing)], "\(changed)")
        #expect(machine.state == .connected && machine.isRenewing)
        let accepted = machine.sessionAccepted(Self.session(2), keepAliveTimeout: nil)
        #expect(accepted.contains(.sendSubscribe(id: "a", channel: "app/a")))
        // A renewal's session is an attempt to connect like any other, and it succeeded.
        #expect(accepted.filter(Self.isPublication) == [.count(.connectSucceeded), .publishSubscriptionStatus(id: "b", .subscribing)], "\(accepted)")
        #expect(!machine.isRenewing)
        #expect(machine.subscribeSucceeded(Self.session(2), id: "a").contains(.publishSubscriptionStatus(id: "a", .active)))
        // The next drop is one again.
        #expect(machine.transportClosed(Self.session(2), .dropped).contains(.publishSubscriptionStatus(id: "a", .subscribing)))
    }

    /// The quiet is bounded: a renewal whose new session is not accepted within
    /// `quietRenewalLimit` (2 s) tells the app it waits (`.subscribing`, then `.connecting`) while
    /// the attempt goes on; before, `.connected` and `.active` stayed up to the connect time-out (15 s).
    @Test func aRenewalThatIsSlowTellsTheAppAfterItsQuietTime() {
        var machine = Self.connected(subscriptions: ["a": "app/a"])
        _ = machine.subscribeSucceeded(Self.session(1), id: "a")
        let reopened = machine.renewSession(Self.session(1)) + machine.transportClosed(Self.session(1), .dropped)
        #expect(reopened.contains(.startTimer(.quietRenewal, .seconds(2))), "\(reopened)")
        _ = machine.transportOpened(Self.session(2))
        #expect(machine.state == .connected && machine.isRenewing)
        let overdue = machine.timerFired(.quietRenewal)
        #expect(overdue.filter(Self.isPublication) == [.publishSubscriptionStatus(id: "a", .subscribing), .publishState(.connecting)], "\(overdue)")
        #expect(machine.state == .connecting && !machine.isRenewing)
        #expect(!overdue.contains(.closeTransport(Self.session(2))) && !overdue.contains(.cancelTimer(.connect)))  // the attempt goes on
        // Accepted later: told as any reconnect's, the subscription asked for again.
        let accepted = machine.sessionAccepted(Self.session(2), keepAliveTimeout: nil)
        #expect(accepted.contains(.publishState(.connected)) && accepted.contains(.sendSubscribe(id: "a", channel: "app/a")))
        #expect(machine.subscribeSucceeded(Self.session(2), id: "a").contains(.publishSubscriptionStatus(id: "a", .active)))
        #expect(machine.timerFired(.quietRenewal) == [])  // late: nothing
    }

    /// Accepted within its quiet time, a renewal stops the timer; a late one changes nothing. Ended
    /// before it (refused, dropped), it stops the timer too and says so as before.
    @Test func aRenewalDoneInTimeOrEndedStopsItsQuietTime() {
        var machine = Self.connected(subscriptions: ["a": "app/a"])
        _ = machine.subscribeSucceeded(Self.session(1), id: "a")
        _ = machine.renewSession(Self.session(1)) + machine.transportClosed(Self.session(1), .dropped) + machine.transportOpened(Self.session(2))
        #expect(machine.sessionAccepted(Self.session(2), keepAliveTimeout: nil).contains(.cancelTimer(.quietRenewal)))
        #expect(machine.timerFired(.quietRenewal) == [])
        #expect(machine.state == .connected)
        _ = machine.subscribeSucceeded(Self.session(2), id: "a")
        _ = machine.renewSession(Self.session(2)) + machine.transportClosed(Self.session(2), .dropped)
        #expect(machine.transportFailed(Self.session(3), "refused").contains(.cancelTimer(.quietRenewal)))
        #expect(machine.timerFired(.quietRenewal) == [])
        // A connection that never renewed has no quiet time to stop.
        var plain = Self.connected(subscriptions: ["a": "app/a"])
        #expect(!plain.transportClosed(Self.session(1), .dropped).contains(.cancelTimer(.quietRenewal)))
    }

    /// If the renewed session fails, the app is told the truth: its subscriptions wait, then the
    /// state says why.
    @Test(arguments: [false, true])
    func aRenewalThatFailsTellsTheAppBeforeTheStateSaysWhy(refusedAfterOpening: Bool) {
        var machine = Self.connected(subscriptions: ["a": "app/a", "b": "app/b"])
        _ = machine.subscribeSucceeded(Self.session(1), id: "a")
        _ = machine.renewSession(Self.session(1)) + machine.transportClosed(Self.session(1), .dropped)
        // One subscribed while the renewal opens is new: it says `.subscribing` as any new one does.
        #expect(machine.subscribe(id: "c", channel: "app/c") == [.publishSubscriptionStatus(id: "c", .subscribing)])
        let failed: [Action]
        if refusedAfterOpening {
            _ = machine.transportOpened(Self.session(2))
            _ = machine.sessionRefused(Self.session(2), .retryable([]))
            failed = machine.transportClosed(Self.session(2), .dropped)
        } else {
            failed = machine.transportFailed(Self.session(2), "refused")
        }
        // Its failure to connect is counted as any attempt's (when it failed here, not before).
        #expect(failed.contains(.count(.connectFailed(.network))) == !refusedAfterOpening)
        let told = failed.filter(Self.isPublication).filter { $0 != .count(.connectFailed(.network)) }
        // "a" went on showing `.active` and is told now; "b" was never answered and said `.subscribing` all along.
        #expect(told.first == .publishSubscriptionStatus(id: "a", .subscribing), "\(told)")
        #expect(!told.contains(.publishSubscriptionStatus(id: "b", .subscribing)), "\(told)")
        #expect(told.contains(.publishState(.reconnecting(after: .seconds(1), because: refusedAfterOpening ? .refused([]) : .transportError("refused")))), "\(told)")
        #expect(!machine.isRenewing)
    }

    /// Stopped while the renewal opens: the subscriptions say they wait, the state says stopped.
    @Test func stoppingDuringARenewalTellsTheSubscriptions() {
        var machine = Self.connected(subscriptions: ["a": "app/a"])
        _ = machine.subscribeSucceeded(Self.session(1), id: "a")
        _ = machine.renewSession(Self.session(1)) + machine.transportClosed(Self.session(1), .dropped)
        let stopped = machine.stop().filter(Self.isPublication)
        #expect(stopped == [.publishSubscriptionStatus(id: "a", .subscribing), .publishState(.disconnected)])
    }

    // MARK: Reconnect policies

    @Test func fullJitterStaysUnderTheExponentialCeiling() {
        let ceiling = ReconnectPolicy.exponential(initial: .seconds(1), maximum: .seconds(30))
        for fraction in [0.0, 0.25, 0.999] {
            let jittered = ReconnectPolicy.exponentialWithFullJitter(initial: .seconds(1), maximum: .seconds(30), random: { fraction })
            for attempt in 1...8 {
                #expect(jittered.delay(afterFailedAttempts: attempt) == ceiling.delay(afterFailedAttempts: attempt)! * fraction)
            }
        }
        #expect(ReconnectPolicy.fixed(.seconds(10)).limited(to: 2).delay(afterFailedAttempts: 3) == nil)
    }
}
