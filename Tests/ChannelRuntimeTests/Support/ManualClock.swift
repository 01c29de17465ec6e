import AppSyncRuntime
import ChannelRuntime
import NIOConcurrencyHelpers

/// A clock that moves only when a test calls `advance(by:)`, so reconnect delays and keep-alive
/// timeouts are tested exactly and without waiting.
final class ManualClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
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

    private let state = NIOLockedValueBox(State())

    var now: Instant { state.withLockedValue { $0.now } }
    var minimumResolution: Duration { .zero }

    /// Deadlines of everything sleeping now, as offsets from the clock's start, sorted.
    var pendingDeadlines: [Duration] {
        state.withLockedValue { $0.sleepers.values.map(\.deadline.offset).sorted() }
    }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        let id = state.withLockedValue { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Outcome { case wait, ready, cancelled }
                let outcome = state.withLockedValue { state -> Outcome in
                    if state.cancelledEarly.remove(id) != nil { return .cancelled }
                    if deadline <= state.now { return .ready }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return .wait
                }
                switch outcome {
                case .wait: break
                case .ready: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let sleeper = state.withLockedValue { state -> Sleeper? in
                guard let sleeper = state.sleepers.removeValue(forKey: id) else {
                    state.cancelledEarly.insert(id)  // not registered yet: the sleep sees this and ends
                    return nil
                }
                return sleeper
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward and wakes every sleeper whose deadline has come, earliest first.
    func advance(by duration: Duration) {
        let due = state.withLockedValue { state -> [Sleeper] in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.value.deadline <= now }
            for id in due.keys { state.sleepers[id] = nil }
            return due.values.sorted { $0.deadline < $1.deadline }
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Waits (yielding, no real sleeping) until something sleeps until `offset`.
    func waitForSleeper(until offset: Duration) async throws {
        try await eventually("a sleeper until \(offset)") { self.pendingDeadlines.contains(offset) }
    }
}

struct TimedOut: Error, CustomStringConvertible {
    var description: String
}

/// Yields until `condition` holds. A generous real-time bound turns a hang into a failure; it is a
/// guard, not a timing assertion (the code under test runs on the manual clock).
func eventually(_ what: String, _ condition: @Sendable () async -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(20)
    var spins = 0
    while ContinuousClock.now < deadline {
        if await condition() { return }
        spins += 1
        if spins % 64 == 0 {
            try await Task.sleep(for: .microseconds(100))  // let other tests' tasks run on a busy machine
        } else {
            await Task.yield()
        }
    }
    throw TimedOut(description: "gave up waiting for \(what)")
}
