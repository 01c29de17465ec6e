/// The time source of the runtime: any `Clock` with `Duration`s, so tests drive reconnect and
/// keep-alive with a manual clock instead of waiting. Instants are kept as the duration since
/// the clock was wrapped, which keeps the connection actor free of generic parameters.
package struct RuntimeClock: Sendable {
    package let now: @Sendable () -> Duration
    package let sleepUntil: @Sendable (Duration) async throws -> Void

    package init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let origin = clock.now
        now = { origin.duration(to: clock.now) }
        sleepUntil = { deadline in try await clock.sleep(until: origin.advanced(by: deadline), tolerance: nil) }
    }

    package func sleep(for duration: Duration) async throws {
        try await sleepUntil(now() + duration)
    }
}
