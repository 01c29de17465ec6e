import ChannelRuntime
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
        var id: Int
        var deliver: @Sendable () -> Void
    }

    public let delivery: MockDelivery
    private let queue = LockedValue<(pending: [Pending], nextID: Int)>(([], 0))

    @_spi(Generated) public init(_ delivery: MockDelivery = .immediate) {
        self.delivery = delivery
    }

    /// Deliveries waiting for `flush()` or their time.
    public var pendingCount: Int { queue.withLock { $0.pending.count } }

    /// Runs `deliver` as the delivery mode says.
    @_spi(Generated) public func schedule(_ deliver: @escaping @Sendable () -> Void) {
        if case .immediate = delivery { return deliver() }
        let id = queue.withLock { queue in
            queue.nextID += 1
            queue.pending.append(Pending(id: queue.nextID, deliver: deliver))
            return queue.nextID
        }
        if case .delayed(let delay, let clock) = delivery { deliverLater(through: id, after: delay, on: clock) }
    }

    /// After `delay` (counted from now), hands out every delivery up to `id`: with one delay for
    /// all, those sent before it are due too, so the order of the sends holds.
    private func deliverLater<C: Clock<Duration>>(through id: Int, after delay: Duration, on clock: C) {
        let deadline = clock.now.advanced(by: delay)
        // Not a child: a mock's send is synchronous (as the app's test calls it); the delivery ends
        // after its delay.
        Task { [self] in
            do { try await clock.sleep(until: deadline, tolerance: nil) } catch { return }
            let due = queue.withLock { queue in
                let count = queue.pending.prefix { $0.id <= id }.count
                defer { queue.pending.removeFirst(count) }
                return Array(queue.pending.prefix(count))
            }
            for pending in due { pending.deliver() }
        }
    }

    /// Hands out everything waiting, in order, whatever the mode.
    @_spi(Generated) public func flush() {
        for pending in queue.withLock({ queue in defer { queue.pending.removeAll() }; return queue.pending }) { pending.deliver() }
    }

    /// Forgets what is waiting (the mock's `reset()`).
    @_spi(Generated) public func discardPending() { queue.withLock { $0.pending.removeAll() } }
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
