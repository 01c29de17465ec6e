import ChannelRuntime

extension AsyncSequence where Self: Sendable, Element: Sendable {
    /// Push signals coalesced into refreshes: events are gathered until `silence` passes with no new one, then
    /// the distinct keys they named come out as one batch, in the order first seen. Ten events
    /// about one job are one refresh of that job; events about three devices, one refresh of each.
    ///
    /// A stream that never falls silent still refreshes: a batch is due at the latest
    /// `maximumDelay` after its first event. When the base sequence ends, a pending batch is
    /// delivered at once and the result ends. Cancelling the consumer's task ends the result and
    /// stops reading the base.
    ///
    /// ```swift
    /// for await deviceIDs in await notifier.devicePresenceValues().refreshBatches(by: \.deviceId) {
    ///     await store.refreshDevices(deviceIDs)   // once per quiet moment, each device once
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - key: the entity an event is about (a job id, a device id).
    ///   - silence: how long without a new event closes the batch.
    ///   - maximumDelay: how long after its first event a batch is due at the latest.
    ///   - clock: the clock both are measured on (inject a manual one in tests).
    public func refreshBatches<Key: Hashable & Sendable, C: Clock>(
        by key: @escaping @Sendable (Element) -> Key,
        afterSilence silence: C.Duration,
        maximumDelay: C.Duration,
        clock: C
    ) -> AsyncStream<[Key]> {
        let (output, continuation) = AsyncStream.makeStream(of: [Key].self)
        let batch = LockedValue(RefreshBatch<Key, C.Instant>(silence: silence, maximumDelay: maximumDelay))
        // Not a child: the operator returns a stream at once. The reader ends with the base or when
        // the stream's consumer stops; each batch's timer is a child of it.
        let reader = Task {
            await withDiscardingTaskGroup { group in
                do {
                    for try await element in self {
                        let startsBatch = batch.withLock { $0.add(key(element), at: clock.now) }
                        guard startsBatch else { continue }
                        // One timer per batch: it sleeps to the batch's deadline, and again while new
                        // events keep moving it.
                        group.addTask {
                            while let deadline = batch.withLock({ $0.deadline }) {
                                do { try await clock.sleep(until: deadline, tolerance: nil) } catch { return }
                                if let keys = batch.withLock({ $0.take(at: clock.now) }) {
                                    continuation.yield(keys)
                                    return
                                }
                            }
                        }
                    }
                } catch {
                    // A failing base ends the result like a finished one.
                }
                group.cancelAll()
            }
            if let keys = batch.withLock({ $0.takeAll() }) { continuation.yield(keys) }
            continuation.finish()
        }
        continuation.onTermination = { _ in reader.cancel() }
        return output
    }

    /// `refreshBatches(by:afterSilence:maximumDelay:clock:)` on the continuous clock: 500 ms of
    /// silence (the push-signal design's figure), due at the latest 5 s after a batch's first event.
    public func refreshBatches<Key: Hashable & Sendable>(
        by key: @escaping @Sendable (Element) -> Key,
        afterSilence silence: Duration = .milliseconds(500),
        maximumDelay: Duration = .seconds(5)
    ) -> AsyncStream<[Key]> {
        refreshBatches(by: key, afterSilence: silence, maximumDelay: maximumDelay, clock: ContinuousClock())
    }
}

/// The batch `refreshBatches` is gathering: its distinct keys and when it is due. A value, so the
/// rule is tested without tasks or clocks.
package struct RefreshBatch<Key: Hashable & Sendable, Instant: InstantProtocol>: Sendable {
    package let silence: Instant.Duration
    package let maximumDelay: Instant.Duration
    /// Distinct keys in the order first seen.
    package private(set) var keys: [Key] = []
    private var seen: Set<Key> = []
    private var first: Instant?
    private var last: Instant?

    package init(silence: Instant.Duration, maximumDelay: Instant.Duration) {
        self.silence = silence
        self.maximumDelay = maximumDelay
    }

    /// Notes an event about `key` at `now`; true when it starts a batch (which then needs a timer).
    package mutating func add(_ key: Key, at now: Instant) -> Bool {
        let starts = first == nil
        if starts { first = now }
        last = now
        if seen.insert(key).inserted { keys.append(key) }
        return starts
    }

    /// When the batch is due: `silence` after its last event, or `maximumDelay` after its first,
    /// whichever is sooner; `nil` with no batch.
    package var deadline: Instant? {
        guard let first, let last else { return nil }
        return min(last.advanced(by: silence), first.advanced(by: maximumDelay))
    }

    /// The batch's keys when it is due at `now` (and a fresh batch after it), else `nil`.
    package mutating func take(at now: Instant) -> [Key]? {
        guard let deadline, deadline <= now else { return nil }
        return takeAll()
    }

    /// Whatever is gathered, due or not (the base ended); `nil` when nothing is.
    package mutating func takeAll() -> [Key]? {
        guard first != nil else { return nil }
        defer { self = RefreshBatch(silence: silence, maximumDelay: maximumDelay) }
        return keys
    }
}
