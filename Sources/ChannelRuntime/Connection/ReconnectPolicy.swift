/// How long to wait before the next connection attempt (or the next try of a rejected subscribe).
///
/// The default of `AppSyncConfiguration` is `fixed(.seconds(10))`, the Vortex app's design. For many clients that
/// lose the same server at once, `exponentialWithFullJitter` spreads their retries out so they do not
/// come back in lockstep.
public struct ReconnectPolicy: Sendable {
    private let delay: @Sendable (_ failedAttempts: Int) -> Duration?

    /// `failedAttempts` counts the attempts since the last successful connection (1 for the first retry).
    /// `nil` means give up (the connection ends in `.failed(.gaveUp)`).
    public init(_ delay: @escaping @Sendable (_ failedAttempts: Int) -> Duration?) {
        self.delay = delay
    }

    /// The delay before the next attempt, or `nil` to give up.
    public func delay(afterFailedAttempts attempts: Int) -> Duration? { delay(attempts) }

    /// The same delay every time (the Vortex app's design: 10 s).
    public static func fixed(_ delay: Duration) -> ReconnectPolicy { ReconnectPolicy { _ in delay } }

    /// Doubling delays from `initial` up to `maximum`.
    public static func exponential(initial: Duration, maximum: Duration) -> ReconnectPolicy {
        ReconnectPolicy { attempts in ceiling(initial: initial, maximum: maximum, attempts: attempts) }
    }

    /// "Full jitter": a uniformly random delay between zero and the exponential ceiling
    /// (`initial` doubled per failed attempt, at most `maximum`).
    ///
    /// - Parameters:
    ///   - initial: the ceiling after the first failed attempt.
    ///   - maximum: the largest ceiling.
    ///   - random: a number in `0..<1`; inject a seeded one in tests.
    public static func exponentialWithFullJitter(
        initial: Duration,
        maximum: Duration,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) -> ReconnectPolicy {
        ReconnectPolicy { attempts in
            ceiling(initial: initial, maximum: maximum, attempts: attempts) * min(max(random(), 0), 1)
        }
    }

    /// Give up after `attempts` failed attempts in a row; until then `policy` decides.
    public func limited(to attempts: Int) -> ReconnectPolicy {
        ReconnectPolicy { failed in failed > attempts ? nil : self.delay(afterFailedAttempts: failed) }
    }

    /// Never reconnect: the first abnormal end is final.
    public static let never = ReconnectPolicy { _ in nil }

    private static func ceiling(initial: Duration, maximum: Duration, attempts: Int) -> Duration {
        var delay = initial
        for _ in 1..<max(attempts, 1) where delay < maximum { delay *= 2 }
        return min(delay, maximum)
    }
}
