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

    /// Delivers `event` (`weight`: the bytes of its text); returns how many events this consumer
    /// lost making room.
    func deliver(_ event: Event, weight: Int) -> Int {
        send(.event(event), weight: weight + StreamBufferPolicy.elementOverhead)
    }

    func deliver(_ status: SubscriptionStatus) {
        lastStatus.withLock { $0 = status }
        _ = send(.status(status))
    }

    /// Events lost before they reached this consumer: a gap after what it has been given so far.
    func deliverGap(missed: Int) {
        _ = send(.gap(missed: missed))
    }

    func deliverResumed(after gap: Duration) {
        _ = send(.resumed(after: gap))
    }

    /// Buffers `update`; what the buffer drops to make room (by count or by weight) becomes a gap,
    /// and a dropped status is sent again. Returns how many events went.
    private func send(_ update: ChannelUpdate<Event>, weight: Int = StreamBufferPolicy.elementOverhead) -> Int {
        if case .bufferingOldest = policy {
            let pending = pendingTailGap.withLock { $0 }
            if pending > 0, continuation.send(.gap(missed: pending), weight: StreamBufferPolicy.elementOverhead) == 0 {
                pendingTailGap.withLock { $0 -= pending }
            }
        }
        var lost = Lost()
        let dropped = continuation.send(update, weight: weight) { _, gone in
            for update in gone { lost.add(update) }
        }
        guard dropped > 0 else { return 0 }
        switch policy {
        case .bufferingNewest:
            gaps.add(lost.events + lost.missed)
            // A status fell out for an event: send the latest again so the consumer ends up knowing
            // it (once; a status dropped for a status is superseded by it).
            if lost.status, case .event = update, let status = lastStatus.withLock({ $0 }) { return lost.events + send(.status(status)) }
        case .bufferingOldest:
            // The update itself did not fit: the gap goes into the stream once there is room.
            lost.add(update)
            pendingTailGap.withLock { $0 += lost.events + lost.missed }
        }
        return lost.events
    }

    /// What a buffer dropped to make room.
    private struct Lost {
        var events = 0
        /// Events of dropped gaps.
        var missed = 0
        var status = false

        mutating func add(_ update: ChannelUpdate<Event>) {
            switch update {
            case .event: events += 1
            case .gap(let count): missed += count
            case .status: status = true
            case .resumed: break
            }
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
