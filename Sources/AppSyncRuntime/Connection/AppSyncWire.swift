import ChannelRuntime
import ChannelTransports
import Foundation
import Logging

/// AppSync Events' WebSocket protocol as a `Wire`: authorization in a subprotocol,
/// `connection_init` → `connection_ack`, a subscribe per subscription id, `data` frames routed by id,
/// and publishes answered by id.
struct AppSyncWire: Wire {
    let configuration: AppSyncConfiguration
    let transport: any WebSocketTransport
    private let opened = LockedValue(LastSession())

    private struct LastSession {
        weak var session: AppSyncSession?
    }

    init(configuration: AppSyncConfiguration, transport: any WebSocketTransport) {
        self.configuration = configuration
        self.transport = transport
    }

    /// The last session this wire opened, while the driver keeps it; publishes go through it when
    /// the driver says it is connected.
    var lastSession: AppSyncSession? { opened.withLock { $0.session } }

    var vocabulary: WireVocabulary { WireVocabulary(transport: "websocket", acceptance: "connection_ack", keepAlive: "frame within connectionTimeoutMs") }

    func openSession(channels: Set<String>, context: WireContext) async throws -> any WireSession {
        let headers = try await configuration.authorization.headers(for: AuthorizationRequest(operation: .connect, endpoint: configuration.endpoint))
        let subprotocols = [ChannelAuthorization.eventSubprotocol, ChannelAuthorization.headerSubprotocol(headers)]
        context.diagnostics.setSecrets(ChannelAuthorization.secrets(in: headers) + [subprotocols[1]])
        let socket = try await transport.connect(to: configuration.endpoint.realtime, subprotocols: subprotocols, tasks: TransportTasks(context.children))
        let session = AppSyncSession(socket: socket, configuration: configuration, context: context)
        opened.withLock { $0.session = session }
        return session
    }
}

/// One WebSocket to AppSync Events.
final class AppSyncSession: WireSession {
    private let socket: any WebSocketSession
    private let configuration: AppSyncConfiguration
    private let context: WireContext
    private let outbox: OutboundQueue

    private struct Pending {
        let continuation: CheckedContinuation<PublishResult, any Error>
        let sentAt: Duration
        /// Whether its frame was handed to the socket (then a time-out cannot take it back).
        var written = false
    }

    private struct State {
        var publishes: [String: Pending] = [:]
        /// Each waiting publish's deadline, in the order they were sent (which is the deadlines'
        /// order: every publish waits the same `operationTimeout`). Answered ones are skipped.
        var deadlines: [(id: String, at: Duration)] = []
        var firstDeadline = 0
        /// The sweeper of late publishes is started with the first publish (many sessions have none).
        var sweeperStarted = false
        /// The sweeper, while it waits for a publish to wait for.
        var sweeperWaiting: CheckedContinuation<Void, Never>?
        /// Each subscription's channel, for log lines.
        var channels: [String: String] = [:]
        var ended = false

        /// The oldest deadline of a publish still waiting, answered ones dropped on the way.
        mutating func oldestDeadline() -> (id: String, at: Duration)? {
            while firstDeadline < deadlines.count, publishes[deadlines[firstDeadline].id] == nil { firstDeadline += 1 }
            if firstDeadline >= 1_024, firstDeadline * 2 >= deadlines.count {
                deadlines.removeFirst(firstDeadline)
                firstDeadline = 0
            }
            return firstDeadline < deadlines.count ? deadlines[firstDeadline] : nil
        }
    }

    private let state = LockedValue(State())

    init(socket: any WebSocketSession, configuration: AppSyncConfiguration, context: WireContext) {
        self.socket = socket
        self.configuration = configuration
        self.context = context
        let outbox = OutboundQueue(maximumPublishBytes: configuration.maximumQueuedPublishBytes)
        self.outbox = outbox
        let diagnostics = context.diagnostics
        let state = self.state
        // A child that ends with the outbox: a close sends what is queued first, an abort finishes
        // the outbox and fails the socket's send at once.
        context.children.add {
            while let frame = await outbox.next() {
                defer { outbox.done(with: frame) }
                // A publish that timed out before its turn is never sent: the app was told it failed.
                if case .publish(let id, _) = frame, !Self.markWritten(id, in: state) { continue }
                do { try await socket.send(frame.text) } catch {
                    // The server may already have closed (after a `connection_error`): its frames are still read.
                    diagnostics.debug("sending a frame failed", metadata: ["error": "\(error)"])
                }
            }
        }
    }

    /// Marks a publish's frame as written; false when it is no longer waiting (timed out).
    private static func markWritten(_ id: String, in state: LockedValue<State>) -> Bool {
        state.withLock { state in
            guard state.publishes[id] != nil else { return false }
            state.publishes[id]?.written = true
            return true
        }
    }

    var isIdle: Bool { false }

    func probe() async -> ProbeAnswer {
        do {
            try await socket.ping()
            return .answered
        } catch is WebSocketPingUnsupported {
            return .cannotTell
        } catch {
            return .failed
        }
    }

    nonisolated(nonsending) func receive(_ handle: (WireInput) -> Void) async -> ConnectionEnd {
        if let frames = (socket as? any BatchedInboundSession)?.inboundReader {
            while let text = await frames.next() { read(text, handle) }
        } else {
            for await text in socket.inbound { read(text, handle) }
        }
        end()
        guard let close = socket.peerClose else { return .dropped }
        return .closed(code: close.code, reason: close.reason)
    }

    func sendHandshake() {
        outbox.enqueue(.control(ClientMessage.connectionInit.encoded()))
    }

    func subscribe(_ id: String, to channel: String) async -> SubscribeReply {
        let headers: [String: String]
        do {
            headers = try await configuration.authorization.headers(
                for: AuthorizationRequest(operation: .subscribe(channel: channel), endpoint: configuration.endpoint))
            context.diagnostics.setSecrets(ChannelAuthorization.secrets(in: headers))
        } catch {
            context.diagnostics.error("no authorization for subscribe", metadata: ["channel": "\(channel)", "error": "\(error)"])
            return .failed([ServiceError(errorType: "AuthorizationProviderFailed", message: "the authorization provider failed")])
        }
        let frame = ClientMessage.subscribe(id: id, channel: channel, authorization: headers).encoded()
        return .send { [state, outbox] in
            state.withLock { $0.channels[id] = channel }
            outbox.enqueue(.control(frame))
        }
    }

    func unsubscribe(_ id: String) {
        outbox.enqueue(.control(ClientMessage.unsubscribe(id: id).encoded()))
    }

    func close() {
        outbox.finish()
        context.children.add { [socket] in await socket.close() }
    }

    func abort() {
        socket.abort()
        end()
    }

    /// Nothing more is sent; publishes still waiting fail.
    private func end() {
        outbox.finish()
        let (waiting, sweeper) = state.withLock { state in
            state.ended = true
            defer {
                state.publishes = [:]
                state.deadlines = []
                state.sweeperWaiting = nil
            }
            return (state.publishes, state.sweeperWaiting)
        }
        // A sweeper asleep until a deadline sees the end then; one waiting for a publish, now.
        sweeper?.resume()
        for id in waiting.keys.sorted() { finish(waiting[id]!, with: .failure(AppSyncError.connectionLost)) }
    }

    // MARK: Frames

    private func read(_ text: String, _ handle: (WireInput) -> Void) {
        handle(.activity)
        context.metrics.countFrame()
        if context.diagnostics.traces { trace(text) }
        switch ServerMessage.readFrequent(text) {
        case .event(let subscription, let event): return handle(.event(event, subscription: subscription))
        case .events(let subscription, let events): return handle(.events(events, subscription: subscription))
        case .keepAlive: return
        case nil: break
        }
        let message: ServerMessage
        do {
            message = try ServerMessage.decodeAny(text)
        } catch {
            context.metrics.update { $0.malformedFrames += 1 }
            context.diagnostics.error("dropping a malformed frame", metadata: ["error": "\(error)", "bytes": "\(text.utf8.count)"])
            return
        }
        switch message {
        case .data(let subscription, let events):
            handle(.events(events, subscription: subscription))
        case .connectionAck(let timeoutMs):
            handle(.accepted(keepAliveTimeout: timeoutMs.map { .milliseconds($0) }))
        case .keepAlive, .unsubscribeSuccess, .unsubscribeError:
            break
        case .connectionError(let errors):
            context.diagnostics.error("connection_error", metadata: ["errors": "\(errors)"])
            let refusal: ConnectionStateMachine.Refusal = errors.contains(where: \.isAuthorizationFailure)
                ? .unauthorized(errors) : (errors.contains(where: \.isNonRetryable) ? .rejected(errors) : .retryable(errors))
            handle(.refused(refusal))
        case .subscribeSuccess(let subscription):
            handle(.subscribed(subscription))
        case .subscribeError(let subscription, let errors):
            handle(.subscribeRejected(subscription, errors))
        case .publishSuccess(let publish, let result):
            finishPublish(publish, with: .success(result))
        case .publishError(let publish, let errors):
            finishPublish(publish, with: .failure(AppSyncError.service(errors)))
        case .broadcastError(let subscription, let errors):
            let channel = state.withLock { $0.channels[subscription] } ?? "?"
            context.diagnostics.error("broadcast_error", metadata: ["channel": "\(channel)", "errors": "\(errors)"])
        case .error(let operation, let errors):
            context.diagnostics.error("error", metadata: ["errors": "\(errors)"])
            if let operation {
                finishPublish(operation, with: .failure(AppSyncError.service(errors)))
            } else if errors.contains(where: \.isAuthorizationFailure) {
                handle(.refused(.unauthorized(errors)))  // about the connection: as a connection_error says it
            }
        case .unknown(let type):
            context.metrics.update { $0.unknownMessageTypes += 1 }
            context.diagnostics.debug("dropping a message of unknown type", metadata: ["type": "\(type)"])
        }
    }

    /// The trace line of one frame: its type, its subscription's or publish's id and its size,
    /// read from the top level only; never the events it carries.
    private func trace(_ frame: String) {
        var metadata: Logger.Metadata = ["bytes": "\(frame.utf8.count)"]
        metadata["type"] = "\(((try? JSONReader.peekString(forKey: "type", in: frame)) ?? nil) ?? "?")"
        if let id = (try? JSONReader.peekString(forKey: "id", in: frame)) ?? nil { metadata["id"] = "\(id)" }
        context.diagnostics.trace("frame", metadata: metadata)
    }

    // MARK: Publish

    /// Sends a publish and waits for its answer, at most `operationTimeout`.
    func publish(_ events: [String], to channel: String, authorization headers: [String: String]) async throws -> PublishResult {
        let id = UUID().uuidString
        let clock = context.clock
        let timeout = configuration.operationTimeout
        let frame = ClientMessage.publish(id: id, channel: channel, events: events, authorization: headers).encoded()
        return try await withCheckedThrowingContinuation { continuation in
            let (registered, sweeper, startSweeper) = state.withLock { state -> (Bool, CheckedContinuation<Void, Never>?, Bool) in
                guard !state.ended else { return (false, nil, false) }
                let now = clock.now()
                state.publishes[id] = Pending(continuation: continuation, sentAt: now)
                state.deadlines.append((id, now + timeout))
                defer {
                    state.sweeperWaiting = nil
                    state.sweeperStarted = true
                }
                return (true, state.sweeperWaiting, !state.sweeperStarted)
            }
            sweeper?.resume()
            if startSweeper { context.children.add { [weak self] in await self?.sweepLatePublishes() } }
            guard registered else {
                return continuation.resume(throwing: AppSyncError.connectionLost)
            }
            switch outbox.enqueue(.publish(id: id, text: frame)) {
            case .queued: break
            case .full: finishPublish(id, with: .failure(AppSyncError.sendQueueFull(bytes: outbox.maximumPublishBytes)))
            case .finished: finishPublish(id, with: .failure(AppSyncError.connectionLost))
            }
        }
    }

    /// Publishes sent (or queued) and not yet answered, failed or timed out.
    var publishesAwaitingAnswer: Int { state.withLock { $0.publishes.count } }

    /// Fails publishes whose answer is late, as their deadlines come. One child for the session, not
    /// a timer per publish: every publish waits the same `operationTimeout` on one clock, so their
    /// deadlines come in the order they were sent and the sweeper sleeps until the oldest one's.
    private func sweepLatePublishes() async {
        while let oldest = await oldestWaitingPublish() {
            do { try await context.clock.sleepUntil(oldest.at) } catch { return }
            publishTimedOut(oldest.id)
        }
    }

    /// The oldest publish still waiting for its answer; waits for one when none does, `nil` once the
    /// session ended or the sweeper is stopped.
    private func oldestWaitingPublish() async -> (id: String, at: Duration)? {
        while !Task.isCancelled {
            let next: (id: String, at: Duration)?? = state.withLock { state in
                state.ended ? .some(nil) : state.oldestDeadline().map { .some($0) }
            }
            if let next { return next }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let now = state.withLock { state in
                        let ready = state.ended || state.oldestDeadline() != nil || Task.isCancelled
                        if !ready { state.sweeperWaiting = continuation }
                        return ready
                    }
                    if now { continuation.resume() }
                }
            } onCancel: {
                state.withLock { state in
                    defer { state.sweeperWaiting = nil }
                    return state.sweeperWaiting
                }?.resume()
            }
        }
        return nil
    }

    /// No answer in time: `.timedOut` when the frame is still queued (it is never sent now),
    /// `.timedOutAfterSending` when it went out (the service may still deliver the events).
    private func publishTimedOut(_ id: String) {
        guard let pending = state.withLock({ $0.publishes.removeValue(forKey: id) }) else { return }
        finish(pending, with: .failure(pending.written ? AppSyncError.timedOutAfterSending : AppSyncError.timedOut))
    }

    private func finishPublish(_ id: String, with result: Result<PublishResult, any Error>) {
        guard let pending = state.withLock({ $0.publishes.removeValue(forKey: id) }) else { return }
        finish(pending, with: result)
    }

    private func finish(_ pending: Pending, with result: Result<PublishResult, any Error>) {
        if case .success = result { context.metrics.recordPublish(context.clock.now() - pending.sentAt) }
        pending.continuation.resume(with: result)
    }
}
