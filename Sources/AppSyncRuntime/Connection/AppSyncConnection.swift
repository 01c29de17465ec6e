import ChannelRuntime
import Foundation
import Logging

/// One WebSocket to AppSync Events carrying many subscriptions, kept alive across drops.
///
/// The connection's life (reconnect, keep-alive, resubscription, closing within a bound) is
/// `ConnectionStateMachine`, a value shared by every transport; this actor speaks AppSync's wire
/// protocol and runs the machine's actions: it opens and closes sockets, sends frames, runs timers on
/// the injected clock and delivers events.
///
/// - `connection_init` → `connection_ack` (within `connectTimeout`), then every subscription is
///   (re)subscribed; `data` frames are routed by subscription id. A second ack is ignored.
/// - Nothing for `connectionTimeoutMs` ends the session; a planned reconnect happens before the 24 h
///   limit; after an abnormal end the reconnect policy's delay applies.
/// - A close the peer does not finish within `closeGracePeriod` closes the socket hard.
/// - A refused subscribe is reported and tried again with backoff; an authorization failure is
///   tried once more with credentials asked anew before ending in `.failed(.unauthorized)`.
/// - Malformed frames are logged, counted in `metrics` and dropped.
public actor AppSyncConnection: ChannelConnection {
    /// The settings the connection was made with.
    public nonisolated let configuration: AppSyncConfiguration
    /// Counters of frames, reconnects and per-channel events.
    public nonisolated let metrics: RuntimeMetrics
    /// Subscriptions per connection that AppSync allows.
    public static let maximumSubscriptions = 200
    /// The longest keep-alive silence accepted from `connection_ack` (1 hour; AppSync sends 5 minutes).
    public static let maximumKeepAliveTimeoutMs = 3_600_000
    /// The shortest keep-alive silence accepted from `connection_ack` (1 second).
    public static let minimumKeepAliveTimeoutMs = 1_000

    private let transport: any WebSocketTransport
    private let clock: RuntimeClock
    private let logger: Logger
    /// Error and warning lines: credentials taken out, repeats summarised.
    private let diagnostics: DiagnosticLog
    private var machine: ConnectionStateMachine

    /// The state and the subscriptions' statuses, with their observers.
    private let board = ConnectionStatusBoard()

    /// What the connection is doing now; `stateUpdates()` streams its changes.
    public var state: ConnectionState { board.connectionState }

    /// The socket of the current session, with the tasks that read and write it.
    private struct OpenSession {
        let id: ConnectionStateMachine.SessionID
        let socket: any WebSocketSession
        let outbox: AsyncStream<String>.Continuation
        let tasks: [Task<Void, Never>]
    }

    private var opening: (id: ConnectionStateMachine.SessionID, task: Task<Void, Never>)?
    private var session: OpenSession?
    private var lastFrameAt: Duration = .zero

    private struct Sink {
        let channel: String
        let continuation: BatchedStream<RawChannelEvent>.Continuation
        let counter: RuntimeMetrics.ChannelCounter
    }

    private var sinks: [String: Sink] = [:]
    /// The last event's sequence number (`RawChannelEvent.sequence`).
    private var sequence = 0
    /// Names each subscription (`sub1`, `sub2`, …): unique on the connection as AppSync requires,
    /// and short enough (at most 15 bytes) to be a Swift small string, so reading it from every
    /// `data` frame allocates nothing.
    private var subscriptionsMade = 0
    private var timers = MachineTimers()

    private var pendingPublishes: [String: (continuation: CheckedContinuation<PublishResult, any Error>, timeout: Task<Void, Never>, sentAt: Duration)] = [:]

    /// A connection that does nothing until `start()`.
    ///
    /// - Parameters:
    ///   - configuration: the endpoint, authorization and timing.
    ///   - transport: the WebSocket client (`WSClientTransport` by default).
    ///   - clock: the clock every delay and timeout uses (inject one in tests).
    ///   - metrics: where counters go.
    ///   - logger: where diagnostics go; tokens never reach it.
    public init(
        configuration: AppSyncConfiguration,
        transport: any WebSocketTransport = WSClientTransport(),
        clock: some Clock<Duration> = ContinuousClock(),
        metrics: RuntimeMetrics = RuntimeMetrics(),
        logger: Logger = Logger(label: "AppSyncRuntime.AppSyncConnection")
    ) {
        self.configuration = configuration
        self.transport = transport
        self.clock = RuntimeClock(clock)
        self.metrics = metrics
        self.logger = logger
        self.diagnostics = DiagnosticLog(logger: logger, clock: self.clock)
        self.machine = ConnectionStateMachine(settings: configuration.machineSettings)
    }

    // MARK: Lifecycle

    /// Starts connecting (and keeps reconnecting); does nothing when already running.
    public func start() {
        run(machine.start())
    }

    /// Ends the connection with no reconnect (the app's own disconnect or sign-out) and returns once
    /// the socket is closed: at the latest after `closeGracePeriod`, when a peer that does not answer
    /// the close is cut off. Subscriptions stay registered, so their streams resume after the next
    /// `start()`.
    public func disconnect() async {
        run(machine.stop())
        await board.waitUntilStopped()
    }

    /// For the app going to the background: closes the socket (returning once it is closed, at the
    /// latest after `closeGracePeriod`) and does not reconnect until `resume()`. Subscriptions and
    /// their streams stay open.
    public func suspend() async {
        run(machine.suspend())
        await board.waitUntilStopped()
    }

    /// For the app coming back to the foreground: connects at once (no reconnect delay, also when
    /// one is running) and resubscribes every stream. `ChannelEventHub.updates(_:)` consumers get
    /// `.resumed(after:)` once their subscription is active again, so they can catch up.
    public func resume() {
        run(machine.resume())
    }

    /// Connection states, starting with the current one.
    public func stateUpdates() -> AsyncStream<ConnectionState> { board.connectionStateUpdates() }

    // MARK: Running the machine

    private func run(_ actions: [ConnectionStateMachine.Action]) {
        for action in actions { perform(action) }
    }

    private func perform(_ action: ConnectionStateMachine.Action) {
        switch action {
        case .openTransport(let id):
            opening = (id, Task { await self.open(id) })
        case .sendHandshake(let id):
            guard let session, session.id == id else { return }
            lastFrameAt = clock.now()
            session.outbox.yield(ClientMessage.connectionInit.encoded())
        case .sendSubscribe(let id, let channel):
            guard let session else { return }
            Task { await self.sendSubscribe(id, channel: channel, on: session.id) }
        case .sendUnsubscribe(let id):
            session?.outbox.yield(ClientMessage.unsubscribe(id: id).encoded())
        case .closeTransport(let id):
            guard let session, session.id == id else { return }
            session.outbox.finish()
            Task { await session.socket.close() }
        case .abortTransport(let id):
            abort(id)
        case .startTimer(let timer, let delay):
            timers.start(timer, after: delay, on: clock) { timer, token in await self.timerFired(timer, token: token) }
        case .cancelTimer(let timer):
            timers.cancel(timer)
        case .sessionEnded(let id):
            if session?.id == id { abort(id) }
            for id in pendingPublishes.keys.sorted() { finishPublish(id, with: .failure(AppSyncError.connectionLost)) }
        case .publishState(let newState):
            board.publish(newState, log: diagnostics)
        case .publishSubscriptionStatus(let id, let status):
            if sinks[id] != nil { board.setStatus(status, of: id) }
        case .count(let metric):
            metrics.count(metric, log: diagnostics, silence: "frame within connectionTimeoutMs")
        }
    }

    // MARK: Transport

    private func open(_ id: ConnectionStateMachine.SessionID) async {
        guard await configuration.isSignedIn() else {
            logger.debug("signed out; waiting before connecting")
            opening = nil
            run(machine.signedOut(id))
            return
        }
        let socket: any WebSocketSession
        do {
            let headers = try await configuration.authorization.headers(for: AuthorizationRequest(operation: .connect, endpoint: configuration.endpoint))
            let subprotocols = [AppSyncAuthorization.eventSubprotocol, AppSyncAuthorization.headerSubprotocol(headers)]
            diagnostics.setSecrets(AppSyncAuthorization.secrets(in: headers) + [subprotocols[1]])
            socket = try await transport.connect(to: configuration.endpoint.realtime, subprotocols: subprotocols)
        } catch {
            if opening?.id == id { opening = nil }
            if !(error is CancellationError) { diagnostics.error("connect failed", metadata: ["error": "\(error)"]) }
            run(machine.transportFailed(id))
            return
        }
        if opening?.id == id { opening = nil }
        guard machine.currentSession == id else {
            // The connect timed out or the app stopped meanwhile: this socket is of no use.
            socket.abort()
            return
        }
        let (outbox, outboxContinuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .unbounded)
        let writer = Task { [logger] in
            for await text in outbox {
                do { try await socket.send(text) } catch {
                    // The server may already have closed (after a `connection_error`): its frames are still read.
                    logger.debug("sending a frame failed", metadata: ["error": "\(error)"])
                }
            }
        }
        let reader = Task {
            if let frames = (socket as? any BatchedInboundSession)?.inboundReader {
                while let text = await frames.next() { self.received(text, on: id) }
            } else {
                for await text in socket.inbound { self.received(text, on: id) }
            }
            self.transportEnded(id)
        }
        session = OpenSession(id: id, socket: socket, outbox: outboxContinuation, tasks: [writer, reader])
        run(machine.transportOpened(id))
    }

    private func transportEnded(_ id: ConnectionStateMachine.SessionID) {
        guard let session, session.id == id else { return }
        self.session = nil
        session.outbox.finish()
        run(machine.transportClosed(id))
    }

    /// Closes at once: an open in flight is cancelled, the socket is closed without a handshake and
    /// nothing more is read from it.
    private func abort(_ id: ConnectionStateMachine.SessionID) {
        if let opening, opening.id == id {
            opening.task.cancel()
            self.opening = nil
        }
        guard let session, session.id == id else { return }
        self.session = nil
        session.outbox.finish()
        session.socket.abort()
        for task in session.tasks { task.cancel() }
    }

    // MARK: Timers

    private func timerFired(_ timer: ConnectionStateMachine.Timer, token: Int) {
        guard timers.take(timer, token: token) else { return }
        if case .connect = timer, !machine.isConnected { diagnostics.error("no connection_ack in time; closing the connection") }
        if case .subscribe = timer { diagnostics.error("no reply to subscribe in time; reconnecting") }
        run(machine.timerFired(timer, silence: clock.now() - lastFrameAt))
    }

    // MARK: Frames

    /// Hands a `data` frame's events to their subscription's stream, in order.
    private func deliver(_ events: some Collection<String>, to subscription: String) {
        guard let sink = sinks[subscription] else {
            metrics.update { $0.unknownSubscriptionFrames += 1 }
            logger.debug("dropping data for an unknown subscription", metadata: ["id": "\(subscription)"])
            return
        }
        sink.counter.received(events.count)
        let receivedAt = Date()
        for event in events {
            sequence += 1
            sink.continuation.send(RawChannelEvent(text: event, sequence: sequence, receivedAt: receivedAt))
        }
    }

    private func received(_ text: String, on id: ConnectionStateMachine.SessionID) {
        guard session?.id == id else { return }
        lastFrameAt = clock.now()
        metrics.countFrame()
        let message: ServerMessage
        switch ServerMessage.readFrequent(text) {
        case .event(let subscription, let event): return deliver(CollectionOfOne(event), to: subscription)
        case .events(let subscription, let events): return deliver(events, to: subscription)
        case .keepAlive: return
        case nil: break
        }
        do {
            message = try ServerMessage.decodeAny(text)
        } catch {
            metrics.update { $0.malformedFrames += 1 }
            diagnostics.error("dropping a malformed frame", metadata: ["error": "\(error)", "bytes": "\(text.utf8.count)"])
            return
        }
        switch message {
        case .data(let subscription, let events):
            deliver(events, to: subscription)
        case .connectionAck(let timeoutMs):
            run(machine.sessionAccepted(id, keepAliveTimeout: timeoutMs.map { .milliseconds($0) }))
        case .keepAlive:
            break
        case .connectionError(let errors):
            diagnostics.error("connection_error", metadata: ["errors": "\(errors)"])
            let refusal: ConnectionStateMachine.Refusal = errors.contains(where: \.isAuthorizationFailure)
                ? .unauthorized(errors) : (errors.contains(where: \.isNonRetryable) ? .rejected(errors) : .retryable(errors))
            run(machine.sessionRefused(id, refusal))
        case .subscribeSuccess(let subscription):
            run(machine.subscribeSucceeded(id, id: subscription))
        case .subscribeError(let subscription, let errors):
            diagnostics.error("subscribe rejected", metadata: ["channel": "\(sinks[subscription]?.channel ?? "?")", "errors": "\(errors)"])
            run(machine.subscribeRejected(id, id: subscription, errors: errors))
        case .unsubscribeSuccess, .unsubscribeError:
            break
        case .publishSuccess(let publish, let result):
            finishPublish(publish, with: .success(result))
        case .publishError(let publish, let errors):
            finishPublish(publish, with: .failure(AppSyncError.service(errors)))
        case .broadcastError(let subscription, let errors):
            diagnostics.error("broadcast_error", metadata: ["channel": "\(sinks[subscription]?.channel ?? "?")", "errors": "\(errors)"])
        case .error(let operation, let errors):
            diagnostics.error("error", metadata: ["errors": "\(errors)"])
            if let operation { finishPublish(operation, with: .failure(AppSyncError.service(errors))) }
        case .unknown(let type):
            metrics.update { $0.unknownMessageTypes += 1 }
            logger.debug("dropping a message of unknown type", metadata: ["type": "\(type)"])
        }
    }

    // MARK: Subscriptions

    /// A subscription's id and its stream of raw event JSON texts.
    public typealias RawSubscription = RawChannelSubscription

    /// Subscribes to `channel`. The stream stays open across reconnects (every active subscription
    /// is resubscribed); `unsubscribe(_:)` or the consumer stopping ends it.
    public func subscribe(to channel: String) async throws(AppSyncError) -> RawSubscription {
        do { try ChannelPathError.check(channel, rules: .appSyncEvents, allowingWildcard: true) } catch { throw .invalidChannel(error) }
        guard sinks.count < Self.maximumSubscriptions else {
            throw .subscriptionLimitReached(Self.maximumSubscriptions)
        }
        subscriptionsMade += 1
        let id = "sub\(subscriptionsMade)"
        let (stream, continuation, reader) = BatchedStream<RawChannelEvent>.makeStreamAndReader()
        continuation.onTermination = { _ in Task { await self.unsubscribe(id) } }
        sinks[id] = Sink(channel: channel, continuation: continuation, counter: metrics.counter(forChannel: channel))
        run(machine.subscribe(id: id, channel: channel))
        return RawSubscription(id: id, channel: channel, events: stream, reader: reader)
    }

    private func sendSubscribe(_ id: String, channel: String, on session: ConnectionStateMachine.SessionID) async {
        let headers: [String: String]
        do {
            headers = try await configuration.authorization.headers(
                for: AuthorizationRequest(operation: .subscribe(channel: channel), endpoint: configuration.endpoint))
            diagnostics.setSecrets(AppSyncAuthorization.secrets(in: headers))
        } catch {
            diagnostics.error("no authorization for subscribe", metadata: ["channel": "\(channel)", "error": "\(error)"])
            let failure = ServiceError(errorType: "AuthorizationProviderFailed", message: "the authorization provider failed")
            run(machine.subscribeRejected(session, id: id, errors: [failure]))
            return
        }
        // The provider may have suspended: the session or the subscription may be gone by now.
        guard let current = self.session, current.id == session, machine.isConnected, sinks[id] != nil else { return }
        current.outbox.yield(ClientMessage.subscribe(id: id, channel: channel, authorization: headers).encoded())
    }

    /// Ends a subscription: its stream finishes and, when connected, `unsubscribe` is sent.
    public func unsubscribe(_ id: String) async {
        guard let sink = sinks.removeValue(forKey: id) else { return }
        sink.continuation.finish()
        run(machine.unsubscribe(id: id))
        board.forget(id)
    }

    /// Channels with a live subscription (sent, acknowledged), for diagnostics.
    public var acknowledgedChannels: [String] {
        sinks.filter { machine.isActive($0.key) }.map(\.value.channel).sorted()
    }

    /// Where the subscription `id` stands now; `nil` once it ended.
    public func status(ofSubscription id: String) -> SubscriptionStatus? { board.status(of: id) }

    /// The statuses of subscription `id`, starting with the current one; finishes when it ends.
    public func statusUpdates(ofSubscription id: String) -> AsyncStream<SubscriptionStatus> { board.statusUpdates(of: id) }

    // MARK: Publish

    /// Publishes 1–5 events (each a JSON text) over the WebSocket; per-event results come back.
    public func publish(_ events: [String], to channel: String) async throws(AppSyncError) -> PublishResult {
        guard (1...5).contains(events.count) else { throw .invalidPublish("a publish carries 1 to 5 events, not \(events.count)") }
        do { try ChannelPathError.check(channel, rules: .appSyncEvents, allowingWildcard: false) } catch { throw .invalidChannel(error) }
        guard machine.isConnected, let session else { throw .notConnected }
        let headers: [String: String]
        do {
            headers = try await configuration.authorization.headers(
                for: AuthorizationRequest(operation: .publish(channel: channel, events: events), endpoint: configuration.endpoint))
        } catch {
            throw .invalidPublish("authorization failed: \(error)")
        }
        guard self.session?.id == session.id, machine.isConnected else { throw .connectionLost }
        let id = UUID().uuidString
        let clock = self.clock
        let timeout = configuration.operationTimeout
        do {
            return try await withCheckedThrowingContinuation { continuation in
                let timer = Task {
                    do { try await clock.sleep(for: timeout) } catch { return }
                    self.finishPublish(id, with: .failure(AppSyncError.timedOut))
                }
                pendingPublishes[id] = (continuation, timer, clock.now())
                session.outbox.yield(ClientMessage.publish(id: id, channel: channel, events: events, authorization: headers).encoded())
            }
        } catch let error as AppSyncError {
            throw error
        } catch {
            throw .connectionLost
        }
    }

    private func finishPublish(_ id: String, with result: Result<PublishResult, any Error>) {
        guard let pending = pendingPublishes.removeValue(forKey: id) else { return }
        pending.timeout.cancel()
        if case .success = result { metrics.recordPublish(clock.now() - pending.sentAt) }
        pending.continuation.resume(with: result)
    }
}

extension AppSyncConfiguration {
    /// The connection machine's settings from these.
    var machineSettings: ConnectionStateMachine.Settings {
        ConnectionStateMachine.Settings(
            reconnectPolicy: reconnectPolicy,
            subscribeRetryPolicy: subscribeRetryPolicy,
            signedOutRetryInterval: signedOutRetryInterval,
            connectTimeout: connectTimeout,
            operationTimeout: operationTimeout,
            defaultKeepAliveTimeout: defaultKeepAliveTimeout,
            keepAliveRange: .milliseconds(AppSyncConnection.minimumKeepAliveTimeoutMs) ... .milliseconds(AppSyncConnection.maximumKeepAliveTimeoutMs),
            plannedReconnectInterval: plannedReconnectInterval,
            closeGracePeriod: closeGracePeriod,
            retriesUnauthorizedOnce: true
        )
    }
}

extension AppSyncConnection: ChannelPublishing {
    /// `publish(_:to:)` for the hub's typed publish: a refused event is an error naming it.
    public func publishEvents(_ events: [String], to channel: String) async throws {
        let result = try await publish(events, to: channel)
        if let failure = result.failed.first {
            throw AppSyncError.invalidPublish("event \(failure.index) was refused: \(failure.message ?? failure.code ?? "no reason given")")
        }
    }
}
