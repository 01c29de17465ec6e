import ChannelNaming
import ChannelTransports
import Foundation
import Logging

/// The connection every transport shares: it runs `ConnectionStateMachine`'s actions (sessions,
/// timers on the injected clock, statuses) and owns the subscriptions and their streams. A `Wire`
/// adds only what differs between transports: how a session is opened, what is sent, and what the
/// frames it reads mean.
///
/// One event's path: the wire session's `receive` reads a frame on this actor and hands it over
/// as a `WireInput`; `deliver` sends it to its subscription's `BatchedStream`, which the event hub reads.
package actor ConnectionDriver {
    package struct Settings: Sendable {
        package var machine: ConnectionStateMachine.Settings
        package var isSignedIn: @Sendable () async -> Bool
        /// The rules every subscribed channel path is checked by.
        package var channelRules: ChannelNamingRules
        /// Subscriptions at most (the service's limit per connection).
        package var maximumSubscriptions: Int
        /// How long subscription changes are gathered before a wire that carries a channel set in its
        /// session (`SubscribeReply.needsNewSession`) opens a new one.
        package var renewalDelay: Duration
        /// The channel of the one own stream (a job's) this driver runs; `nil`: the connection's
        /// shared stream. Its log lines speak of that stream, not of the connection.
        package var ownStream: String?

        package init(
            machine: ConnectionStateMachine.Settings, isSignedIn: @escaping @Sendable () async -> Bool, channelRules: ChannelNamingRules,
            maximumSubscriptions: Int = .max, renewalDelay: Duration = .zero
        ) {
            self.machine = machine
            self.isSignedIn = isSignedIn
            self.channelRules = channelRules
            self.maximumSubscriptions = maximumSubscriptions
            self.renewalDelay = renewalDelay
        }
    }

    /// Why a subscribe was refused before anything was sent.
    package enum SubscribeRefusal: Error {
        case invalidChannel(ChannelPathError)
        case limitReached(Int)
    }

    package nonisolated let metrics: RuntimeMetrics
    private let wire: any Wire
    private let settings: Settings
    private let clock: RuntimeClock
    private let diagnostics: DiagnosticLog
    private var machine: ConnectionStateMachine
    private let board = ConnectionStatusBoard()
    private var timers = MachineTimers()

    private struct OpenSession {
        let id: ConnectionStateMachine.SessionID
        let wire: any WireSession
        let reader: ChildStop
    }

    /// The connection's one root task and the children it runs (`ConnectionTasks`): from the first
    /// `start()` to the `disconnect()` that ends it.
    private var root: ConnectionRoot?
    /// Roots a `disconnect()` is ending: a second `disconnect()` waits for them as well.
    private var endingRoots = EndingRoots()
    /// What a subscription's end, told from any thread, reaches without a hop.
    private nonisolated let outside = LockedValue(Outside())

    private struct Outside: Sendable {
        /// The root's children while a root runs.
        var children: ConnectionTasks?
        /// Subscriptions whose stream ended while no root ran: applied when the driver next acts
        /// (`settleEndedWhileStopped()`), before it reads or changes its subscriptions.
        var endedWhileStopped: [String] = []
    }
    private var opening: (id: ConnectionStateMachine.SessionID, stop: ChildStop)?
    private var session: OpenSession? {
        didSet { refreshConnectedWire() }
    }
    /// The connected session, readable without a hop onto this actor: a publish asks for it twice.
    private nonisolated let connectedWire = LockedValue<(any WireSession)?>(nil)
    private var lastActivityAt: Duration = .zero
    /// When the current attempt to connect began (the transport was asked to open), until the
    /// service accepts it: the connect timer's start.
    private var attemptStartedAt: Duration?
    /// The current session's attempt start, until its first event: the first-event timer's start.
    private var firstEventFrom: Duration?
    /// The pending renewal (`SubscribeReply.needsNewSession`) and the session it renews.
    private var renewal: (session: ConnectionStateMachine.SessionID, stop: ChildStop)?

    private struct Sink {
        let channel: String
        let route: ChannelRoute
        let continuation: BatchedStream<RawChannelEvent>.Continuation
        let counter: RuntimeMetrics.ChannelCounter
    }

    private var sinks: [String: Sink] = [:]
    /// What each subscription's events may hold while they wait to be decoded: a server can send
    /// faster than they decode (a `data` frame may carry an array of events), and without a bound
    /// the wait grows without limit (3 GB in 32 s from 173 MB on the wire). Each event weighs its
    /// bytes plus its bookkeeping; the oldest are dropped, counted and logged.
    package static let undecodedLimit = (events: 10_000, bytes: 8 << 20)
    /// The last event's sequence number (`RawChannelEvent.sequence`).
    private var sequence = 0
    /// Names each subscription (`sub1`, `sub2`, …): unique on the connection, and short enough
    /// (at most 15 bytes) to be a Swift small string, so reading it from a frame allocates nothing.
    private var subscriptionsMade = 0

    deinit {
        root?.children.end()
    }

    package init(wire: any Wire, settings: Settings, clock: RuntimeClock, metrics: RuntimeMetrics, logger: Logger) {
        self.wire = wire
        self.settings = settings
        self.clock = clock
        self.metrics = metrics
        metrics.name(transport: wire.vocabulary.transport)
        self.diagnostics = DiagnosticLog(logger: logger, clock: clock)
        self.machine = ConnectionStateMachine(settings: settings.machine)
    }

    // MARK: Lifecycle

    package func start() {
        settleEndedWhileStopped()
        _ = children
        run(machine.start())
    }

    /// Ends the subscriptions whose stream ended while no root ran (nothing went on the wire then).
    private func settleEndedWhileStopped() {
        let ended = outside.withLock { outside in
            defer { outside.endedWhileStopped.removeAll() }
            return outside.endedWhileStopped
        }
        for id in ended { unsubscribe(id) }
    }

    /// Runs the connection in the calling task: its root is this call, so every task of the
    /// connection is a child of the caller's. Returns when `disconnect()` ends it or a final event
    /// stops it; cancelling the calling task cuts the session off at once (no close handshake) and
    /// returns once every child ended; throws when the connection ends for good (it failed, or the
    /// service closed it), or when it runs already.
    package func run() async throws(ConnectionRunError) {
        guard root == nil else { throw .alreadyRunning }
        let root = ConnectionRoot.runByCaller()
        self.root = root
        outside.withLock { $0.children = root.children }
        start()
        await root.children.run()
        if Task.isCancelled { run(machine.abort()) }
        if self.root?.children === root.children {
            self.root = nil
            outside.withLock { $0.children = nil }
        }
        switch machine.state {
        case .failed(let failure): throw .failed(failure)
        case .closed(let end): throw .closed(end)
        default: return
        }
    }

    /// Stops the connection (its transport closed, at the latest after the close grace period), then
    /// ends the root: once this returns, no task of the connection is alive (unless `start()` was
    /// called again meanwhile).
    package func disconnect() async {
        await stop(machine.stop())
    }

    /// Stops the connection at once: a session is cut off without a close handshake. Once this
    /// returns, no task of the connection is alive.
    package func abort() async {
        await stop(machine.abort())
    }

    private func stop(_ actions: [ConnectionStateMachine.Action]) async {
        settleEndedWhileStopped()
        run(actions)
        await board.waitUntilStopped()
        // A `start()` while this waited keeps the connection, and its root, running.
        guard machine.state == .disconnected else { return }
        if root != nil { outside.withLock { $0.children = nil } }
        let roots = endingRoots.adding(root)
        root = nil
        for root in roots { await root.end() }
        endingRoots.ended(roots)
    }

    /// The root's children, the root started first when there is none.
    private var children: ConnectionTasks {
        if let root { return root.children }
        let root = ConnectionRoot.start()
        self.root = root
        outside.withLock { $0.children = root.children }
        return root.children
    }

    /// Tasks of this connection alive now: the root and its children, and roots being ended (a testing hook).
    package var liveTasks: Int { (root?.liveTasks ?? 0) + endingRoots.liveTasks }

    /// `disconnect()` calls waiting for the connection's roots to end (a testing hook).
    package var disconnectsWaiting: Int { endingRoots.waiting }

    package func suspend() async {
        run(machine.suspend())
        await board.waitUntilStopped()
    }

    package func resume() {
        settleEndedWhileStopped()
        run(machine.resume())
    }

    package func networkPathChanged(available: Bool) {
        diagnostics.info("network path changed", metadata: ["available": "\(available)"])
        run(machine.networkPathChanged(available: available))
    }

    package var state: ConnectionState { board.connectionState }

    /// See `Wire.forgetResumption()`.
    package nonisolated func forgetResumption() { wire.forgetResumption() }

    package func stateUpdates() -> AsyncStream<ConnectionState> { board.connectionStateUpdates() }

    /// Yields to `continuation` at each change of this driver's board (see `ConnectionStatusBoard`).
    package nonisolated func observeChanges(_ continuation: AsyncStream<Void>.Continuation) -> @Sendable () -> Void {
        board.observeChanges(continuation)
    }

    package nonisolated func followStates(_ listener: @escaping @Sendable (ConnectionState) -> Void) -> @Sendable () -> Void {
        board.followStates(listener)
    }

    /// Whether `session` is the current session and connected (for a wire's own requests, such as
    /// a publish, made through the session the wire opened).
    package nonisolated func isConnected(_ session: any WireSession) -> Bool {
        connectedWire.withLock { $0 === session }
    }

    private func refreshConnectedWire() {
        let wire = machine.isConnected ? session?.wire : nil
        connectedWire.withLock { $0 = wire }
    }

    // MARK: Running the machine

    private func run(_ actions: [ConnectionStateMachine.Action]) {
        for action in actions { perform(action) }
        refreshConnectedWire()
    }

    private func perform(_ action: ConnectionStateMachine.Action) {
        switch action {
        case .openTransport(let id):
            let stop = ChildStop()
            opening = (id, stop)
            children.add(stoppedBy: stop) { await self.open(id) }
        case .sendHandshake(let id):
            guard let session, session.id == id else { return }
            lastActivityAt = clock.now()
            session.wire.sendHandshake()
        case .sendSubscribe(let id, let channel):
            guard let session else { return }
            children.add { await self.subscribe(id, channel: channel, on: session) }
        case .sendUnsubscribe(let id):
            session?.wire.unsubscribe(id)
        case .sendProbe(let id):
            guard let session, session.id == id else { return }
            children.add { await self.probe(session) }
        case .closeTransport(let id):
            guard let session, session.id == id else { return }
            session.wire.close()
        case .abortTransport(let id):
            abort(id)
        case .startTimer(let timer, let delay):
            timers.start(timer, after: delay, on: clock, in: children) { timer, token in await self.timerFired(timer, token: token) }
        case .cancelTimer(let timer):
            timers.cancel(timer)
        case .sessionEnded(let id):
            abort(id)
        case .publishState(let newState):
            board.publish(newState, log: diagnostics, ownStream: settings.ownStream)
            // A connection the app's `run()` runs ends with it: that call returns (or throws).
            if newState.isEnded, let root, root.isRunByCaller { root.children.end() }
        case .publishSubscriptionStatus(let id, let status):
            guard let sink = sinks[id], board.setStatus(status, of: id) else { return }
            // And in the subscription's stream, after the events that came before it.
            let dropped = send(RawChannelEvent(status: status, sequence: 0), to: sink)
            if dropped > 0 { noteUndecodedOverflow(dropped, of: sink) }
        case .count(let metric):
            metrics.count(metric, log: diagnostics, silence: wire.vocabulary.keepAlive)
            if metric == .connectSucceeded, let started = attemptStartedAt {
                metrics.recordConnect(clock.now() - started)
                attemptStartedAt = nil
            }
        }
    }

    // MARK: Sessions

    private func open(_ id: ConnectionStateMachine.SessionID) async {
        guard await settings.isSignedIn() else {
            diagnostics.debug("signed out: the connection stops until start()")
            opening = nil
            run(machine.signedOut(id))
            return
        }
        let startedAt = clock.now()
        attemptStartedAt = startedAt
        metrics.update { $0.connectAttempts += 1 }
        let opened: any WireSession
        do {
            let context = WireContext(metrics: metrics, diagnostics: diagnostics, clock: clock, children: children)
            opened = try await wire.openSession(channels: Set(sinks.values.map(\.channel)), context: context)
        } catch {
            if opening?.id == id { opening = nil }
            // Cancelled: the machine gave the open up, or the root ends; it knows already.
            guard !(error is CancellationError || Task.isCancelled) else { return }
            diagnostics.error("connect failed", metadata: ["error": "\(error)"])
            run(error is TransportConnectTimedOut ? machine.transportTimedOut(id) : machine.transportFailed(id, "\(error)"))
            return
        }
        if opening?.id == id { opening = nil }
        guard machine.currentSession == id else {
            // The connect timed out or the app stopped meanwhile: this session is of no use.
            opened.abort()
            return
        }
        let reader = ChildStop()
        children.add(stoppedBy: reader) { await self.read(opened, id) }
        session = OpenSession(id: id, wire: opened, reader: reader)
        firstEventFrom = startedAt
        lastActivityAt = clock.now()
        run(machine.transportOpened(id))
    }

    /// Reads `session` until it ends: every frame is handled on this actor as it is read.
    private func read(_ session: any WireSession, _ id: ConnectionStateMachine.SessionID) async {
        let end = await session.receive { input in self.handle(input, on: id) }
        // Cancelled, the session did not end by itself: it was cut off (`abort(_:)`), or the root
        // ends (a cancelled `run()` cuts it off next). Nothing to tell the machine.
        guard !Task.isCancelled else { return }
        transportEnded(id, end)
    }

    private func transportEnded(_ id: ConnectionStateMachine.SessionID, _ end: ConnectionEnd) {
        guard let session, session.id == id else { return }
        self.session = nil
        if machine.isRenewing {
            diagnostics.debug("the stream of the previous channel set ended")
        } else {
            diagnostics.info("the connection ended", metadata: ["reason": "\(end)"])
        }
        run(machine.transportClosed(id, end))
    }

    /// Closes at once: an open in flight is cancelled, the session is closed without a handshake and
    /// nothing more is read from it.
    private func abort(_ id: ConnectionStateMachine.SessionID) {
        if let opening, opening.id == id {
            opening.stop.stop()
            self.opening = nil
        }
        guard let session, session.id == id else { return }
        self.session = nil
        session.wire.abort()
        session.reader.stop()
    }

    /// Asks `session` whether it is alive; the machine's probe timer bounds the wait.
    private func probe(_ session: OpenSession) async {
        let answer = await session.wire.probe()
        guard self.session?.id == session.id, !Task.isCancelled else { return }
        switch answer {
        case .answered:
            run(machine.probeAnswered(session.id))
        case .failed:
            diagnostics.info("the liveness ping could not be sent; replacing the connection")
            run(machine.probeFailed(session.id))
        case .cannotTell:
            if machine.isProbingAfterPathChange {
                diagnostics.info("the connection cannot prove it is alive after a network path change; replacing it")
            } else {
                diagnostics.info("this connection cannot be pinged: a dead one is found by the keep-alive bound alone")
            }
            run(machine.probeCannotTell(session.id))
        }
    }

    private func timerFired(_ timer: ConnectionStateMachine.Timer, token: Int) {
        guard timers.take(timer, token: token) else { return }
        if case .connect = timer, !machine.isConnected { diagnostics.error("no \(wire.vocabulary.acceptance) in time; closing the connection") }
        if case .subscribe = timer { diagnostics.error("no reply to subscribe in time; reconnecting") }
        if case .probe = timer {
            let after = machine.isProbingAfterPathChange ? "a network path change" : "silence"
            diagnostics.info("no answer to the liveness ping after \(after); replacing the connection")
        }
        if session?.wire.isIdle == true { lastActivityAt = clock.now() }
        run(machine.timerFired(timer, silence: clock.now() - lastActivityAt))
    }

    // MARK: Inputs

    private func handle(_ input: WireInput, on id: ConnectionStateMachine.SessionID) {
        guard session?.id == id else { return }
        switch input {
        case .activity:
            lastActivityAt = clock.now()
            // Traffic after a path change proves the session alive as well as a pong would.
            if machine.isProbing { run(machine.probeAnswered(id)) }
        case .event(let text, let subscription):
            deliver(CollectionOfOne(text), to: subscription)
        case .events(let texts, let subscription):
            deliver(texts, to: subscription)
        case .channelEvent(let text, let channel, let name, let eventID):
            deliver(text, on: channel, name: name, id: eventID)
        case .inBandError(let text, let channel, let name, let eventID, let refusal):
            deliver(text, on: channel, name: name, id: eventID)
            diagnostics.error("the service sent an error on the stream", metadata: ["channel": "\(channel)", "refusal": "\(refusal)"])
            run(machine.sessionRefused(id, refusal))
        case .finished:
            finishForGood()
        case .accepted(let keepAliveTimeout):
            run(machine.sessionAccepted(id, keepAliveTimeout: keepAliveTimeout))
        case .refused(let refusal):
            run(machine.sessionRefused(id, refusal))
        case .subscribed(let subscription):
            run(machine.subscribeSucceeded(id, id: subscription))
        case .subscribeRejected(let subscription, let errors):
            diagnostics.error("subscribe rejected", metadata: ["channel": "\(sinks[subscription]?.channel ?? "?")", "errors": "\(errors)"])
            run(machine.subscribeRejected(id, id: subscription, errors: errors))
        case .reconnectDelay(let delay):
            machine.serviceAskedForReconnectDelay(delay)
        }
    }

    /// After a final event: every subscription's stream finishes (its consumers still read what it
    /// holds) and the connection stops, so nothing reopens the stream.
    private func finishForGood() {
        diagnostics.info("the stream ended with its final event; not reconnecting")
        for id in sinks.keys.sorted() { unsubscribe(id) }
        run(machine.stop())
    }

    /// Hands a frame's events to their subscription's stream, in order.
    private func deliver(_ events: some Collection<String>, to subscription: String) {
        guard let sink = sinks[subscription] else {
            return dropUnrouted("an unknown subscription", subscription)
        }
        sink.counter.received(events.count)
        if firstEventFrom != nil { recordFirstEvent() }
        let receivedAt = Date()
        var overflowed = 0
        for event in events {
            sequence += 1
            overflowed += send(RawChannelEvent(text: event, sequence: sequence, receivedAt: receivedAt), to: sink)
        }
        if overflowed > 0 { noteUndecodedOverflow(overflowed, of: sink) }
    }

    /// Buffers `element` for its subscription's reader; returns how many events the bound dropped
    /// for it (a status dropped with them is not counted: it rides on the next event).
    private func send(_ element: RawChannelEvent, to sink: Sink) -> Int {
        var statusesDropped = 0
        let dropped = sink.continuation.send(element, weight: element.weight) { next, gone in
            RawChannelEvent.markGap(&next, gone)
            for event in gone where event.status?.alone == true { statusesDropped += 1 }
        }
        return max(0, dropped - statusesDropped)
    }

    private func noteUndecodedOverflow(_ count: Int, of sink: Sink) {
        metrics.channel(sink.channel) { $0.overflowed += count }
        diagnostics.warning("events arrive faster than they are decoded; dropping the oldest waiting ones", metadata: [
            "channel": "\(sink.channel)", "limit": "\(Self.undecodedLimit.events) events, \(Self.undecodedLimit.bytes) bytes",
        ])
    }

    /// Hands an event to every subscription whose channel matches `channel`.
    private func deliver(_ event: String, on channel: String, name: String?, id: String?) {
        let normalized = ChannelRoute.normalized(channel)
        let targets = sinks.values.filter { $0.route.matches(normalized) }
        guard !targets.isEmpty else { return dropUnrouted("no subscribed channel", channel) }
        if firstEventFrom != nil { recordFirstEvent() }
        sequence += 1
        var raw = RawChannelEvent(text: event, sequence: sequence, receivedAt: Date())
        raw.eventName = name
        raw.id = id
        for sink in targets {
            sink.counter.received(1)
            let dropped = send(raw, to: sink)
            if dropped > 0 { noteUndecodedOverflow(dropped, of: sink) }
        }
    }

    /// The session's first event came: how long after its attempt began.
    private func recordFirstEvent() {
        guard let from = firstEventFrom else { return }
        firstEventFrom = nil
        metrics.recordFirstEvent(clock.now() - from)
    }

    private func dropUnrouted(_ reason: String, _ target: String) {
        metrics.update { $0.unknownSubscriptionFrames += 1 }
        diagnostics.debug("dropping data for \(reason)", metadata: ["target": "\(target)"])
    }

    // MARK: Subscriptions

    package func subscribe(to channel: String) throws(SubscribeRefusal) -> RawChannelSubscription {
        do { try ChannelPathError.check(channel, rules: settings.channelRules, allowingWildcard: true) } catch { throw .invalidChannel(error) }
        settleEndedWhileStopped()
        guard sinks.count < settings.maximumSubscriptions else { throw .limitReached(settings.maximumSubscriptions) }
        subscriptionsMade += 1
        let id = "sub\(subscriptionsMade)"
        // The stream an app reads holds events only; the hub's reader gets the statuses among them.
        let (stream, continuation, reader) = BatchedStream<RawChannelEvent>.makeStreamAndReader(
            bufferingPolicy: .bufferingNewest(Self.undecodedLimit.events), weightLimit: Self.undecodedLimit.bytes,
            streamSkips: { $0.status?.alone == true })
        continuation.onTermination = { [board] _ in
            let unsubscribe: ConnectionTasks.Work = { await self.unsubscribe(id) }
            let children = self.outside.withLock { outside in
                if outside.children == nil { outside.endedWhileStopped.append(id) }
                return outside.children
            }
            if let children {
                guard !children.add(unsubscribe) else { return }
                // The root ended between the two: no root runs now.
                self.outside.withLock { $0.endedWhileStopped.append(id) }
            }
            // No root runs (never started, or disconnected): nothing goes on the wire, and the
            // driver applies the end when it next acts; the status says so at once.
            board.forget(id)
        }
        sinks[id] = Sink(channel: channel, route: ChannelRoute(channel), continuation: continuation, counter: metrics.counter(forChannel: channel))
        run(machine.subscribe(id: id, channel: channel))
        var subscription = RawChannelSubscription(id: id, channel: channel, events: stream, reader: reader)
        subscription.carriesStatuses = true
        return subscription
    }

    private func subscribe(_ id: String, channel: String, on session: OpenSession) async {
        let reply = await session.wire.subscribe(id, to: channel)
        // The wire may have suspended (for credentials): the session or the subscription may be gone.
        guard self.session?.id == session.id, sinks[id] != nil, !Task.isCancelled else { return }
        switch reply {
        case .send(let send):
            if machine.isConnected { send() }
        case .active:
            run(machine.subscribeSucceeded(session.id, id: id))
        case .needsNewSession:
            // One renewal per session: the changes gathered meanwhile go with it. One pending for
            // an earlier session (that ended before it fired) must not hold this one back.
            if let renewal, renewal.session == session.id { return }
            renewal?.stop.stop()
            let clock = self.clock
            let delay = settings.renewalDelay
            let stop = ChildStop()
            renewal = (session.id, stop)
            children.add(stoppedBy: stop) {
                do { try await clock.sleep(for: delay) } catch { return }
                await self.renew(session.id)
            }
        case .failed(let errors):
            run(machine.subscribeRejected(session.id, id: id, errors: errors))
        }
    }

    private func renew(_ id: ConnectionStateMachine.SessionID) {
        guard renewal?.session == id else { return }
        renewal = nil
        diagnostics.info("the channel set changed: reopening the stream with it", metadata: ["channels": "\(Set(sinks.values.map(\.channel)).count)"])
        run(machine.renewSession(id))
    }

    package func unsubscribe(_ id: String) {
        guard let sink = sinks.removeValue(forKey: id) else { return }
        sink.continuation.finish()
        run(machine.unsubscribe(id: id))
        board.forget(id)
    }

    package var acknowledgedChannels: [String] {
        settleEndedWhileStopped()
        return sinks.filter { machine.isActive($0.key) }.map(\.value.channel).sorted()
    }

    package func status(ofSubscription id: String) -> SubscriptionStatus? { board.status(of: id) }

    package func statusUpdates(ofSubscription id: String) -> AsyncStream<SubscriptionStatus> { board.statusUpdates(of: id) }
}
