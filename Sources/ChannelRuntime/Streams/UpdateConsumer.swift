/// An `updates(_:)` consumer: events and statuses into a bounded stream, and the gaps that leaves.
final class UpdateConsumer<Event: Sendable>: Sendable {
    let continuation: BatchedStream<ChannelUpdate<Event>>.Continuation
    let policy: StreamBufferPolicy
    /// Newest-first buffers drop the oldest buffered events: the gap goes before whatever the
    /// consumer reads next, which the iterator does with this counter.
    let gaps: GapCounter
    /// Oldest-first buffers drop the new events: the gap goes into the stream once there is room.
    private let pendingTailGap = LockedValue(0)
    private let lastStatus = LockedValue<SubscriptionStatus?>(nil)

    init(continuation: BatchedStream<ChannelUpdate<Event>>.Continuation, policy: StreamBufferPolicy, gaps: GapCounter) {
        self.continuation = continuation
        self.policy = policy
        self.gaps = gaps
    }

    /// Delivers `event`; returns how many events this consumer lost making room (0 or 1).
    func deliver(_ event: Event) -> Int {
        yield(.event(event))
    }

    func deliver(_ status: SubscriptionStatus) {
        lastStatus.withLock { $0 = status }
        _ = yield(.status(status))
    }

    /// Events lost before they reached this consumer: a gap after what it has been given so far.
    func deliverGap(missed: Int) {
        _ = yield(.gap(missed: missed))
    }

    func deliverResumed(after gap: Duration) {
        _ = yield(.resumed(after: gap))
    }

    private func yield(_ update: ChannelUpdate<Event>) -> Int {
        if case .bufferingOldest = policy {
            let pending = pendingTailGap.withLock { $0 }
            if pending > 0, case .enqueued = continuation.yield(.gap(missed: pending)) {
                pendingTailGap.withLock { $0 -= pending }
            }
        }
        switch continuation.yield(update) {
        case .enqueued, .terminated:
            return 0
        case .dropped(let dropped):
            switch (policy, dropped) {
            case (.bufferingNewest, .event):
                gaps.add(1)
                return 1
            case (.bufferingOldest, .event):
                pendingTailGap.withLock { $0 += 1 }
                return 1
            case (.bufferingNewest, .gap(let missed)):
                gaps.add(missed)
                return 0
            case (.bufferingOldest, .gap(let missed)):
                pendingTailGap.withLock { $0 += missed }
                return 0
            case (_, .resumed):
                return 0
            case (_, .status):
                // A status fell out for an event: send the latest again so the consumer ends up
                // knowing it (once; a status dropped by this status is superseded by it).
                guard case .event = update, let status = lastStatus.withLock({ $0 }) else { return 0 }
                return yield(.status(status))
            }
        @unknown default:
            return 0
        }
    }

    func finish() { continuation.finish() }

    /// Drops the updates not read yet and the gaps counted for them.
    func discardBuffered() {
        continuation.discardBuffered()
        _ = gaps.take()
        pendingTailGap.withLock { $0 = 0 }
    }
}
