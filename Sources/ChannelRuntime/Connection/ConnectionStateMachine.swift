/// The life of one realtime connection as a value: no I/O, no clock, no tasks.
///
/// A transport's driver (`AppSyncConnection`, later an SSE connection) feeds it what happened
/// (the app started or stopped it, the transport opened, failed or closed, the service accepted or
/// refused the session or a subscription, a timer fired) and performs the actions it returns in
/// order (open or close the transport, send a subscribe, start or cancel a timer, publish a state).
/// Reconnect, keep-alive, resubscription and closing within a bound live here once, for every
/// transport; the driver only speaks its wire protocol.
///
/// Every transport attempt gets a new `SessionID`; an event naming an older session is stale and
/// changes nothing (a late `opened` gets the socket aborted).
package struct ConnectionStateMachine: Sendable {
    package struct Settings: Sendable {
        /// Delay before the next attempt after an abnormal end.
        package var reconnectPolicy: ReconnectPolicy
        /// Delay before a refused subscription is tried again; `nil` gives it up (`.failed`).
        package var subscribeRetryPolicy: ReconnectPolicy
        /// Upper bound for opening the transport plus the service accepting the session.
        package var connectTimeout: Duration
        /// Upper bound for the answer to a subscribe.
        package var operationTimeout: Duration
        /// Silence allowed when the service does not say (AppSync: `connectionTimeoutMs`).
        package var defaultKeepAliveTimeout: Duration
        /// What the service may announce as its keep-alive timeout; anything outside is clamped, so
        /// a server announcing 10^12 ms (or a negative value) cannot disable the watchdog.
        package var keepAliveRange: ClosedRange<Duration>
        /// Reconnect proactively after this long (AppSync ends connections after 24 h).
        package var plannedReconnectInterval: Duration
        /// After a close was asked for, how long the peer has to finish it before the transport is
        /// closed hard. A frozen or blackholed peer never answers a close frame.
        package var closeGracePeriod: Duration
        /// On an authorization failure, try once more at once with credentials asked anew from the
        /// provider (an expired token) before ending in `.failed(.unauthorized)`.
        package var retriesUnauthorizedOnce: Bool
        /// How long that retry waits: zero (at once) unless the transport promises a floor
        /// between opens (SSE: its policy's first delay, so a stream never opens twice a second).
        package var unauthorizedRetryDelay: Duration = .zero
        /// Close codes of the peer that end the connection until the app starts it again
        /// (`.closed`); any other close reconnects.
        package var finalCloseCodes: Set<Int>
        /// After a network path change, how long a connected session has to answer the liveness
        /// probe (a WebSocket ping) before it counts as dead and is replaced at once.
        package var probeTimeout: Duration
        /// How long an accepted session must last to count as healthy. Only then do the
        /// authorization retry and the reconnect policy's count of failed attempts start over: a
        /// server that accepts and at once refuses or drops is backed off, not reconnected to in a
        /// loop, and a second authorization failure in a row ends in `.failed(.unauthorized)`.
        /// Events do not count: a session that delivered some and ended sooner is one more failed
        /// attempt, like one that delivered none (a server, or a proxy, sending one event per
        /// connection, even for a subscription nobody made, must not turn a refusal into a loop).
        package var settleTime: Duration
        /// After a network path change replaced a session that could not prove it was alive, how
        /// long further path changes wait before they may replace the next one: a burst of them
        /// (a flapping path at a cell edge) is one replacement, not one each. Zero: no wait, for a
        /// wire whose probe a healthy session answers (a WebSocket ping), so only dead ones go.
        package var pathReplacementInterval: Duration = .zero
        /// How often the service sends a keep-alive when it has nothing else to send (AppSync: a
        /// `ka` about every 60 s). A session silent for twice this is taken for dead, sooner than the
        /// timeout it announces (AppSync: 300 s), which stays the outer bound. `nil`: that timeout alone.
        package var keepAliveInterval: Duration?
        /// While connected, a liveness probe (a WebSocket ping) goes out after this much silence, so a
        /// dead path is found with no path signal; `nil`: none (a wire that cannot be pinged).
        package var idlePingInterval: Duration?
        /// How long the session has to answer that probe before it counts as dead and is replaced.
        package var idlePingTimeout: Duration = .seconds(15)
        /// How long a renewal's new session (a changed channel set) may take to be accepted while
        /// the app goes on seeing `.connected` and `.active`. Past it the app is told the truth,
        /// `.connecting` and `.subscribing`, while the attempt goes on under `connectTimeout`.
        package var quietRenewalLimit: Duration = .seconds(2)

        package init(
            reconnectPolicy: ReconnectPolicy = .fixed(.seconds(10)),
            subscribeRetryPolicy: ReconnectPolicy = ReconnectPolicy.exponential(initial: .seconds(1), maximum: .seconds(60)).limited(to: 5),
            connectTimeout: Duration = .seconds(15),
            operationTimeout: Duration = .seconds(15),
            defaultKeepAliveTimeout: Duration = .seconds(300),
            keepAliveRange: ClosedRange<Duration> = .seconds(1) ... .seconds(3600),
            plannedReconnectInterval: Duration = .seconds(24 * 3600 - 5 * 60),
            closeGracePeriod: Duration = .seconds(2),
            retriesUnauthorizedOnce: Bool = true,
            finalCloseCodes: Set<Int> = [1000],
            probeTimeout: Duration = .seconds(2),
            settleTime: Duration = .seconds(30)
        ) {
            self.reconnectPolicy = reconnectPolicy
            self.subscribeRetryPolicy = subscribeRetryPolicy
            self.connectTimeout = connectTimeout
            self.operationTimeout = operationTimeout
            self.defaultKeepAliveTimeout = defaultKeepAliveTimeout
            self.keepAliveRange = keepAliveRange
            self.plannedReconnectInterval = plannedReconnectInterval
            self.closeGracePeriod = closeGracePeriod
            self.retriesUnauthorizedOnce = retriesUnauthorizedOnce
            self.finalCloseCodes = finalCloseCodes
            self.probeTimeout = probeTimeout
            self.settleTime = settleTime
        }
    }

    /// One transport attempt.
    package struct SessionID: Hashable, Sendable, CustomStringConvertible {
        package let value: Int
        package init(value: Int) { self.value = value }
        package var description: String { "session \(value)" }
    }

    /// The timers the machine asks for. Starting a timer that runs replaces it.
    package enum Timer: Hashable, Sendable {
        /// Opening plus acceptance of the session.
        case connect
        /// Silence watchdog; when it fires the driver reports how long it has been silent.
        case keepAlive
        /// The proactive reconnect before the service's connection time limit.
        case plannedReconnect
        /// The delay before the next attempt.
        case reconnect
        /// The bound on a close the peer does not finish.
        case closeGrace
        /// The answer to the subscribe of one subscription id.
        case subscribe(String)
        /// The retry of a refused subscription.
        case resubscribe(String)
        /// The answer to a liveness probe after a network path change.
        case probe
        /// An accepted session that lasts this long counts as healthy (`Settings.settleTime`).
        case settled
        /// Path changes wait for it after one replaced a session (`Settings.pathReplacementInterval`).
        case pathReplacement
        /// A liveness probe after `Settings.idlePingInterval` of silence; when it fires the driver
        /// reports how long it has been silent.
        case idlePing
        /// The end of a renewal's quiet time (`Settings.quietRenewalLimit`).
        case quietRenewal
    }

    /// Counters the driver keeps for the machine. (An attempt to connect is counted by the driver
    /// as it opens the transport; the machine says how each attempt ended.)
    package enum Metric: Sendable, Equatable {
        case reconnect
        case keepAliveTimeout
        case duplicateAcknowledgement
        case subscribeError
        /// The service accepted the session being opened.
        case connectSucceeded
        /// The session being opened ended before the service accepted it.
        case connectFailed(ConnectFailureClass)
    }

    package enum Action: Sendable, Equatable {
        /// Check sign-in, authorize and open the transport; then report `transportOpened`,
        /// `transportFailed`, `transportTimedOut` or `signedOut` for this session.
        case openTransport(SessionID)
        /// Send the protocol's session opening (AppSync: `connection_init`).
        case sendHandshake(SessionID)
        /// Send a subscribe on the current session; answer with `subscribeSucceeded` / `subscribeRejected`.
        case sendSubscribe(id: String, channel: String)
        /// Send an unsubscribe on the current session.
        case sendUnsubscribe(id: String)
        /// Ask the session whether it still carries traffic (a WebSocket ping); answer with
        /// `probeAnswered` or `probeFailed`.
        case sendProbe(SessionID)
        /// Start closing: a close frame, no waiting. The transport's end comes as `transportClosed`.
        case closeTransport(SessionID)
        /// Close at once and stop reading: cancel an open in flight, close the socket.
        case abortTransport(SessionID)
        case startTimer(Timer, Duration)
        case cancelTimer(Timer)
        /// The session is over: fail what waits for its answers (publishes).
        case sessionEnded(SessionID)
        case publishState(ConnectionState)
        case publishSubscriptionStatus(id: String, SubscriptionStatus)
        case count(Metric)
    }

    /// How the service answered the session's opening with a refusal.
    package enum Refusal: Sendable, Equatable {
        /// Credentials refused (may be an expired token).
        case unauthorized([ServiceError])
        /// Refused for a reason retrying cannot fix.
        case rejected([ServiceError])
        /// Refused for now; the reconnect policy applies, waiting at least `retryAfter` when the
        /// service named a delay (HTTP `Retry-After` on 429/503).
        case retryable([ServiceError], retryAfter: Duration? = nil)
    }

    private enum AfterClose: Equatable {
        /// After the policy's delay (an abnormal end), published with why.
        case reconnect(because: ConnectionEnd)
        /// After the policy's delay, but no sooner than the service asked.
        case reconnectNoSooner(than: Duration, because: ConnectionEnd)
        /// Not at all: the peer's close code is one the settings treat as final.
        case closedForGood(ConnectionEnd)
        /// At once (planned reconnect; credentials asked anew; resumed while closing).
        case reconnectNow
        /// At once and quietly: the channel set changed (`renewSession`). The app sees the state
        /// and statuses it had, unless the new session fails or takes longer than
        /// `Settings.quietRenewalLimit`.
        case renew
        case suspend
        case stop
        case fail(ConnectionFailure)
    }

    private enum Phase: Equatable {
        case idle
        /// The reconnect timer runs.
        case waiting(attempts: Int)
        /// The transport is opening; the connect timer runs.
        case opening(SessionID, attempts: Int)
        /// Opened, handshake sent; the connect timer runs.
        case handshaking(SessionID, attempts: Int)
        case connected(SessionID, keepAlive: Duration)
        /// A close was asked for; the grace timer runs.
        case closing(SessionID, then: AfterClose, wasConnected: Bool, attempts: Int)
        /// The app went to the background: no transport, no reconnect, until `resume()`.
        case suspended
        case disconnected
        case failed(ConnectionFailure)
    }

    /// A liveness probe out for a session: why it was sent sets how long the answer may take.
    private struct Probe: Equatable {
        var session: SessionID
        /// After a path change or `resume()` (`probeTimeout`); otherwise after silence (`idlePingTimeout`).
        var afterPathChange: Bool
    }

    private enum SubscriptionPhase: Equatable {
        /// To be sent once the session is accepted.
        case pending
        /// Sent on the current session, no answer yet.
        case sent
        case active
        /// Refused; the resubscribe timer runs.
        case retryWaiting
        /// Refused too often; sent again only on a new session.
        case failed
    }

    private struct Subscription {
        var channel: String
        var phase: SubscriptionPhase = .pending
        var rejections = 0
    }

    package let settings: Settings
    private var phase: Phase = .idle
    private var publishedState: ConnectionState = .idle
    private var nextSession = 0
    private var subscriptions: [String: Subscription] = [:]
    /// How the service ended the connection for good (a final close code), until `start()`: every
    /// subscription says so, as after a failure, instead of waiting for a session that never comes.
    private var closedForGood: ConnectionEnd?
    /// Ids unsubscribed while their subscribe was unanswered: the service ignores such an
    /// unsubscribe, so it is sent when the success comes in.
    private var unsubscribeWhenAcknowledged: Set<String> = []
    /// Whether the one retry after an authorization failure was used since the last healthy
    /// session (one that lasted `settleTime`).
    private var unauthorizedRetryUsed = false
    /// The failed attempts before the current session was accepted, until it proves healthy: a
    /// session that ends sooner counts as one more failed attempt, not as a fresh start.
    private var attemptsBeforeSettling = 0
    /// The reconnect delay the service asked for (SSE `retry:`), used instead of the policy's delay.
    private var serverReconnectDelay: Duration?
    /// Whether the device has a network path (as the app's monitor last said): without one,
    /// nothing is attempted, a battery's worth of failed connects saved.
    private var networkAvailable = true
    /// The liveness probe out for a session, if one is.
    private var probing: Probe?
    /// The wire said it cannot be probed (a WebSocket adapter without pings): no idle pings from
    /// then on. A connection's adapter is its own for its life, so its next sessions are not asked
    /// again (and the log says so once).
    private var cannotBePinged = false
    /// A path change already ended a reconnect wait early since the last full wait (or healthy
    /// session): the next one must run its course, so a flapping path cannot dial in a loop.
    private var pathShortcutTaken = false
    /// A path change replaced a session less than `pathReplacementInterval` ago.
    private var pathReplacementCooling = false
    /// A path change came while cooling: the session is probed when the interval ends.
    private var pathChangeDeferred = false
    /// Why the last session ended, for a reconnect wait a path change restarts.
    private var lastEnd: ConnectionEnd = .dropped
    /// The session opened quietly to carry a changed channel set (`renewSession`), until the
    /// service accepts it, it fails, or its quiet time ends.
    private var renewal: SessionID?
    /// Subscriptions waiting for that session whose `.subscribing` was not published: they keep
    /// showing `.active`, and are told `.subscribing` only if the renewal fails or its quiet time
    /// ends first.
    private var quietlyPending: Set<String> = []

    package init(settings: Settings) {
        self.settings = settings
    }

    // MARK: Reading

    /// The state as last published.
    package var state: ConnectionState { publishedState }

    /// The session events are read from, while there is one.
    package var currentSession: SessionID? {
        switch phase {
        case .opening(let session, _), .handshaking(let session, _), .connected(let session, _), .closing(let session, _, _, _):
            return session
        case .idle, .waiting, .suspended, .disconnected, .failed:
            return nil
        }
    }

    /// Whether the service accepted the current session (subscribes and publishes can go out).
    package var isConnected: Bool {
        if case .connected = phase { return true }
        return false
    }

    /// Whether a subscribe for `id` was confirmed on the current session.
    package func isActive(_ id: String) -> Bool { subscriptions[id]?.phase == .active }

    /// Subscription ids and channels the machine tracks.
    package var subscribedChannels: [String: String] { subscriptions.mapValues(\.channel) }

    // MARK: The app

    /// Starts connecting; nothing when a session is already on its way.
    package mutating func start() -> [Action] {
        switch phase {
        case .suspended:
            return openSession(attempts: 0)
        case .idle, .disconnected, .failed:
            closedForGood = nil
            unauthorizedRetryUsed = false
            attemptsBeforeSettling = 0
            pathShortcutTaken = false
            return openSession(attempts: 0)
        case .waiting, .opening, .handshaking, .connected, .closing:
            return []
        }
    }

    /// Ends the connection with no reconnect; `.disconnected` is published once the transport is
    /// closed (at the latest after the grace period).
    package mutating func stop() -> [Action] {
        switch phase {
        case .idle, .suspended, .disconnected, .failed:
            return rest(.stop)
        case .closing(let session, _, let wasConnected, let attempts):
            phase = .closing(session, then: .stop, wasConnected: wasConnected, attempts: attempts)
            return []
        case .waiting, .opening, .handshaking, .connected:
            return wind(down: .stop)
        }
    }

    /// Ends the connection at once with no reconnect and no close handshake (the task running it was
    /// cancelled): as `stop()`, but a session is cut off instead of closed, so `.disconnected` is
    /// published now, not after the grace period.
    package mutating func abort() -> [Action] {
        guard let session = currentSession else { return stop() }
        return cancelSessionTimers() + [.cancelTimer(.closeGrace), .abortTransport(session)]
            + ended(session, then: .stop, wasConnected: false, attempts: 0)
    }

    /// The app goes to the background: the transport is closed (bounded, as for `stop()`) and no
    /// reconnect happens until `resume()`; subscriptions stay. `.suspended` is published once closed.
    package mutating func suspend() -> [Action] {
        switch phase {
        case .idle, .suspended, .disconnected, .failed:
            return []
        case .closing(let session, let then, let wasConnected, let attempts):
            if then != .stop { phase = .closing(session, then: .suspend, wasConnected: wasConnected, attempts: attempts) }
            return []
        case .waiting, .opening, .handshaking, .connected:
            return wind(down: .suspend)
        }
    }

    /// Ends what is under way without a reconnect: a reconnect delay or an open is cut at once, a
    /// session is closed (bounded) and comes to rest in `then` when the close ends.
    private mutating func wind(down then: AfterClose) -> [Action] {
        switch phase {
        case .waiting:
            return [.cancelTimer(.reconnect)] + rest(then)
        case .opening(let session, _):
            return [.cancelTimer(.connect), .abortTransport(session)] + endSession(session) + rest(then)
        case .handshaking(let session, let attempts):
            return close(session, then: then, wasConnected: false, attempts: attempts)
        case .connected(let session, _):
            return close(session, then: then, wasConnected: true, attempts: 0)
        case .idle, .suspended, .disconnected, .failed, .closing:
            return []
        }
    }

    /// Comes to rest after a stop or a suspend.
    private mutating func rest(_ then: AfterClose) -> [Action] {
        switch then {
        case .suspend:
            phase = .suspended
            return publish(.suspended)
        case .stop, .reconnect, .reconnectNoSooner, .reconnectNow, .renew, .fail, .closedForGood:
            phase = .disconnected
            return publish(.disconnected)
        }
    }

    /// The app is in the foreground again: connect at once, with no reconnect delay (also when a
    /// reconnect delay is running), and resubscribe everything; a session still connected (the app
    /// did not suspend) is probed, as after a network path change.
    package mutating func resume() -> [Action] {
        switch phase {
        case .suspended:
            return openSession(attempts: 0)
        case .waiting(let attempts):
            guard networkAvailable else { return [] }
            return [.cancelTimer(.reconnect)] + openSession(attempts: attempts)
        case .closing(let session, .suspend, let wasConnected, let attempts):
            phase = .closing(session, then: .reconnectNow, wasConnected: wasConnected, attempts: attempts)
            return []
        case .connected:
            // Back in the foreground without a suspend: the socket kept may have died meanwhile.
            return probe(afterPathChange: true)
        case .idle, .opening, .handshaking, .closing, .disconnected, .failed:
            return []
        }
    }

    /// A new subscription (its id chosen by the driver).
    package mutating func subscribe(id: String, channel: String) -> [Action] {
        subscriptions[id] = Subscription(channel: channel)
        // On a connection that failed for good nothing will send it until `start()`: it says so.
        if case .failed(let failure) = phase { return [.publishSubscriptionStatus(id: id, .failed(failure.serviceErrors))] }
        if let end = closedForGood { return [.publishSubscriptionStatus(id: id, .failed(end.finalCloseErrors))] }
        var actions: [Action] = [.publishSubscriptionStatus(id: id, .subscribing)]
        if case .connected = phase { actions += send(id) }
        return actions
    }

    /// The consumer left: the subscription ends.
    package mutating func unsubscribe(id: String) -> [Action] {
        guard let subscription = subscriptions.removeValue(forKey: id) else { return [] }
        quietlyPending.remove(id)
        var actions: [Action] = [.cancelTimer(.subscribe(id)), .cancelTimer(.resubscribe(id))]
        guard case .connected = phase else { return actions }
        switch subscription.phase {
        case .active: actions.append(.sendUnsubscribe(id: id))
        case .sent: unsubscribeWhenAcknowledged.insert(id)
        case .pending, .retryWaiting, .failed: break
        }
        return actions
    }

    // MARK: The transport

    /// The driver found the user signed out before opening: the connection stops, its state
    /// `.closed(.signedOut)` and every subscription `.failed` saying so, with no timer (nothing asks
    /// again); `start()` after sign-in connects again.
    package mutating func signedOut(_ session: SessionID) -> [Action] {
        guard case .opening(session, let attempts) = phase else { return [] }
        return [.cancelTimer(.connect)] + ended(session, then: .closedForGood(.signedOut), wasConnected: false, attempts: attempts)
    }

    /// The transport is open: the protocol's handshake goes out.
    package mutating func transportOpened(_ session: SessionID) -> [Action] {
        guard case .opening(session, let attempts) = phase else { return [.abortTransport(session)] }
        phase = .handshaking(session, attempts: attempts)
        return [.sendHandshake(session)]
    }

    /// Opening the transport failed (refused, TLS, upgrade, wrong subprotocol).
    package mutating func transportFailed(_ session: SessionID, _ error: String) -> [Action] {
        guard case .opening(session, let attempts) = phase else { return [] }
        return [.cancelTimer(.connect), .count(.connectFailed(.network))]
            + ended(session, then: .reconnect(because: .transportError(error)), wasConnected: false, attempts: attempts)
    }

    /// The transport's own limit on its TCP connect ran out (`TransportConnectTimedOut`): a time-out,
    /// as when the connect timer fires, whichever limit came first.
    package mutating func transportTimedOut(_ session: SessionID) -> [Action] {
        guard case .opening(session, let attempts) = phase else { return [] }
        return [.cancelTimer(.connect), .count(.connectFailed(.timedOut))]
            + ended(session, then: .reconnect(because: .timedOut), wasConnected: false, attempts: attempts)
    }

    /// The transport ended (the peer closed, the network dropped, or the close asked for finished),
    /// `end` saying how. A close the client asked for ends as it was asked; the peer's close with
    /// a final code (`Settings.finalCloseCodes`) ends without reconnecting.
    package mutating func transportClosed(_ session: SessionID, _ end: ConnectionEnd) -> [Action] {
        let then: AfterClose
        if case .closed(let code, _) = end, settings.finalCloseCodes.contains(code) { then = .closedForGood(end) } else { then = .reconnect(because: end) }
        switch phase {
        case .handshaking(session, let attempts):
            return [.cancelTimer(.connect), .count(.connectFailed(.network))] + ended(session, then: then, wasConnected: false, attempts: attempts)
        case .connected(session, _):
            return cancelSessionTimers() + ended(session, then: then, wasConnected: true, attempts: 0)
        case .closing(session, let then, let wasConnected, let attempts):
            return [.cancelTimer(.closeGrace)] + ended(session, then: then, wasConnected: wasConnected, attempts: attempts)
        default:
            return []
        }
    }

    // MARK: The network

    /// The device's network path changed (a path monitor saw an interface come or go; an app
    /// calls it when it comes to the foreground too). Without a path nothing is attempted
    /// (`.waitingForNetwork`). With one: a connected session is probed and replaced at once if it
    /// does not answer within `probeTimeout` (kept if it does); a reconnect delay or an open on the
    /// old path is cut short and a new session opens at once.
    ///
    /// Within the floors: a path change ends a reconnect wait early at most once until a wait runs
    /// its full course (so a flapping path in front of a failing server follows the backoff, at
    /// most one early attempt per step); it never aborts an open in flight to start another; and
    /// after it replaced a session, further changes wait `pathReplacementInterval` and are then one
    /// probe, only if the session was silent all that time (a burst of changes replaces a session
    /// at most once; a stream that keeps delivering is kept).
    package mutating func networkPathChanged(available: Bool) -> [Action] {
        let hadPath = networkAvailable
        networkAvailable = available
        guard available else {
            // A session in flight may still work (the monitor can be early); when it ends, nothing follows.
            if case .waiting(let attempts) = phase { return [.cancelTimer(.reconnect)] + waitForNetwork(attempts: attempts) }
            return []
        }
        switch phase {
        case .waiting(let attempts):
            if !pathShortcutTaken {
                pathShortcutTaken = true
                return [.cancelTimer(.reconnect)] + openSession(attempts: attempts)
            }
            // The early attempt was spent: a wait that runs keeps running; one the missing path
            // had cancelled starts again, with the policy's delay.
            return hadPath ? [] : waitToReconnect(attempts: max(attempts, 1), because: lastEnd)
        case .connected:
            guard !pathReplacementCooling else {
                pathChangeDeferred = true
                return []
            }
            return probe(afterPathChange: true)
        case .idle, .opening, .handshaking, .closing, .suspended, .disconnected, .failed:
            return []
        }
    }

    /// Asks the connected session to prove it is alive: within `probeTimeout` after a path change
    /// or `resume()` (a probe already out after silence goes out again with that shorter bound),
    /// within `idlePingTimeout` after silence.
    private mutating func probe(afterPathChange: Bool) -> [Action] {
        guard case .connected(let session, _) = phase else { return [] }
        if let probing, probing.session == session, probing.afterPathChange || !afterPathChange { return [] }
        probing = Probe(session: session, afterPathChange: afterPathChange)
        let timeout = afterPathChange ? settings.probeTimeout : settings.idlePingTimeout
        return [.sendProbe(session), .startTimer(.probe, timeout)]
    }

    /// The session answered the probe (or carried other traffic meanwhile): it is kept, and the
    /// next idle ping waits a whole interval.
    package mutating func probeAnswered(_ session: SessionID) -> [Action] {
        guard probing?.session == session else { return [] }
        probing = nil
        return [.cancelTimer(.probe)] + startIdlePing()
    }

    /// The probe could not be sent (the socket failed): the session is replaced at once.
    package mutating func probeFailed(_ session: SessionID) -> [Action] {
        guard probing?.session == session, case .connected(session, _) = phase else { return [] }
        return replaceDeadSession(session)
    }

    /// The wire cannot be asked (Server-Sent Events; a WebSocket adapter without pings). After a
    /// path change the session is replaced at once, as it cannot prove it is alive; after silence
    /// it is kept and not pinged again, the keep-alive bound being left to find it dead.
    package mutating func probeCannotTell(_ session: SessionID) -> [Action] {
        guard let probe = probing, probe.session == session, case .connected(session, _) = phase else { return [] }
        guard !probe.afterPathChange else { return replaceDeadSession(session) }
        probing = nil
        cannotBePinged = true
        return [.cancelTimer(.probe)]
    }

    /// Whether a liveness probe is out for the current session.
    package var isProbing: Bool { probing != nil && probing?.session == currentSession }

    /// Whether the probe out was sent after a network path change (or `resume()`), not after silence.
    package var isProbingAfterPathChange: Bool { isProbing && probing?.afterPathChange == true }

    /// The idle ping's timer, for a session that can be pinged.
    private func startIdlePing() -> [Action] {
        guard let interval = settings.idlePingInterval, !cannotBePinged else { return [] }
        return [.startTimer(.idlePing, interval)]
    }

    /// A session that did not prove alive after a path change: no close handshake (nothing would
    /// answer it), a new session at once, everything resubscribed.
    private mutating func replaceDeadSession(_ session: SessionID) -> [Action] {
        var cooling: [Action] = []
        if settings.pathReplacementInterval > .zero {
            pathReplacementCooling = true
            pathChangeDeferred = false
            cooling = [.startTimer(.pathReplacement, settings.pathReplacementInterval)]
        }
        return cancelSessionTimers() + [.abortTransport(session)] + cooling + ended(session, then: .reconnectNow, wasConnected: true, attempts: 0)
    }

    private mutating func waitForNetwork(attempts: Int) -> [Action] {
        phase = .waiting(attempts: attempts)
        return publish(.waitingForNetwork)
    }

    // MARK: The service

    /// The service named the delay before reconnecting after a drop (SSE's `retry:` field); `nil`
    /// returns to the reconnect policy's delay. A hint, bounded by the policy: a delay is never
    /// shorter than the policy's for that attempt (its backoff after failures still applies), and
    /// the policy still decides whether to try again.
    package mutating func serviceAskedForReconnectDelay(_ delay: Duration?) {
        serverReconnectDelay = delay
    }

    /// The transport must be reopened to carry a changed set of channels (SSE: the topics are in
    /// the request): the session is closed (bounded) and a new one opens at once, resubscribing all.
    package mutating func renewSession(_ session: SessionID) -> [Action] {
        guard case .connected(session, _) = phase else { return [] }
        return close(session, then: .renew, wasConnected: true, attempts: 0)
    }

    /// Whether the current session is being closed to carry a changed channel set.
    package var isRenewing: Bool {
        if case .closing(_, .renew, _, _) = phase { return true }
        return renewal != nil && renewal == currentSession
    }

    /// The service accepted the session (AppSync: `connection_ack`), announcing its keep-alive
    /// timeout or not. A second acceptance on the same session is ignored.
    package mutating func sessionAccepted(_ session: SessionID, keepAliveTimeout: Duration?) -> [Action] {
        switch phase {
        case .handshaking(session, let attempts):
            attemptsBeforeSettling = attempts
        case .connected(session, _):
            return [.count(.duplicateAcknowledgement)]
        default:
            return []
        }
        let announced = keepAliveTimeout.map { min(max($0, settings.keepAliveRange.lowerBound), settings.keepAliveRange.upperBound) }
            ?? settings.defaultKeepAliveTimeout
        // Two keep-alives missed in a row is a dead session, long before the announced bound.
        let keepAlive = settings.keepAliveInterval.map { min(announced, $0 * 2) } ?? announced
        phase = .connected(session, keepAlive: keepAlive)
        var actions: [Action] = [.cancelTimer(.connect), .count(.connectSucceeded)] + publish(.connected) + [
            .startTimer(.keepAlive, keepAlive),
            .startTimer(.plannedReconnect, settings.plannedReconnectInterval),
            .startTimer(.settled, settings.settleTime),
        ] + startIdlePing()
        for id in subscriptions.keys.sorted() {
            subscriptions[id]?.rejections = 0
            let sending = [.cancelTimer(.resubscribe(id))] + send(id)
            // A renewal's subscriptions went on showing `.active`: no `.subscribing` in between.
            actions += quietlyPending.contains(id) ? sending.filter { $0 != .publishSubscriptionStatus(id: id, .subscribing) } : sending
        }
        if renewal != nil { actions.append(.cancelTimer(.quietRenewal)) }
        renewal = nil
        quietlyPending.removeAll()
        return actions
    }

    /// The service refused or ended the session (AppSync: `connection_error`).
    package mutating func sessionRefused(_ session: SessionID, _ refusal: Refusal) -> [Action] {
        let wasConnected: Bool
        let attempts: Int
        switch phase {
        case .handshaking(session, let count): (wasConnected, attempts) = (false, count)
        case .connected(session, _): (wasConnected, attempts) = (true, 0)
        default: return []
        }
        let counted: [Action] = wasConnected ? [] : [.count(.connectFailed(ConnectFailureClass(refusal)))]
        return counted + endRefused(session, refusal, wasConnected: wasConnected, attempts: attempts)
    }

    private mutating func endRefused(_ session: SessionID, _ refusal: Refusal, wasConnected: Bool, attempts: Int) -> [Action] {
        switch refusal {
        case .unauthorized(let errors):
            if settings.retriesUnauthorizedOnce && !unauthorizedRetryUsed {
                unauthorizedRetryUsed = true
                let then: AfterClose = settings.unauthorizedRetryDelay > .zero
                    ? .reconnectNoSooner(than: settings.unauthorizedRetryDelay, because: .refused(errors)) : .reconnectNow
                return close(session, then: then, wasConnected: wasConnected, attempts: attempts)
            }
            return close(session, then: .fail(.unauthorized(errors)), wasConnected: wasConnected, attempts: attempts)
        case .rejected(let errors):
            return close(session, then: .fail(.rejected(errors)), wasConnected: wasConnected, attempts: attempts)
        case .retryable(let errors, let retryAfter?):
            return close(session, then: .reconnectNoSooner(than: retryAfter, because: .refused(errors)), wasConnected: wasConnected, attempts: attempts)
        case .retryable(let errors, nil):
            return close(session, then: .reconnect(because: .refused(errors)), wasConnected: wasConnected, attempts: attempts)
        }
    }

    /// The service confirmed a subscribe.
    package mutating func subscribeSucceeded(_ session: SessionID, id: String) -> [Action] {
        guard case .connected(session, _) = phase else { return [] }
        if unsubscribeWhenAcknowledged.remove(id) != nil {
            return [.cancelTimer(.subscribe(id)), .sendUnsubscribe(id: id)]
        }
        guard subscriptions[id]?.phase == .sent else { return [] }
        subscriptions[id]?.phase = .active
        subscriptions[id]?.rejections = 0
        return [.cancelTimer(.subscribe(id)), .publishSubscriptionStatus(id: id, .active)]
    }

    /// The service refused a subscribe (or no authorization could be had for it): it is tried
    /// again after the retry policy's delay, and reported either way.
    package mutating func subscribeRejected(_ session: SessionID, id: String, errors: [ServiceError]) -> [Action] {
        guard case .connected(session, _) = phase else { return [] }
        if unsubscribeWhenAcknowledged.remove(id) != nil { return [.cancelTimer(.subscribe(id))] }
        guard var subscription = subscriptions[id], subscription.phase == .sent else { return [] }
        subscription.rejections += 1
        var actions: [Action] = [.cancelTimer(.subscribe(id)), .count(.subscribeError)]
        if let delay = settings.subscribeRetryPolicy.delay(afterFailedAttempts: subscription.rejections) {
            subscription.phase = .retryWaiting
            actions += [.publishSubscriptionStatus(id: id, .rejected(errors)), .startTimer(.resubscribe(id), delay)]
        } else {
            subscription.phase = .failed
            actions.append(.publishSubscriptionStatus(id: id, .failed(errors)))
        }
        subscriptions[id] = subscription
        return actions
    }

    // MARK: Timers

    /// A timer the machine started fired. For `.keepAlive`, `silence` is how long ago the last frame
    /// arrived (the driver keeps that time, the machine keeps no clock).
    package mutating func timerFired(_ timer: Timer, silence: Duration = .zero) -> [Action] {
        switch (timer, phase) {
        case (.connect, .opening(let session, let attempts)):
            return [.count(.connectFailed(.timedOut)), .abortTransport(session)]
                + ended(session, then: .reconnect(because: .timedOut), wasConnected: false, attempts: attempts)
        case (.connect, .handshaking(let session, let attempts)):
            return [.count(.connectFailed(.timedOut))] + close(session, then: .reconnect(because: .timedOut), wasConnected: false, attempts: attempts)
        case (.keepAlive, .connected(let session, let keepAlive)):
            guard silence >= keepAlive else { return [.startTimer(.keepAlive, keepAlive - silence)] }
            return [.count(.keepAliveTimeout)] + close(session, then: .reconnect(because: .keepAliveTimeout), wasConnected: true, attempts: 0)
        case (.plannedReconnect, .connected(let session, _)):
            return close(session, then: .reconnectNow, wasConnected: true, attempts: 0)
        case (.reconnect, .waiting(let attempts)):
            pathShortcutTaken = false  // a full wait ran: the next may be cut short again
            return openSession(attempts: attempts)
        case (.pathReplacement, _):
            pathReplacementCooling = false
            guard pathChangeDeferred else { return [] }
            pathChangeDeferred = false
            // A session that carried traffic during the interval works on the path of the time:
            // kept, and the changes of one more interval are one again. Only a silent one is
            // probed (Server-Sent Events: replaced). A path that dies while changes keep coming is
            // found at the end of the next interval, or by the keep-alive watchdog.
            guard silence >= settings.pathReplacementInterval else {
                pathReplacementCooling = true
                return [.startTimer(.pathReplacement, settings.pathReplacementInterval)]
            }
            return probe(afterPathChange: true)
        case (.closeGrace, .closing(let session, let then, let wasConnected, let attempts)):
            return [.abortTransport(session)] + ended(session, then: then, wasConnected: wasConnected, attempts: attempts)
        case (.subscribe(let id), .connected(let session, _)):
            // An unanswered subscribe means the session is not healthy: a new one resubscribes everything.
            guard subscriptions[id]?.phase == .sent || unsubscribeWhenAcknowledged.contains(id) else { return [] }
            return close(session, then: .reconnect(because: .timedOut), wasConnected: true, attempts: 0)
        case (.resubscribe(let id), .connected):
            guard subscriptions[id]?.phase == .retryWaiting else { return [] }
            return send(id)
        case (.probe, .connected(let session, _)):
            guard let probe = probing, probe.session == session else { return [] }
            // Silence and no pong: the keep-alive failed, found sooner than by the silence bound.
            return (probe.afterPathChange ? [] : [.count(.keepAliveTimeout)]) + replaceDeadSession(session)
        case (.idlePing, .connected(let session, _)):
            guard let interval = settings.idlePingInterval, !cannotBePinged, probing?.session != session else { return [] }
            guard silence >= interval else { return [.startTimer(.idlePing, interval - silence)] }
            return probe(afterPathChange: false)
        case (.settled, .connected):
            settle()
            return []
        case (.quietRenewal, .opening(let session, _)), (.quietRenewal, .handshaking(let session, _)):
            // The new session is slow: it is not there yet, and the app is told so. The attempt
            // goes on; its acceptance is then published as any reconnect's.
            guard renewal == session else { return [] }
            return renewalFailed() + publish(.connecting)
        default:
            return []
        }
    }

    private mutating func settle() {
        unauthorizedRetryUsed = false
        attemptsBeforeSettling = 0
        pathShortcutTaken = false
    }

    // MARK: Transitions

    private mutating func openSession(attempts: Int, quietly: Bool = false) -> [Action] {
        guard networkAvailable else { return renewalFailed() + waitForNetwork(attempts: attempts) }
        nextSession += 1
        let session = SessionID(value: nextSession)
        phase = .opening(session, attempts: attempts)
        renewal = quietly ? session : nil
        let quietTime: [Action] = quietly ? [.startTimer(.quietRenewal, settings.quietRenewalLimit)] : []
        return (quietly ? [] : publish(.connecting)) + [.openTransport(session), .startTimer(.connect, settings.connectTimeout)] + quietTime
    }

    /// A renewal that did not get its session accepted: the subscriptions it kept quiet are told
    /// they wait for a session, before whatever state follows is published.
    private mutating func renewalFailed() -> [Action] {
        renewal = nil
        defer { quietlyPending.removeAll() }
        return quietlyPending.sorted().filter { subscriptions[$0] != nil }.map { .publishSubscriptionStatus(id: $0, .subscribing) }
    }

    private mutating func send(_ id: String) -> [Action] {
        guard let channel = subscriptions[id]?.channel else { return [] }
        subscriptions[id]?.phase = .sent
        return [
            .sendSubscribe(id: id, channel: channel),
            .startTimer(.subscribe(id), settings.operationTimeout),
            .publishSubscriptionStatus(id: id, .subscribing),
        ]
    }

    private mutating func close(_ session: SessionID, then: AfterClose, wasConnected: Bool, attempts: Int) -> [Action] {
        phase = .closing(session, then: then, wasConnected: wasConnected, attempts: attempts)
        return cancelSessionTimers() + [.closeTransport(session), .startTimer(.closeGrace, settings.closeGracePeriod)]
    }

    private func cancelSessionTimers() -> [Action] {
        var actions: [Action] = [
            .cancelTimer(.connect), .cancelTimer(.keepAlive), .cancelTimer(.plannedReconnect), .cancelTimer(.probe), .cancelTimer(.settled),
            .cancelTimer(.idlePing),
        ]
        for id in (Set(subscriptions.keys).union(unsubscribeWhenAcknowledged)).sorted() {
            actions += [.cancelTimer(.subscribe(id)), .cancelTimer(.resubscribe(id))]
        }
        return actions
    }

    /// The session is gone; every subscription waits for the next one (`quietly`: for the
    /// renewal's session, still showing what it showed).
    private mutating func endSession(_ session: SessionID, quietly: Bool = false) -> [Action] {
        unsubscribeWhenAcknowledged.removeAll()
        probing = nil
        var actions: [Action] = [.sessionEnded(session)]
        if renewal == session { actions += [.cancelTimer(.quietRenewal)] + renewalFailed() }
        for id in subscriptions.keys.sorted() where subscriptions[id]?.phase != .pending {
            let wasActive = subscriptions[id]?.phase == .active
            subscriptions[id]?.phase = .pending
            // Only what showed `.active` goes on showing it; a refused one is tried again and says so.
            if quietly && wasActive { quietlyPending.insert(id) } else { actions.append(.publishSubscriptionStatus(id: id, .subscribing)) }
        }
        return actions
    }

    private mutating func ended(_ session: SessionID, then: AfterClose, wasConnected: Bool, attempts: Int) -> [Action] {
        var actions = endSession(session, quietly: then == .renew)
        switch then {
        case .stop, .suspend:
            actions += rest(then)
        case .fail(let failure):
            actions += fail(failure)
        case .closedForGood(let end):
            phase = .disconnected
            closedForGood = end
            actions += publish(.closed(end))
            for id in subscriptions.keys.sorted() {
                actions.append(.publishSubscriptionStatus(id: id, .failed(end.finalCloseErrors)))
            }
        case .reconnectNow:
            actions.append(.count(.reconnect))
            actions += openSession(attempts: attempts)
        case .renew:
            actions += openSession(attempts: attempts, quietly: true)
        case .reconnect(let end), .reconnectNoSooner(_, let end):
            let failedAttempts = (wasConnected ? attemptsBeforeSettling : attempts) + 1
            lastEnd = end
            // Without a network path the next attempt waits for one, whatever the policy says.
            guard networkAvailable else { return actions + waitForNetwork(attempts: failedAttempts) }
            var minimum = Duration.zero
            if case .reconnectNoSooner(let noSooner, _) = then { minimum = noSooner }
            actions += waitToReconnect(attempts: failedAttempts, because: end, noSoonerThan: minimum)
        }
        return actions
    }

    /// Waits the reconnect policy's delay after `attempts` failed attempts in a row, or gives up.
    private mutating func waitToReconnect(attempts: Int, because end: ConnectionEnd, noSoonerThan minimum: Duration = .zero) -> [Action] {
        guard let policyDelay = settings.reconnectPolicy.delay(afterFailedAttempts: attempts) else { return fail(.gaveUp) }
        // The policy bounds how often; the service may ask for longer (SSE `retry:`, `Retry-After`).
        let delay = max(policyDelay, serverReconnectDelay ?? .zero, minimum)
        phase = .waiting(attempts: attempts)
        return publish(.reconnecting(after: delay, because: end)) + [.count(.reconnect), .startTimer(.reconnect, delay)]
    }

    /// The connection failed for good: so does every subscription, for the same reason (until
    /// `start()` connects again), so an app watching a subscription learns it without watching
    /// the connection.
    private mutating func fail(_ failure: ConnectionFailure) -> [Action] {
        phase = .failed(failure)
        var actions = publish(.failed(failure))
        for id in subscriptions.keys.sorted() {
            subscriptions[id]?.phase = .pending
            actions.append(.publishSubscriptionStatus(id: id, .failed(failure.serviceErrors)))
        }
        return actions
    }

    private mutating func publish(_ state: ConnectionState) -> [Action] {
        guard state != publishedState else { return [] }
        publishedState = state
        return [.publishState(state)]
    }
}
