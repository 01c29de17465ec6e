import Foundation

/// What a connection publishes: its state and each subscription's status, with their observers.
///
/// Every transport's connection runs a `ConnectionStateMachine` and turns its `publishState` and
/// `publishSubscriptionStatus` actions into calls here, so the observing side (current values,
/// `AsyncStream`s that start with the current value, waiting for a stop) is written once. Locked,
/// not an actor: a consumer that stops observing removes itself without a hop.
package final class ConnectionStatusBoard: Sendable {
    private struct State {
        var connection: ConnectionState = .idle
        var connectionObservers: [UUID: AsyncStream<ConnectionState>.Continuation] = [:]
        /// Told each new state synchronously, after the lock (`followStates(_:)`).
        var connectionListeners: [UUID: @Sendable (ConnectionState) -> Void] = [:]
        /// Told of every change, the state's or a subscription's (`observeChanges(_:)`).
        var changeObservers: [UUID: AsyncStream<Void>.Continuation] = [:]
        var subscriptions: [String: SubscriptionStatus] = [:]
        var subscriptionObservers: [String: [UUID: AsyncStream<SubscriptionStatus>.Continuation]] = [:]
        var stopWaiters: [CheckedContinuation<Void, Never>] = []

        /// No transport and none coming: disconnected, suspended, failed or closed by the service.
        var isStopped: Bool {
            switch connection {
            case .disconnected, .suspended, .failed, .closed: true
            case .idle, .connecting, .connected, .reconnecting, .waitingForNetwork: false
            }
        }
    }

    private let state = LockedValue(State())

    package init() {}

    // MARK: The connection

    package var connectionState: ConnectionState { state.withLock { $0.connection } }

    /// Publishes `newState`; returns false when it is the current one.
    @discardableResult
    package func setConnectionState(_ newState: ConnectionState) -> Bool {
        typealias Wake = (
            observers: [AsyncStream<ConnectionState>.Continuation], listeners: [@Sendable (ConnectionState) -> Void],
            waiters: [CheckedContinuation<Void, Never>], changes: [AsyncStream<Void>.Continuation]
        )
        let wake: Wake? = state.withLock { state in
            guard state.connection != newState else { return nil }
            state.connection = newState
            let waiters = state.isStopped ? state.stopWaiters : []
            if state.isStopped { state.stopWaiters.removeAll() }
            return (Array(state.connectionObservers.values), Array(state.connectionListeners.values), waiters, Array(state.changeObservers.values))
        }
        guard let wake else { return false }
        for observer in wake.observers { observer.yield(newState) }
        for listener in wake.listeners { listener(newState) }
        for change in wake.changes { change.yield() }
        for waiter in wake.waiters { waiter.resume() }
        return true
    }

    /// Connection states, starting with the current one.
    package func connectionStateUpdates() -> AsyncStream<ConnectionState> {
        let (stream, continuation) = AsyncStream.makeStream(of: ConnectionState.self, bufferingPolicy: .bufferingNewest(64))
        let id = UUID()
        let current = state.withLock { state in
            state.connectionObservers[id] = continuation
            return state.connection
        }
        continuation.yield(current)
        continuation.onTermination = { [weak self] _ in self?.state.withLock { _ = $0.connectionObservers.removeValue(forKey: id) } }
        return stream
    }

    /// Calls `listener` with the current state and then with every new one, synchronously (no task
    /// between the board and whoever republishes it), until the returned closure is called.
    package func followStates(_ listener: @escaping @Sendable (ConnectionState) -> Void) -> @Sendable () -> Void {
        let id = UUID()
        let current = state.withLock { state in
            state.connectionListeners[id] = listener
            return state.connection
        }
        listener(current)
        return { [weak self] in self?.state.withLock { _ = $0.connectionListeners.removeValue(forKey: id) } }
    }

    /// Yields to `continuation` at every change from now on (the connection's state, a
    /// subscription's status, a subscription forgotten) until the returned closure is called: what
    /// a test awaits to check a condition again, instead of polling it.
    package func observeChanges(_ continuation: AsyncStream<Void>.Continuation) -> @Sendable () -> Void {
        let id = UUID()
        state.withLock { $0.changeObservers[id] = continuation }
        return { [weak self] in self?.state.withLock { _ = $0.changeObservers.removeValue(forKey: id) } }
    }

    /// Returns once the connection is `.disconnected`, `.suspended` or `.failed`.
    package func waitUntilStopped() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let stopped = state.withLock { state in
                if !state.isStopped { state.stopWaiters.append(continuation) }
                return state.isStopped
            }
            if stopped { continuation.resume() }
        }
    }

    // MARK: Subscriptions

    /// Where subscription `id` stands; `nil` when it is not (or no longer) known.
    package func status(of id: String) -> SubscriptionStatus? { state.withLock { $0.subscriptions[id] } }

    /// Publishes the status of subscription `id` (which starts being known); false when it is the
    /// current one.
    @discardableResult
    package func setStatus(_ status: SubscriptionStatus, of id: String) -> Bool {
        let wake: ([AsyncStream<SubscriptionStatus>.Continuation], [AsyncStream<Void>.Continuation])? = state.withLock { state in
            guard state.subscriptions[id] != status else { return nil }
            state.subscriptions[id] = status
            return (Array((state.subscriptionObservers[id] ?? [:]).values), Array(state.changeObservers.values))
        }
        guard let (observers, changes) = wake else { return false }
        for observer in observers { observer.yield(status) }
        for change in changes { change.yield() }
        return true
    }

    /// Subscription `id` ended: its status is forgotten and its observers' sequences finish.
    package func forget(_ id: String) {
        let (observers, changes) = state.withLock { state in
            state.subscriptions[id] = nil
            return (Array((state.subscriptionObservers.removeValue(forKey: id) ?? [:]).values), Array(state.changeObservers.values))
        }
        for observer in observers { observer.finish() }
        for change in changes { change.yield() }
    }

    /// The statuses of subscription `id`, starting with the current one; finishes when it ends
    /// (at once when it is not known).
    package func statusUpdates(of id: String) -> AsyncStream<SubscriptionStatus> {
        let (stream, continuation) = AsyncStream.makeStream(of: SubscriptionStatus.self, bufferingPolicy: .bufferingNewest(16))
        let observer = UUID()
        let current = state.withLock { state -> SubscriptionStatus? in
            guard let current = state.subscriptions[id] else { return nil }
            state.subscriptionObservers[id, default: [:]][observer] = continuation
            return current
        }
        guard let current else {
            continuation.finish()
            return stream
        }
        continuation.yield(current)
        continuation.onTermination = { [weak self] _ in self?.state.withLock { _ = $0.subscriptionObservers[id]?.removeValue(forKey: observer) } }
        return stream
    }
}

/// The timers a `ConnectionStateMachine` asks a connection to run, on the connection's clock, each a
/// child of the connection's `ConnectionTasks`.
///
/// Each start gets a token; a timer that fires after it was cancelled or restarted is recognised by
/// its stale token and ignored (`take`), so the machine only ever hears of the timers it expects.
package struct MachineTimers: Sendable {
    private var running: [ConnectionStateMachine.Timer: (token: Int, stop: ChildStop)] = [:]
    private var nextToken = 0

    package init() {}

    /// Starts (or restarts) `timer` in `tasks`; `fire` runs with its token once `delay` passed on `clock`.
    package mutating func start(
        _ timer: ConnectionStateMachine.Timer, after delay: Duration, on clock: RuntimeClock, in tasks: ConnectionTasks,
        fire: @escaping @Sendable (ConnectionStateMachine.Timer, Int) async -> Void
    ) {
        running.removeValue(forKey: timer)?.stop.stop()
        nextToken += 1
        let token = nextToken
        let stop = ChildStop()
        running[timer] = (token, stop)
        tasks.add(stoppedBy: stop) {
            do { try await clock.sleep(for: delay) } catch { return }
            await fire(timer, token)
        }
    }

    package mutating func cancel(_ timer: ConnectionStateMachine.Timer) {
        running.removeValue(forKey: timer)?.stop.stop()
    }

    /// Whether `token` is `timer`'s current run (which is then over).
    package mutating func take(_ timer: ConnectionStateMachine.Timer, token: Int) -> Bool {
        guard running[timer]?.token == token else { return false }
        running[timer] = nil
        return true
    }
}
