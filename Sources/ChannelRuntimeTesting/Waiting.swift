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
