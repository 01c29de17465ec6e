import ChannelRuntime

/// A clock that moves only when a test calls `advance(by:)`, so reconnect delays, keep-alive
/// timeouts and every other wait of a connection are tested exactly and without waiting: pass it
/// as the `clock` of `AppSyncConnection`, `SSEConnection` or `ChannelEventHub`.
public final class ManualClock: Clock, Sendable {
    /// A point in the clock's time: how far it has been advanced.
    public struct Instant: InstantProtocol {
        /// Time since the clock was made.
        public var offset: Duration
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Int: Sleeper] = [:]
        var nextID = 0
        /// Sleeps cancelled before they registered (the cancel handler can run first).
        var cancelledEarly: Set<Int> = []
    }

    private let state = LockedValue(State())
    /// The deadlines sleeping now, for `waitForSleeper(until:)` to await.
    private let sleeping = Watched<[Duration]>([])

    /// A clock at offset zero.
    public init() {}

    public var now: Instant { state.withLock { $0.now } }
    public var minimumResolution: Duration { .zero }

    /// Deadlines of everything sleeping now, as offsets from the clock's start, sorted.
    public var pendingDeadlines: [Duration] {
        state.withLock { $0.sleepers.values.map(\.deadline.offset).sorted() }
    }

    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Outcome { case wait, ready, cancelled }
                let outcome = state.withLock { state -> Outcome in
                    if state.cancelledEarly.remove(id) != nil { return .cancelled }
                    if deadline <= state.now { return .ready }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    publishDeadlines(of: state)
                    return .wait
                }
                switch outcome {
                case .wait: break
                case .ready: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let sleeper = state.sleepers.removeValue(forKey: id) else {
                    state.cancelledEarly.insert(id)  // not registered yet: the sleep sees this and ends
                    return nil
                }
                publishDeadlines(of: state)
                return sleeper
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Tells `waitForSleeper` what sleeps now; called under the state's lock, so the changes reach
    /// it in their order.
    private func publishDeadlines(of state: State) {
        let deadlines = state.sleepers.values.map(\.deadline.offset).sorted()
        sleeping.update { $0 = deadlines }
    }

    /// Moves time forward and wakes every sleeper whose deadline has come, earliest first.
    public func advance(by duration: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.value.deadline <= now }
            for id in due.keys { state.sleepers[id] = nil }
            publishDeadlines(of: state)
            return due.values.sorted { $0.deadline < $1.deadline }
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Returns once something sleeps until `offset` (at once when something does now); throws
    /// `WaitTimedOut` after `seconds` of real time, so a test that goes wrong fails instead of hanging.
    public func waitForSleeper(until offset: Duration, within seconds: Double = 120) async throws {
        try await sleeping.wait("a sleeper until \(offset)", within: seconds) { $0.contains(offset) }
    }

    /// Returns once the deadlines sleeping now (as `pendingDeadlines` lists them) meet `condition`;
    /// throws `WaitTimedOut` after `seconds` of real time.
    package func untilSleepers(_ what: String, within seconds: Double = 120, _ condition: @escaping @Sendable ([Duration]) -> Bool) async throws {
        try await sleeping.wait(what, within: seconds) { condition($0.sorted()) }
    }
}

