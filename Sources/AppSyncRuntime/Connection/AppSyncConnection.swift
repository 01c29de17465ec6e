import ChannelRuntime
import Foundation
import Logging

/// One WebSocket to AppSync Events carrying many subscriptions, kept alive across drops.
///
/// - `connection_init` → `connection_ack` (with a timeout), then every active subscription is
///   (re)subscribed; `data` frames are routed by subscription id.
/// - A keep-alive watchdog ends a connection that was silent for `connectionTimeoutMs`; a planned
///   reconnect happens before the 24 h limit; after an abnormal end the reconnect policy's delay
///   applies. `disconnect()` ends it with no reconnect; non-retryable auth failures end in `.failed`.
/// - Malformed frames are logged, counted in `metrics` and dropped.
public actor AppSyncConnection {
    /// The settings the connection was made with.
    public nonisolated let configuration: AppSyncConfiguration
    /// Counters of frames, reconnects and per-channel events.
    public nonisolated let metrics: RuntimeMetrics
    /// Subscriptions per connection that AppSync allows.
    public static let maximumSubscriptions = 200
    /// The longest keep-alive silence accepted from `connection_ack` (1 hour; AppSync sends 5 minutes).
    public static let maximumKeepAliveTimeoutMs = 3_600_000

    private let transport: any WebSocketTransport
    private let clock: RuntimeClock
    private let logger: Logger

    /// What the connection is doing now; `stateUpdates()` streams its changes.
    public private(set) var state: ConnectionState = .idle
    private var observers: [UUID: AsyncStream<ConnectionState>.Continuation] = [:]

    private struct Subscription {
        var channel: String
        var continuation: AsyncStream<String>.Continuation
        var isAcknowledged = false
    }

    private var subscriptions: [String: Subscription] = [:]
    /// Ids unsubscribed before their `subscribe_success` arrived: AppSync ignores such an
    /// `unsubscribe`, so it is sent once the success comes in.
    private var unsubscribeWhenAcknowledged: Set<String> = []
    private var pendingPublishes: [String: CheckedContinuation<PublishResult, any Error>] = [:]

    // The current session (one per WebSocket).
    private var session: (any WebSocketSession)?
    private var generation = 0
    private var isConnected = false
    private var lastFrameAt: Duration = .zero
    private var keepAliveTimeout: Duration = .zero
    private var endReason: EndReason?
    private var timers: [Task<Void, Never>] = []
    private var operationTimers: [String: Task<Void, Never>] = [:]

    private var runTask: Task<Void, Never>?
    private var stopRequested = false

    private enum EndReason {
        case dropped
        case planned
        case failed(ConnectionFailure)
    }

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
    }

    // MARK: Lifecycle

    /// Starts connecting (and keeps reconnecting); does nothing when already running.
    public func start() {
        guard runTask == nil else { return }
        stopRequested = false
        runTask = Task { await self.run() }
    }

    /// Ends the connection with no reconnect (the app's own disconnect or sign-out). Subscriptions
    /// stay registered, so their streams resume after the next `start()`.
    public func disconnect() async {
        stopRequested = true
        let task = runTask
        runTask?.cancel()
        await session?.close()
        await task?.value
        runTask = nil
        setState(.disconnected)
    }

    /// Connection states, starting with the current one.
    public func stateUpdates() -> AsyncStream<ConnectionState> {
        let (stream, continuation) = AsyncStream.makeStream(of: ConnectionState.self, bufferingPolicy: .unbounded)
        let id = UUID()
        observers[id] = continuation
        continuation.yield(state)
        continuation.onTermination = { _ in Task { await self.removeObserver(id) } }
        return stream
    }

    private func removeObserver(_ id: UUID) { observers[id] = nil }

    private func setState(_ newState: ConnectionState) {
        guard newState != state else { return }
        state = newState
        logger.debug("connection state", metadata: ["state": "\(newState)"])
        for observer in observers.values { observer.yield(newState) }
    }

    private func run() async {
        var failedAttempts = 0
        while !stopRequested && !Task.isCancelled {
            guard await configuration.isSignedIn() else {
                setState(.reconnecting(after: configuration.signedOutRetryInterval))
                logger.debug("signed out; waiting before connecting")
                do { try await clock.sleep(for: configuration.signedOutRetryInterval) } catch { break }
                continue
            }
            setState(.connecting)
            let (reason, wasConnected) = await runSession()
            if stopRequested || Task.isCancelled { break }
            switch reason {
            case .failed(let failure):
                logger.error("connection failed for good", metadata: ["reason": "\(failure)"])
                setState(.failed(failure))
                runTask = nil
                return
            case .planned:
                failedAttempts = 0
                metrics.update { $0.reconnects += 1 }
                logger.debug("planned reconnect before the connection time limit")
            case .dropped:
                failedAttempts = wasConnected ? 1 : failedAttempts + 1
                guard let delay = configuration.reconnectPolicy.delay(afterFailedAttempts: failedAttempts) else {
                    setState(.failed(.gaveUp))
                    runTask = nil
                    return
                }
                setState(.reconnecting(after: delay))
                metrics.update { $0.reconnects += 1 }
                do { try await clock.sleep(for: delay) } catch { break }
            }
        }
        if !stopRequested { setState(.disconnected) }
    }

    /// One WebSocket from connect to end; returns why it ended and whether it got connected.
    private func runSession() async -> (EndReason, Bool) {
        generation += 1
        let current = generation
        endReason = nil
        isConnected = false
        defer { endSession() }

        let session: any WebSocketSession
        do {
            let headers = try await configuration.authorization.headers(for: AuthorizationRequest(operation: .connect, endpoint: configuration.endpoint))
            let subprotocols = [AppSyncAuthorization.eventSubprotocol, AppSyncAuthorization.headerSubprotocol(headers)]
            session = try await withTimeout(configuration.connectTimeout) { [transport, configuration] in
                try await transport.connect(to: configuration.endpoint.realtime, subprotocols: subprotocols)
            }
        } catch {
            logger.error("connect failed", metadata: ["error": "\(error)"])
            return (.dropped, false)
        }
        guard !stopRequested else {
            await session.close()
            return (.dropped, false)
        }
        self.session = session
        lastFrameAt = clock.now()
        startTimer(after: configuration.connectTimeout) { connection in
            await connection.ackTimedOut(current)
        }
        do {
            try await session.send(ClientMessage.connectionInit.encoded())
        } catch {
            // The server may already have closed after a `connection_error`: still read what it sent.
            logger.debug("sending connection_init failed", metadata: ["error": "\(error)"])
        }
        for await text in session.inbound {
            await handle(text, generation: current)
        }
        return (endReason ?? .dropped, isConnected)
    }

    private func endSession() {
        for timer in timers { timer.cancel() }
        timers.removeAll()
        for timer in operationTimers.values { timer.cancel() }
        operationTimers.removeAll()
        for continuation in pendingPublishes.values { continuation.resume(throwing: AppSyncError.connectionLost) }
        pendingPublishes.removeAll()
        for id in subscriptions.keys { subscriptions[id]?.isAcknowledged = false }
        unsubscribeWhenAcknowledged.removeAll()
        session = nil
        isConnected = false
    }

    private func ackTimedOut(_ current: Int) async {
        guard current == generation, session != nil, !isConnected else { return }
        logger.error("no connection_ack in time; closing the connection")
        await session?.close()
    }

    // MARK: Frames

    private func handle(_ text: String, generation current: Int) async {
        lastFrameAt = clock.now()
        metrics.update { $0.framesReceived += 1 }
        let message: ServerMessage
        do {
            message = try ServerMessage.decode(text)
        } catch {
            metrics.update { $0.malformedFrames += 1 }
            logger.error("dropping a malformed frame", metadata: ["error": "\(error)", "bytes": "\(text.utf8.count)"])
            return
        }
        switch message {
        case .connectionAck(let timeoutMs):
            isConnected = true
            // Clamped: a server announcing 10^12 ms (or a negative value) must not disable the watchdog.
            keepAliveTimeout = timeoutMs.map { .milliseconds(min(max($0, 0), Self.maximumKeepAliveTimeoutMs)) }
                ?? configuration.defaultKeepAliveTimeout
            setState(.connected)
            startKeepAliveWatchdog(current)
            startTimer(after: configuration.plannedReconnectInterval) { connection in
                await connection.planReconnect(current)
            }
            for id in subscriptions.keys.sorted() { await sendSubscribe(id, generation: current) }
        case .keepAlive:
            break
        case .connectionError(let errors):
            let failure: ConnectionFailure? = errors.contains(where: \.isAuthorizationFailure)
                ? .unauthorized(errors) : (errors.contains(where: \.isNonRetryable) ? .rejected(errors) : nil)
            logger.error("connection_error", metadata: ["errors": "\(errors)"])
            if let failure { endReason = .failed(failure) }
            await session?.close()
        case .data(let id, let events):
            guard let subscription = subscriptions[id] else {
                metrics.update { $0.unknownSubscriptionFrames += 1 }
                logger.debug("dropping data for an unknown subscription", metadata: ["id": "\(id)"])
                return
            }
            metrics.channel(subscription.channel) { $0.received += events.count }
            for event in events { subscription.continuation.yield(event) }
        case .subscribeSuccess(let id):
            operationTimers.removeValue(forKey: id)?.cancel()
            if unsubscribeWhenAcknowledged.remove(id) != nil {
                try? await session?.send(ClientMessage.unsubscribe(id: id).encoded())
            } else {
                subscriptions[id]?.isAcknowledged = true
                logger.trace("subscribed", metadata: ["channel": "\(subscriptions[id]?.channel ?? "?")"])
            }
        case .subscribeError(let id, let errors):
            operationTimers.removeValue(forKey: id)?.cancel()
            metrics.update { $0.subscribeErrors += 1 }
            logger.error("subscribe rejected", metadata: ["channel": "\(subscriptions[id]?.channel ?? "?")", "errors": "\(errors)"])
        case .unsubscribeSuccess(let id), .unsubscribeError(let id, _):
            operationTimers.removeValue(forKey: id)?.cancel()
        case .publishSuccess(let id, let result):
            operationTimers.removeValue(forKey: id)?.cancel()
            pendingPublishes.removeValue(forKey: id)?.resume(returning: result)
        case .publishError(let id, let errors):
            operationTimers.removeValue(forKey: id)?.cancel()
            pendingPublishes.removeValue(forKey: id)?.resume(throwing: AppSyncError.service(errors))
        case .broadcastError(let id, let errors):
            logger.error("broadcast_error", metadata: ["channel": "\(subscriptions[id]?.channel ?? "?")", "errors": "\(errors)"])
        case .error(let id, let errors):
            logger.error("error", metadata: ["errors": "\(errors)"])
            if let id, let publish = pendingPublishes.removeValue(forKey: id) {
                operationTimers.removeValue(forKey: id)?.cancel()
                publish.resume(throwing: AppSyncError.service(errors))
            }
        case .unknown(let type):
            metrics.update { $0.unknownMessageTypes += 1 }
            logger.debug("dropping a message of unknown type", metadata: ["type": "\(type)"])
        }
    }

    // MARK: Timers

    private func startTimer(after delay: Duration, _ body: @escaping @Sendable (AppSyncConnection) async -> Void) {
        let clock = self.clock
        timers.append(Task {
            do { try await clock.sleep(for: delay) } catch { return }
            await body(self)
        })
    }

    private func startKeepAliveWatchdog(_ current: Int) {
        let clock = self.clock
        timers.append(Task {
            while let deadline = self.keepAliveDeadline(current) {
                do { try await clock.sleepUntil(deadline) } catch { return }
                if await self.keepAliveExpired(current) { return }
            }
        })
    }

    private func keepAliveDeadline(_ current: Int) -> Duration? {
        current == generation && session != nil ? lastFrameAt + keepAliveTimeout : nil
    }

    private func keepAliveExpired(_ current: Int) async -> Bool {
        guard current == generation, session != nil else { return true }
        guard clock.now() >= lastFrameAt + keepAliveTimeout else { return false }
        metrics.update { $0.keepAliveTimeouts += 1 }
        logger.error("no frame within connectionTimeoutMs; reconnecting", metadata: ["timeout": "\(keepAliveTimeout)"])
        endReason = .dropped
        await session?.close()
        return true
    }

    private func planReconnect(_ current: Int) async {
        guard current == generation, session != nil else { return }
        endReason = .planned
        await session?.close()
    }

    private func startOperationTimer(_ id: String, generation current: Int, what: String) {
        let clock = self.clock
        let timeout = configuration.operationTimeout
        operationTimers[id] = Task {
            do { try await clock.sleep(for: timeout) } catch { return }
            await self.operationTimedOut(id, generation: current, what: what)
        }
    }

    private func operationTimedOut(_ id: String, generation current: Int, what: String) async {
        guard current == generation, operationTimers.removeValue(forKey: id) != nil else { return }
        if let publish = pendingPublishes.removeValue(forKey: id) {
            publish.resume(throwing: AppSyncError.timedOut)
            return
        }
        // An unanswered subscribe means the connection is not healthy: reconnecting resubscribes everything.
        logger.error("no reply to \(what) in time; reconnecting")
        endReason = .dropped
        await session?.close()
    }

    // MARK: Subscriptions

    /// A subscription's id and its stream of raw event JSON texts.
    public struct RawSubscription: Sendable {
        /// The subscription id used on the wire.
        public let id: String
        /// The concrete channel path.
        public let channel: String
        /// Each event's JSON text, in arrival order.
        public let events: AsyncStream<String>
    }

    /// Subscribes to `channel`. The stream stays open across reconnects (every active subscription
    /// is resubscribed); `unsubscribe(_:)` or the consumer stopping ends it.
    public func subscribe(to channel: String) async throws(AppSyncError) -> RawSubscription {
        guard subscriptions.count < Self.maximumSubscriptions else {
            throw .subscriptionLimitReached(Self.maximumSubscriptions)
        }
        let id = UUID().uuidString
        let (stream, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .unbounded)
        continuation.onTermination = { _ in Task { await self.unsubscribe(id) } }
        subscriptions[id] = Subscription(channel: channel, continuation: continuation)
        if isConnected { await sendSubscribe(id, generation: generation) }
        return RawSubscription(id: id, channel: channel, events: stream)
    }

    private func sendSubscribe(_ id: String, generation current: Int) async {
        guard let channel = subscriptions[id]?.channel else { return }
        let headers: [String: String]
        do {
            headers = try await configuration.authorization.headers(
                for: AuthorizationRequest(operation: .subscribe(channel: channel), endpoint: configuration.endpoint))
        } catch {
            logger.error("no authorization for subscribe; retrying after the next reconnect", metadata: ["error": "\(error)"])
            return
        }
        // The provider may have suspended: the session or the subscription may be gone by now.
        guard current == generation, isConnected, let session, subscriptions[id] != nil else { return }
        do {
            try await session.send(ClientMessage.subscribe(id: id, channel: channel, authorization: headers).encoded())
            startOperationTimer(id, generation: current, what: "subscribe")
        } catch {
            logger.error("sending subscribe failed", metadata: ["error": "\(error)"])
        }
    }

    /// Ends a subscription: its stream finishes and, when connected, `unsubscribe` is sent.
    public func unsubscribe(_ id: String) async {
        guard let subscription = subscriptions.removeValue(forKey: id) else { return }
        subscription.continuation.finish()
        guard isConnected, let session else { return }
        if subscription.isAcknowledged {
            try? await session.send(ClientMessage.unsubscribe(id: id).encoded())
        } else {
            unsubscribeWhenAcknowledged.insert(id)
        }
    }

    /// Channels with a live subscription (sent, acknowledged), for diagnostics.
    public var acknowledgedChannels: [String] {
        subscriptions.values.filter(\.isAcknowledged).map(\.channel).sorted()
    }

    // MARK: Publish

    /// Publishes 1–5 events (each a JSON text) over the WebSocket; per-event results come back.
    public func publish(_ events: [String], to channel: String) async throws(AppSyncError) -> PublishResult {
        guard (1...5).contains(events.count) else { throw .invalidPublish("a publish carries 1 to 5 events, not \(events.count)") }
        guard isConnected, let session else { throw .notConnected }
        let current = generation
        let headers: [String: String]
        do {
            headers = try await configuration.authorization.headers(
                for: AuthorizationRequest(operation: .publish(channel: channel, events: events), endpoint: configuration.endpoint))
        } catch {
            throw .invalidPublish("authorization failed: \(error)")
        }
        guard current == generation else { throw .connectionLost }
        let id = UUID().uuidString
        do {
            return try await withCheckedThrowingContinuation { continuation in
                pendingPublishes[id] = continuation
                startOperationTimer(id, generation: current, what: "publish")
                Task {
                    do {
                        try await session.send(ClientMessage.publish(id: id, channel: channel, events: events, authorization: headers).encoded())
                    } catch {
                        self.failPublish(id)
                    }
                }
            }
        } catch let error as AppSyncError {
            throw error
        } catch {
            throw .connectionLost
        }
    }

    private func failPublish(_ id: String) {
        operationTimers.removeValue(forKey: id)?.cancel()
        pendingPublishes.removeValue(forKey: id)?.resume(throwing: AppSyncError.connectionLost)
    }

    // MARK: Helpers

    private func withTimeout<T: Sendable>(_ timeout: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let clock = self.clock
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await clock.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else { throw AppSyncError.timedOut }
            return value
        }
    }
}
