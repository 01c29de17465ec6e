import Foundation

/// How a generated mock hands the events a test sends to the streams of the code under test.
public enum MockDelivery: Sendable {
    /// At once, before `send` returns (the default).
    case immediate
    /// Held until the mock's `flush()`, in the order they were sent.
    case manual
    /// After `delay` on `clock`, in the order they were sent (inject a manual clock in tests).
    case delayed(Duration, clock: any Clock<Duration>)
}

/// The delivery queue one mock's broadcasters share: `MockDelivery` applied, and what `flush()`
/// hands out. Deliveries keep the order of the sends, across channels.
public final class MockScheduler: Sendable {
    private struct Pending {
        var deliver: @Sendable () -> Void
        /// Due time for `.delayed` (offset from the scheduler's start on its clock).
        var due: Duration?
    }

    public let delivery: MockDelivery
    private let queue = LockedValue<[Pending]>([])
    private let start: (any Sendable)?

    public init(_ delivery: MockDelivery = .immediate) {
        self.delivery = delivery
        if case .delayed(_, let clock) = delivery { start = Self.now(of: clock) } else { start = nil }
    }

    /// Deliveries waiting for `flush()` or their time.
    public var pendingCount: Int { queue.withLock { $0.count } }

    /// Runs `deliver` as the delivery mode says.
    public func schedule(_ deliver: @escaping @Sendable () -> Void) {
        switch delivery {
        case .immediate:
            deliver()
        case .manual:
            queue.withLock { $0.append(Pending(deliver: deliver, due: nil)) }
        case .delayed(let delay, let clock):
            let due = elapsed(on: clock) + delay
            queue.withLock { $0.append(Pending(deliver: deliver, due: due)) }
            Task { [self] in
                try? await Self.sleep(clock, for: delay)
                deliverDue(on: clock)
            }
        }
    }

    /// Hands out everything waiting, in order, whatever the mode.
    public func flush() {
        for pending in queue.withLock({ queue in defer { queue.removeAll() }; return queue }) { pending.deliver() }
    }

    /// Forgets what is waiting (the mock's `reset()`).
    public func discardPending() { queue.withLock { $0.removeAll() } }

    /// Delivers, in order, the waiting deliveries whose time has come (a later send is never due
    /// before an earlier one: one delay for all).
    private func deliverDue(on clock: any Clock<Duration>) {
        let now = elapsed(on: clock)
        let due = queue.withLock { queue -> [Pending] in
            let count = queue.prefix { ($0.due ?? .zero) <= now }.count
            defer { queue.removeFirst(count) }
            return Array(queue.prefix(count))
        }
        for pending in due { pending.deliver() }
    }

    private func elapsed(on clock: any Clock<Duration>) -> Duration { Self.elapsed(clock, since: start) }

    private static func now<C: Clock<Duration>>(of clock: C) -> any Sendable { clock.now }

    private static func elapsed<C: Clock<Duration>>(_ clock: C, since start: (any Sendable)?) -> Duration {
        guard let start = start as? C.Instant else { return .zero }
        return start.duration(to: clock.now)
    }

    private static func sleep<C: Clock<Duration>>(_ clock: C, for delay: Duration) async throws {
        try await clock.sleep(until: clock.now.advanced(by: delay), tolerance: nil)
    }
}

/// A value the code under test observes as a stream (a mock's connection state): a new stream
/// gets the current value first, then every change.
public final class StateBroadcaster<State: Sendable>: Sendable {
    private struct Storage {
        var current: State
        var continuations: [Int: AsyncStream<State>.Continuation] = [:]
        var nextID = 0
    }

    private let initial: State
    private let storage: LockedValue<Storage>

    /// A broadcaster holding `initial`.
    public init(_ initial: State) {
        self.initial = initial
        storage = LockedValue(Storage(current: initial))
    }

    /// The current value.
    public var current: State { storage.withLock { $0.current } }

    /// A new stream: the current value, then each one sent.
    public func stream() -> AsyncStream<State> {
        let (stream, continuation) = AsyncStream.makeStream(of: State.self, bufferingPolicy: .unbounded)
        let id = storage.withLock { storage in
            storage.nextID += 1
            storage.continuations[storage.nextID] = continuation
            continuation.yield(storage.current)
            return storage.nextID
        }
        continuation.onTermination = { [weak self] _ in _ = self?.storage.withLock { $0.continuations.removeValue(forKey: id) } }
        return stream
    }

    /// Makes `state` current and tells every stream.
    public func send(_ state: State) {
        storage.withLock { storage in
            storage.current = state
            for continuation in storage.continuations.values { continuation.yield(state) }
        }
    }

    /// Back to the first value; open streams end.
    public func reset() {
        let ended = storage.withLock { storage in
            defer { storage = Storage(current: initial) }
            return Array(storage.continuations.values)
        }
        for continuation in ended { continuation.finish() }
    }
}
