import Foundation
import Logging

/// A connection that runs over one of several transports and can be moved to another while it
/// runs: a staged rollout from WebSocket to Server-Sent Events, and an instant rollback.
/// The hub and the generated notifier on top see one connection; `switchTransport(to:)` moves
/// every subscription, and no consumer's stream ends.
///
/// ```swift
/// let connection = SwitchableConnection(["websocket": appSync, "sse": sse], using: flags.useSSE ? "sse" : "websocket")
/// let notifier = BackendNotifier(source: ChannelEventHub(connection: connection))
/// await connection.start()
/// // Later, a remote flag flips:
/// try await connection.switchTransport(to: "websocket")
/// ```
///
/// A switch is an event of every `ChannelEventHub` over the connection: each hub leaves every
/// subscription on the old transport before it joins the new one, so no event arrives twice; what
/// is published in between is not delivered. Each subscription's status goes to `.subscribing`
/// and back to `.active` over the new transport, so `updates(_:)` consumers get
/// `.resumed(after:)` and can catch up; the connection's state follows the new transport (its
/// `connecting`, then `connected`) and `transportUpdates()` names it. The transport left forgets
/// its resumption point (an SSE `Last-Event-ID`): coming back later must not replay events the
/// other transport delivered.
///
/// Events travel from the transport in use straight to the hub (its buffer, its overflow count,
/// its `.gap`): the switchable connection holds no buffer and runs no task. A subscription made on
/// it directly (`subscribe(to:)`, not through a hub) is not moved: a switch ends it (its stream
/// finishes) and says so in the log.
///
/// Its lifecycle (`start()`, `run()`, `disconnect()`, …) is every connection's (`ManagedConnection`),
/// forwarded to the transport in use. `run()` holds that transport running until the connection
/// ends, across switches; each transport runs its tasks under a root of its own.
public final class SwitchableConnection: ManagedConnection, ChannelConnection {
    private let transports: [String: any ManagedConnection & ChannelConnection]
    private let logger: Logger
    /// The connection's state: the state of the transport in use, as it changes.
    private let board = ConnectionStatusBoard()
    private let switching: LockedValue<State>
    /// Switches run one at a time, in the order asked.
    private let turns = Turns()

    fileprivate struct State: Sendable {
        var active: String
        var running = false
        /// Suspended by the app: a transport switched to meanwhile waits for `resume()`.
        var suspended = false
        /// Counts switch requests: a switch still waiting when a later one was asked for gives way.
        var switchesAsked = 0
        var nameObservers: [UUID: AsyncStream<String>.Continuation] = [:]
        /// What each hub over this connection does at a switch; false once the hub is gone.
        var followers: [UUID: @Sendable () async -> Bool] = [:]
        /// Every subscription handed out and not ended: where it runs, and its id there.
        var handedOut: [String: HandedOut] = [:]
        var stopFollowingState: (@Sendable () -> Void)?
    }

    fileprivate struct HandedOut: Sendable {
        let transport: String
        let id: String
        /// Made by a hub, which moves it at a switch; else the switch ends it.
        let movedByHub: Bool
    }

    /// A connection over `transports` (each by its name), starting with `active`.
    public init(_ transports: [String: any ManagedConnection & ChannelConnection], using active: String, logger: Logger = Logger(label: "ChannelRuntime.SwitchableConnection")) {
        precondition(transports[active] != nil, "SwitchableConnection: no transport named '\(active)'")
        self.transports = transports
        self.logger = logger
        switching = LockedValue(State(active: active))
        followState(of: active)
    }

    /// The name of the transport in use.
    public var activeTransport: String { get async { switching.withLock { $0.active } } }

    /// The names of the transports in use, starting with the current one.
    public func transportUpdates() async -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(8))
        let id = UUID()
        let active = switching.withLock { state in
            state.nameObservers[id] = continuation
            return state.active
        }
        continuation.yield(active)
        continuation.onTermination = { [switching] _ in switching.withLock { _ = $0.nameObservers.removeValue(forKey: id) } }
        return stream
    }

    /// Moves every subscription to `name`'s transport (started if the connection runs) and stops
    /// the one in use; nothing when it is already in use. Returns once every hub asked for each of
    /// its subscriptions anew (its status shows when it is active). Switches run one at a time, in
    /// the order asked; one still waiting when a later one is asked for gives way to it (and
    /// returns), so any burst of switches ends on the transport asked for last, with one
    /// subscription each.
    public func switchTransport(to name: String) async throws(SwitchError) {
        guard transports[name] != nil else { throw .unknownTransport(name, known: transports.keys.sorted()) }
        let asked = switching.withLock { state in
            state.switchesAsked += 1
            return state.switchesAsked
        }
        await turns.take {
            guard asked == switching.withLock({ $0.switchesAsked }) else { return }
            await move(to: name)
        }
    }

    /// Why a switch could not be made.
    public enum SwitchError: Error, Equatable, CustomStringConvertible {
        case unknownTransport(String, known: [String])

        public var description: String {
            switch self {
            case .unknownTransport(let name, let known): "no transport named '\(name)' (known: \(known.joined(separator: ", ")))"
            }
        }
    }

    // MARK: Lifecycle, forwarded to the transport in use

    /// What `ManagedConnection`'s lifecycle calls go to: each is forwarded to the transport in use.
    @_spi(Transport) public var lifecycle: any ConnectionLifecycle { Lifecycle(connection: self) }

    private var active: any ManagedConnection & ChannelConnection { transports[switching.withLock { $0.active }]! }

    // MARK: ChannelConnection

    /// The counters of the transport in use when asked.
    public var metrics: RuntimeMetrics { transports[switching.withLock { $0.active }]!.metrics }

    public func subscribe(to channel: String) async throws -> RawChannelSubscription {
        try await subscribe(ChannelRequest(channel: channel), movedByHub: false)
    }

    public func subscribe(_ request: ChannelRequest) async throws -> RawChannelSubscription {
        try await subscribe(request, movedByHub: false)
    }

    /// Subscribes on the transport in use. `movedByHub`: the caller is a hub that follows this
    /// connection (`follow(_:)`) and makes the subscription anew at a switch.
    package func subscribe(_ request: ChannelRequest, movedByHub: Bool) async throws -> RawChannelSubscription {
        let name = switching.withLock { $0.active }
        let inner = try await transports[name]!.subscribe(request)
        let id = "\(name):\(inner.id)"
        // A hub's answer is kept whatever happened meanwhile (its ticket says whether it is still
        // wanted); a direct one made on a transport a switch just left is made again on the new one.
        let kept = switching.withLock { state in
            guard movedByHub || state.active == name else { return false }
            state.handedOut[id] = HandedOut(transport: name, id: inner.id, movedByHub: movedByHub)
            return true
        }
        guard kept else {
            await transports[name]!.unsubscribe(inner.id)
            return try await subscribe(request, movedByHub: false)
        }
        var subscription = RawChannelSubscription(id: id, channel: inner.channel, events: inner.events, reader: inner.reader)
        subscription.carriesStatuses = inner.carriesStatuses
        return subscription
    }

    // MARK: Hubs

    /// Registers what a hub over this connection does at a switch (`ChannelEventHub`: leave every
    /// subscription, join again); `move` returns false once the hub is gone, and is then forgotten.
    package func follow(_ move: @escaping @Sendable () async -> Bool) {
        switching.withLock { $0.followers[UUID()] = move }
    }

    // MARK: Switching

    private func move(to name: String) async {
        let old: String? = switching.withLock { state in
            guard state.active != name else { return nil }
            defer { state.active = name }
            return state.active
        }
        guard let old else { return }
        logger.info("switching transport", metadata: ["from": "\(old)", "to": "\(name)"])
        transports[old]!.forgetResumption()
        followState(of: name)
        let (running, suspended, observers, followers) = switching.withLock { state in
            (state.running, state.suspended, Array(state.nameObservers.values), state.followers)
        }
        for observer in observers { observer.yield(name) }
        // While suspended the new transport starts with `resume()`.
        if running && !suspended { await transports[name]!.start() }
        for (id, move) in followers.sorted(by: { $0.key.uuidString < $1.key.uuidString }) where !(await move()) {
            switching.withLock { _ = $0.followers.removeValue(forKey: id) }
        }
        // What no hub moved (made on the connection directly, or a hub's answer that came after
        // the switch and is stale) stays on the transport left: it ends here, not silently there.
        let left = switching.withLock { state in
            let left = state.handedOut.filter { $0.value.transport == old }
            for id in left.keys { state.handedOut[id] = nil }
            return left
        }
        let direct = left.values.filter { !$0.movedByHub }.count
        if direct > 0 {
            logger.warning(
                "a switch ends subscriptions made on the connection directly; subscribe through a ChannelEventHub to keep them",
                metadata: ["from": "\(old)", "ended": "\(direct)"])
        }
        for handedOut in left.values.sorted(by: { $0.id < $1.id }) { await transports[old]!.unsubscribe(handedOut.id) }
        if switching.withLock({ $0.running }) { await transports[old]!.disconnect() }
    }

    /// Shows the states of transport `name` from now on (and no more of the one before).
    private func followState(of name: String) {
        switching.withLock { $0.stopFollowingState }?()
        let (board, switching) = (self.board, self.switching)
        let stop = transports[name]!.lifecycle.followStates { newState in
            // Under the lock: a late state of the transport left cannot land after the new one's.
            switching.withLock { state in
                if state.active == name { board.setConnectionState(newState) }
            }
        }
        switching.withLock { $0.stopFollowingState = stop }
    }
}

extension SwitchableConnection {
    /// The lifecycle `ManagedConnection` forwards to: each call goes to the transport in use.
    struct Lifecycle: ConnectionLifecycle {
        let connection: SwitchableConnection
        private var transports: [String: any ManagedConnection & ChannelConnection] { connection.transports }
        private var switching: LockedValue<State> { connection.switching }
        private var board: ConnectionStatusBoard { connection.board }
        private var active: any ManagedConnection & ChannelConnection { connection.active }

        /// Applies `change` and returns the transport in use, both under one lock: a switch cannot
        /// come between them.
        private func changing(_ change: (inout State) -> Void) -> any ManagedConnection & ChannelConnection {
            let active = switching.withLock { state in
                change(&state)
                return state.active
            }
            return transports[active]!  // `active` is always one of `transports` (checked by init)
        }

        func start() async { await changing { $0.running = true }.start() }

        /// Starts the transport in use and returns when the connection ends: `disconnect()` (also a
        /// graceful shutdown), a failure for good or a final close of the transport in use (thrown), or
        /// the calling task's cancellation, which cuts the transport in use off at once. Switches
        /// meanwhile carry on as with `start()`.
        func run() async throws(ConnectionRunError) {
            let alreadyRunning = switching.withLock { state in
                defer { state.running = true }
                return state.running
            }
            guard !alreadyRunning else { throw .alreadyRunning }
            // Asked for before the start (an end that comes at once is not missed); its first
            // element is the state before it.
            let states = board.connectionStateUpdates().dropFirst()
            await active.start()
            var ended: ConnectionState?
            for await state in states where state.isEnded {
                ended = state
                break
            }
            guard let ended else {
                // The calling task was cancelled (its states stream ended with it).
                await abort()
                return
            }
            switching.withLock { $0.running = false }
            switch ended {
            case .failed(let failure): throw .failed(failure)
            case .closed(let end): throw .closed(end)
            default: return
            }
        }

        func disconnect() async { await changing { $0.running = false }.disconnect() }

        func abort() async { await changing { $0.running = false }.lifecycle.abort() }

        func suspend() async { await changing { $0.suspended = true }.suspend() }

        func resume() async {
            let (active, running) = switching.withLock { state in
                state.suspended = false
                return (state.active, state.running)
            }
            // A transport switched to while suspended has not started yet.
            if running { await transports[active]!.start() }
            await transports[active]!.resume()
        }

        func networkPathChanged(available: Bool) async {
            for transport in transports.values { await transport.networkPathChanged(available: available) }
        }

        var state: ConnectionState { get async { await active.state } }

        func stateUpdates() async -> AsyncStream<ConnectionState> { board.connectionStateUpdates() }

        func followStates(_ listener: @escaping @Sendable (ConnectionState) -> Void) -> @Sendable () -> Void {
            board.followStates(listener)
        }

        func unsubscribe(_ id: String) async {
            guard let handedOut = switching.withLock({ $0.handedOut.removeValue(forKey: id) }) else { return }
            await transports[handedOut.transport]!.unsubscribe(handedOut.id)
        }

        /// The channels active on the transport in use.
        var acknowledgedChannels: [String] { get async { await active.acknowledgedChannels } }

        func status(ofSubscription id: String) async -> SubscriptionStatus? {
            guard let handedOut = switching.withLock({ $0.handedOut[id] }) else { return nil }
            return await transports[handedOut.transport]!.status(ofSubscription: handedOut.id)
        }

        func statusUpdates(ofSubscription id: String) async -> AsyncStream<SubscriptionStatus> {
            guard let handedOut = switching.withLock({ $0.handedOut[id] }) else {
                let (stream, continuation) = AsyncStream.makeStream(of: SubscriptionStatus.self)
                continuation.finish()
                return stream
            }
            return await transports[handedOut.transport]!.statusUpdates(ofSubscription: handedOut.id)
        }

        /// Changes of this connection's state and of every transport's (their subscriptions' statuses).
        func observeChanges(_ continuation: AsyncStream<Void>.Continuation) -> @Sendable () -> Void {
            let stops = [board.observeChanges(continuation)] + transports.values.map { $0.lifecycle.observeChanges(continuation) }
            return { stops.forEach { $0() } }
        }

        /// Every transport forgets its resumption point.
        func forgetResumption() {
            for transport in transports.values { transport.forgetResumption() }
        }
    }
}

/// Runs bodies one at a time, in the order they were given (a FIFO turn-taking gate without an actor).
private final class Turns: Sendable {
    private let state = LockedValue((busy: false, waiting: [CheckedContinuation<Void, Never>]()))

    func take<T>(_ body: () async throws -> T) async rethrows -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.busy {
                    state.waiting.append(continuation)
                    return false
                }
                state.busy = true
                return true
            }
            if now { continuation.resume() }
        }
        defer {
            let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
                if state.waiting.isEmpty {
                    state.busy = false
                    return nil
                }
                return state.waiting.removeFirst()
            }
            next?.resume()
        }
        return try await body()
    }
}
