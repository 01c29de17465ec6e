/// How many undelivered events a consumer's stream may hold (and at most 8 MiB of them, weighed by
/// their text). A consumer that stops reading then costs at most this much memory; what does not fit is dropped, counted in
/// `RuntimeMetrics.Channel.overflowed` and, on `ChannelEventHub.updates(_:)` streams, reported to
/// the consumer as a `ChannelUpdate.gap`.
///
/// `events` and `envelopes` streams hand events over in batches (`BatchedStream`): besides the
/// buffer, a consumer may hold up to 63 events it already took and has not read yet, which the
/// buffer's dropping does not reach. `updates` streams take one element at a time, so a gap is
/// reported exactly where events went missing.
public enum StreamBufferPolicy: Sendable, Equatable {
    /// Keep the newest `count` events; older undelivered ones are dropped. The default (1 000):
    /// after a stall the consumer sees the latest state first.
    case bufferingNewest(Int)
    /// Keep the oldest `count` undelivered events; newer ones are dropped.
    case bufferingOldest(Int)

    /// The hub's default: the newest 1 000 events.
    public static let `default` = StreamBufferPolicy.bufferingNewest(1_000)

    /// Whatever the count allows, a consumer's buffer holds at most 8 MiB of events, weighed by
    /// their text as it arrived (as the events waiting to be decoded are): a thousand events of a
    /// megabyte would otherwise stay in memory for a consumer that stopped reading.
    static let byteLimit = 8 << 20
    /// What a buffered element weighs beyond its text (a status or a gap weighs this alone).
    static let elementOverhead = 64

    /// A consumer's stream: bounded by this policy's count and by `byteLimit`.
    func makeStream<Element>(of: Element.Type, batchLimit: Int = 64) -> (stream: AsyncStream<Element>, continuation: BatchedStream<Element>.Continuation) {
        let (stream, continuation, _) = BatchedStream<Element>.makeStreamAndReader(
            bufferingPolicy: asyncStreamPolicy(of: Element.self), batchLimit: batchLimit, weightLimit: Self.byteLimit)
        return (stream, continuation)
    }

    func asyncStreamPolicy<Element>(of: Element.Type) -> AsyncStream<Element>.Continuation.BufferingPolicy {
        switch self {
        case .bufferingNewest(let count): .bufferingNewest(max(count, 1))
        case .bufferingOldest(let count): .bufferingOldest(max(count, 1))
        }
    }
}

/// One element of a consumer's update stream (`ChannelEventHub.updates(_:)`): an event, a change of
/// the subscription's status, or the news that events were lost.
public enum ChannelUpdate<Event: Sendable>: Sendable {
    /// An event of the channel.
    case event(Event)
    /// The subscription's status changed (subscribing, active, rejected, …).
    case status(SubscriptionStatus)
    /// `missed` events did not fit the consumer's buffer and were dropped; refetch what the channel
    /// carries. Comes before the first event delivered after the loss.
    case gap(missed: Int)
    /// The subscription is active again after being down for `after` (a reconnect, or the app
    /// suspended and resumed the connection): events published meanwhile did not arrive, so catch up.
    case resumed(after: Duration)
}

extension ChannelUpdate: Equatable where Event: Equatable {}

/// A consumer's updates: events, statuses and gaps in order (see `ChannelEventHub.updates(_:)`).
public struct ChannelUpdates<Event: Sendable>: AsyncSequence, Sendable {
    /// An event, a status change or a gap.
    public typealias Element = ChannelUpdate<Event>

    private let source: Source
    let gaps: GapCounter

    /// Where the updates come from: a hub's stream of updates, or a stream of events alone.
    private enum Source: Sendable {
        case updates(AsyncStream<ChannelUpdate<Event>>)
        case events(AsyncStream<Event>)
    }

    /// Updates as a stream hands them out (a test double's, such as a generated mock's).
    public init(_ updates: AsyncStream<ChannelUpdate<Event>>) {
        self.init(base: updates, gaps: GapCounter())
    }

    init(base: AsyncStream<ChannelUpdate<Event>>, gaps: GapCounter) {
        self.source = .updates(base)
        self.gaps = gaps
    }

    /// Each event of `events` as `.event`, read as the consumer reads (no task between).
    init(events: AsyncStream<Event>) {
        self.source = .events(events)
        self.gaps = GapCounter()
    }

    /// The iterator: a pending gap is handed out before the next buffered element.
    public struct AsyncIterator: AsyncIteratorProtocol {
        /// One of the two is set: a hub's updates, or events alone.
        var updates: AsyncStream<ChannelUpdate<Event>>.AsyncIterator?
        var events: AsyncStream<Event>.AsyncIterator?
        let gaps: GapCounter

        /// The next update; `nil` once the subscription ended or the consumer's task was cancelled.
        public mutating func next() async -> ChannelUpdate<Event>? {
            let missed = gaps.take()
            if missed > 0 { return .gap(missed: missed) }
            if updates != nil { return await updates?.next() }
            return await events?.next().map { .event($0) }
        }
    }

    /// An iterator over the updates (one consumer per sequence).
    public func makeAsyncIterator() -> AsyncIterator {
        switch source {
        case .updates(let updates): AsyncIterator(updates: updates.makeAsyncIterator(), events: nil, gaps: gaps)
        case .events(let events): AsyncIterator(updates: nil, events: events.makeAsyncIterator(), gaps: gaps)
        }
    }
}

/// Events dropped from one consumer's buffer and not yet reported to it.
final class GapCounter: Sendable {
    private let count = LockedValue(0)

    func add(_ missed: Int) { count.withLock { $0 += missed } }

    /// The count so far, reset to zero.
    func take() -> Int { count.withLock { count in defer { count = 0 }; return count } }
}
