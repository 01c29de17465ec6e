#if Emulator
import NIOConcurrencyHelpers

/// What the emulator's WebSocket side has seen, at one moment: for a test to await a count
/// (`AppSyncEmulator.activityUpdates()`) instead of reading it again and again.
public struct EmulatorActivity: Sendable, Hashable, CustomStringConvertible {
    /// WebSocket connections open now.
    public var connections = 0
    /// WebSocket connections accepted since the start.
    public var connectionsAccepted = 0
    /// Subscriptions held now, over all connections.
    public var subscriptions = 0
    /// Pings the clients sent.
    public var pingsReceived = 0
    /// Accepted connects that carried an `Authorization` header (`connectAuthorizations`).
    public var connectAuthorizations = 0

    public init(connections: Int = 0, connectionsAccepted: Int = 0, subscriptions: Int = 0, pingsReceived: Int = 0, connectAuthorizations: Int = 0) {
        self.connections = connections
        self.connectionsAccepted = connectionsAccepted
        self.subscriptions = subscriptions
        self.pingsReceived = pingsReceived
        self.connectAuthorizations = connectAuthorizations
    }

    public var description: String {
        "\(connections) open (\(connectionsAccepted) accepted), \(subscriptions) subscriptions, \(pingsReceived) pings, "
            + "\(connectAuthorizations) authorizations"
    }
}

/// The broker's activity as it changes, for whoever watches it. Synchronous under a lock, so a
/// watcher that goes away is forgotten without a hop onto the broker.
final class EmulatorActivityFeed: Sendable {
    private struct State {
        var activity = EmulatorActivity()
        var watchers: [Int: AsyncStream<EmulatorActivity>.Continuation] = [:]
        var nextWatcher = 0
    }

    private let state = NIOLockedValueBox(State())

    /// Records the activity now and hands it to every watcher.
    func publish(_ activity: EmulatorActivity) {
        let watchers = state.withLockedValue { state -> [AsyncStream<EmulatorActivity>.Continuation] in
            guard state.activity != activity else { return [] }
            state.activity = activity
            return Array(state.watchers.values)
        }
        for watcher in watchers { watcher.yield(activity) }
    }

    /// The activity now, then each change. A reader that falls behind gets the latest (the buffer
    /// holds one): each element is the whole picture at one moment.
    func updates() -> AsyncStream<EmulatorActivity> {
        let (stream, continuation) = AsyncStream.makeStream(of: EmulatorActivity.self, bufferingPolicy: .bufferingNewest(1))
        let id = state.withLockedValue { state -> Int in
            state.nextWatcher += 1
            state.watchers[state.nextWatcher] = continuation
            // Yielded under the lock: a change published meanwhile cannot come before it.
            continuation.yield(state.activity)
            return state.nextWatcher
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLockedValue { $0.watchers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Ends every watcher's stream (the emulator stopped).
    func finish() {
        let watchers = state.withLockedValue { state in
            defer { state.watchers = [:] }
            return Array(state.watchers.values)
        }
        for watcher in watchers { watcher.finish() }
    }
}
#endif
