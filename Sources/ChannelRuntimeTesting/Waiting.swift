@_spi(Transport) import ChannelRuntime

/// A wait in a test that did not end: what was waited for.
public struct WaitTimedOut: Error, CustomStringConvertible {
    public var description: String

    public init(description: String) { self.description = description }
}

/// Yields until `condition` holds, or throws `WaitTimedOut` after `seconds` of real time. The bound
/// turns a hang into a failure; it is a guard, not a timing assertion (the code under test runs on
/// a `ManualClock`). It is generous because a parallel test run can keep every thread of the
/// cooperative pool busy for tens of seconds (seen: over 20 s on two cores); the condition is
/// checked once more after the bound, so a wait the pool starved still sees what happened.
public func eventually(_ what: String, within seconds: Double = 120, _ condition: @Sendable () async -> Bool) async throws {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
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
    if await condition() { return }
    throw WaitTimedOut(description: "gave up waiting for \(what)")
}

/// Runs `body` and returns what it returns, or throws `WaitTimedOut` after `seconds` of real time
/// (`body` is then cancelled). Like `eventually`'s, the bound only turns a hang into a failure.
package func awaiting<T: Sendable>(_ what: String, within seconds: Double = 120, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
            return nil
        }
        defer { group.cancelAll() }
        guard let value = try await group.next() ?? nil else { throw WaitTimedOut(description: "gave up waiting for \(what)") }
        return value
    }
}

/// Runs `wait`; when its bound gives up, `condition` is checked once more and a condition that holds
/// then is not a failure. On a starved cooperative pool the bound's timer and the change that ended
/// the wait can become ready together, and the timer may run first: what the test waited for did
/// happen, and the verdict must not depend on which of the two a busy machine ran first.
package func lastLook(_ condition: @Sendable () async -> Bool, _ wait: () async throws -> Void) async throws {
    do {
        try await wait()
    } catch let timedOut as WaitTimedOut {
        if await condition() { return }
        throw timedOut
    }
}

/// A value tests watch, and the tasks waiting for a condition on it: each is resumed by the change
/// that makes its condition hold, so a test awaits what it waits for instead of polling.
package final class Watched<Value: Sendable>: Sendable {
    private struct Waiter {
        let condition: @Sendable (Value) -> Bool
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var value: Value
        var waiters: [Int: Waiter] = [:]
        var nextWaiter = 0
        /// Waiters cancelled (given up) before they registered.
        var withdrawn: Set<Int> = []
    }

    private let state: LockedValue<State>

    package init(_ value: Value) { state = LockedValue(State(value: value)) }

    package var value: Value { state.withLock { $0.value } }

    /// Changes the value and resumes every waiter whose condition now holds; returns what `change`
    /// returns.
    @discardableResult
    package func update<Result>(_ change: (inout Value) -> Result) -> Result {
        let (result, ready) = state.withLock { state -> (Result, [CheckedContinuation<Bool, Never>]) in
            let result = change(&state.value)
            let value = state.value
            let ready = state.waiters.filter { $0.value.condition(value) }
            for id in ready.keys { state.waiters[id] = nil }
            return (result, ready.values.map(\.continuation))
        }
        for continuation in ready { continuation.resume(returning: true) }
        return result
    }

    /// Waits until `take` finds something in the value and returns it, taken under the lock that saw
    /// it: two tasks taking at once get one each (`take` returns nil, changing nothing, when there is
    /// nothing to take). Throws `WaitTimedOut` after `seconds` of real time.
    package func take<Taken>(_ what: String, within seconds: Double = 120, _ take: @escaping @Sendable (inout Value) -> Taken?) async throws -> Taken {
        while true {
            try await wait(what, within: seconds) { value in
                var copy = value
                return take(&copy) != nil
            }
            if let taken = update(take) { return taken }
        }
    }

    /// Returns once `condition` holds (at once when it does now); throws `WaitTimedOut` after
    /// `seconds` of real time, unless the condition holds by then (see `lastLook`).
    package func wait(_ what: String, within seconds: Double = 120, until condition: @escaping @Sendable (Value) -> Bool) async throws {
        let id = state.withLock { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        try await lastLook({ condition(self.value) }) {
            try await waitForChange(id, what, within: seconds, until: condition)
        }
    }

    private func waitForChange(_ id: Int, _ what: String, within seconds: Double, until condition: @escaping @Sendable (Value) -> Bool) async throws {
        try await awaiting(what, within: seconds) {
            // True: the condition held; false: the bound gave up first.
            let held = await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                    let outcome = self.state.withLock { state -> Bool? in
                        if state.withdrawn.remove(id) != nil { return false }
                        if condition(state.value) { return true }
                        state.waiters[id] = Waiter(condition: condition, continuation: continuation)
                        return nil
                    }
                    if let outcome { continuation.resume(returning: outcome) }
                }
            } onCancel: {
                let waiter = self.state.withLock { state -> Waiter? in
                    guard let waiter = state.waiters.removeValue(forKey: id) else {
                        state.withdrawn.insert(id)
                        return nil
                    }
                    return waiter
                }
                waiter?.continuation.resume(returning: false)
            }
            guard held else { throw WaitTimedOut(description: "gave up waiting for \(what)") }
        }
    }
}

/// Returns once `condition` holds, checking it again each time `connection` publishes a change (its
/// state, a subscription's status): an await, not a poll, for conditions on what the connection
/// publishes (`acknowledgedChannels`, `state`, `status(ofSubscription:)`). The bound turns a hang
/// into a failure.
package func untilPublished(
    by connection: some ManagedConnection, _ what: String, within seconds: Double = 120, _ condition: @escaping @Sendable () async -> Bool
) async throws {
    // Observed before the first check: a change between the check and the wait is not missed.
    let changes = connection.lifecycle.changes()
    try await lastLook(condition) {
        let held = try await awaiting(what, within: seconds) {
            if await condition() { return true }
            for await _ in changes where await condition() { return true }
            return false
        }
        if !held { throw WaitTimedOut(description: "the connection's changes ended before \(what)") }
    }
}

/// Returns once `subscription`'s status on `source` (a hub) is `expected`, read from its status updates as
/// they come (an await, not a poll).
package func untilStatus<Subscription: ChannelSubscription>(
    _ expected: SubscriptionStatus, of subscription: Subscription.Type, on source: any ChannelEventSource, within seconds: Double = 120
) async throws {
    let held = try await awaiting("\(Subscription.self) \(expected)", within: seconds) {
        for await status in await source.statusUpdates(for: subscription) where status == expected { return true }
        return false
    }
    if !held { throw WaitTimedOut(description: "the status updates of \(Subscription.self) ended before \(expected)") }
}
