import Foundation

/// An event with where and when it came from: the stream element of `ChannelEventHub.envelopes(_:)`
/// and of the history.
public struct ChannelEnvelope<Event: Sendable>: Sendable {
    /// The decoded event.
    public let event: Event
    /// The concrete channel path it arrived on.
    public let channel: String
    /// The event type the payload announced (or the subscription's, when the payload has none).
    public let eventType: String?
    /// When the frame carrying it arrived.
    public let receivedAt: Date
    /// Its place among every event the connection received (from 1, across reconnects).
    public let sequence: Int
    /// The id the server gave the event, where the wire carries one: a Server-Sent Events `id:`
    /// (an event without its own carries the last one, as `EventSource` does). A server that
    /// replays events after a reconnect sends the same ids again, so an app can tell a replayed
    /// event from a new one. `nil` on AppSync, whose events have no id.
    public let id: String?

    /// An envelope (the hub makes them; test doubles too).
    public init(event: Event, channel: String, eventType: String?, receivedAt: Date, sequence: Int, id: String? = nil) {
        self.event = event
        self.channel = channel
        self.eventType = eventType
        self.receivedAt = receivedAt
        self.sequence = sequence
        self.id = id
    }
}

extension ChannelEnvelope: Equatable where Event: Equatable {}

/// How much of a channel's past the hub keeps (`ChannelEventHub.keepHistory(of:_:)`).
public struct HistoryRetention: Sendable, Equatable {
    /// The most events kept; older ones are forgotten first.
    public var count: Int
    /// Events older than this are forgotten (`nil`: no age limit).
    public var maximumAge: Duration?

    /// Keep at most `count` events, none older than `maximumAge`.
    public init(count: Int, maximumAge: Duration? = nil) {
        self.count = max(count, 0)
        self.maximumAge = maximumAge
    }
}

/// The recent events of one channel, for a debug screen or a consumer that comes late.
final class HistoryStore<Event: Sendable>: Sendable {
    private struct Item {
        let envelope: ChannelEnvelope<Event>
        /// On the hub's clock, for age retention.
        let at: Duration
    }

    let retention: HistoryRetention
    private let clock: RuntimeClock
    private let items = LockedValue<[Item]>([])

    init(retention: HistoryRetention, clock: RuntimeClock) {
        self.retention = retention
        self.clock = clock
    }

    func append(_ envelope: ChannelEnvelope<Event>) {
        let now = clock.now()
        items.withLock { items in
            // One channel's history: another channel's events are not kept beside it.
            if let last = items.last, last.envelope.channel != envelope.channel { items.removeAll() }
            items.append(Item(envelope: envelope, at: now))
            prune(&items, now: now)
        }
    }

    /// What is kept now of `channel`, oldest first: nothing when the kept events are another
    /// channel's (the parameters changed since: it may be another user's).
    func snapshot(of channel: String?) -> [ChannelEnvelope<Event>] {
        let now = clock.now()
        return items.withLock { items in
            prune(&items, now: now)
            guard let channel, items.last?.envelope.channel == channel else { return [] }
            return items.map(\.envelope)
        }
    }

    private func prune(_ items: inout [Item], now: Duration) {
        if items.count > retention.count { items.removeFirst(items.count - retention.count) }
        if let maximumAge = retention.maximumAge, let keep = items.firstIndex(where: { now - $0.at <= maximumAge }) {
            items.removeFirst(keep)
        } else if retention.maximumAge != nil {
            items.removeAll()
        }
    }
}
