import CoreMetrics

/// Counters a running client keeps, readable at any time as a `Snapshot`. Malformed frames and
/// payloads are counted here and dropped; the streams go on.
///
/// The same counts also go to swift-metrics (`channelgen_frames_received`, …, per-channel counters
/// with a `channel` dimension holding the channel's template, never a user id; and the
/// `channelgen_publish_duration` timer), so an app or server plugs in its metrics backend. Bootstrap
/// `MetricsSystem` before creating the connection, or pass a factory.
public final class RuntimeMetrics: Sendable {
    /// Events of one channel.
    public struct Channel: Sendable, Equatable {
        /// Events that arrived for the channel.
        public var received = 0
        /// Events decoded and delivered to consumers.
        public var decoded = 0
        /// Events dropped: the payload did not decode.
        public var dropped = 0
        /// Events whose event type no message of the channel declares (delivered all the same on a
        /// channel with one message; as the `unknown` case on a channel of several).
        public var undeclaredEventTypes = 0
        /// Events a consumer did not get because its buffer was full (it stopped reading); counted
        /// once per consumer that missed the event. The consumer learns of it as a gap. Also events
        /// that arrived faster than they could be decoded, beyond what may wait for that.
        public var overflowed = 0
        /// Events of another channel on the same address (a shared address), left to that channel.
        public var otherChannels = 0

        /// Counts for one channel.
        public init(
            received: Int = 0, decoded: Int = 0, dropped: Int = 0, undeclaredEventTypes: Int = 0, overflowed: Int = 0, otherChannels: Int = 0
        ) {
            self.received = received
            self.decoded = decoded
            self.dropped = dropped
            self.undeclaredEventTypes = undeclaredEventTypes
            self.overflowed = overflowed
            self.otherChannels = otherChannels
        }
    }

    /// The counters at one moment (connection counters are filled in by the transport).
    public struct Snapshot: Sendable, Equatable {
        /// Every frame read from the transport.
        public var framesReceived = 0
        /// Frames that were not a server message (logged and dropped).
        public var malformedFrames = 0
        /// Messages of a type this client does not know.
        public var unknownMessageTypes = 0
        /// Data for a subscription id the connection does not have.
        public var unknownSubscriptionFrames = 0
        /// `subscribe_error` answers.
        public var subscribeErrors = 0
        /// `connection_ack`s after the first on one connection (ignored).
        public var duplicateAcknowledgements = 0
        /// Connections ended because nothing arrived within `connectionTimeoutMs`.
        public var keepAliveTimeouts = 0
        /// Reconnects, planned or after a drop.
        public var reconnects = 0
        /// Server-Sent Events `id`s not kept because they cannot be sent back as `Last-Event-ID`.
        public var ignoredEventIDs = 0
        /// Per channel path: events received, decoded and dropped.
        public var channels: [String: Channel] = [:]
    }

    /// The counters; `channels` stays empty here: each channel's counts live in its `ChannelBox`,
    /// so counting an event through a `ChannelCounter` hashes no channel path.
    private let box = LockedValue(State())
    private let reporter: MetricsReporter

    private struct State {
        var snapshot = Snapshot()
        var channels: [String: ChannelBox] = [:]

        mutating func channel(_ channel: String) -> ChannelBox {
            if let existing = channels[channel] { return existing }
            let made = ChannelBox()
            channels[channel] = made
            return made
        }
    }

    /// One channel's counts, changed only with `box` locked.
    fileprivate final class ChannelBox: @unchecked Sendable {
        // @unchecked: `counts` is only touched with the metrics' lock held.
        var counts = Channel()
    }

    /// Counts the events of one channel path without looking it up each time: the hot path of a
    /// connection (received) and of a hub entry (decoded).
    package struct ChannelCounter: Sendable {
        fileprivate let metrics: RuntimeMetrics
        fileprivate let counts: ChannelBox
        fileprivate let received: Counter
        fileprivate let decoded: Counter

        /// `count` more events arrived.
        package func received(_ count: Int) {
            metrics.box.withLock { _ in counts.counts.received += count }
            received.increment(by: count)
        }

        /// One more event was decoded and delivered.
        package func decodedOne() {
            metrics.box.withLock { _ in counts.counts.decoded += 1 }
            decoded.increment(by: 1)
        }
    }

    /// The counter of `channel`; `template` names it in swift-metrics (see `channel(_:template:_:)`).
    package func counter(forChannel channel: String, template: String? = nil) -> ChannelCounter {
        ChannelCounter(
            metrics: self, counts: box.withLock { $0.channel(channel) },
            received: reporter.channelCounter("events_received", template: template),
            decoded: reporter.channelCounter("events_decoded", template: template))
    }

    /// Counts one frame read from the transport.
    package func countFrame() {
        box.withLock { $0.snapshot.framesReceived += 1 }
        reporter.framesReceived.increment(by: 1)
    }

    /// Counters at zero, also reported to `metricsFactory` (by default the bootstrapped `MetricsSystem`).
    public init(metricsFactory: (any MetricsFactory)? = nil) {
        reporter = MetricsReporter(factory: metricsFactory ?? MetricsSystem.factory)
    }

    /// The counters now.
    public func snapshot() -> Snapshot {
        box.withLock { state in
            var snapshot = state.snapshot
            snapshot.channels = state.channels.mapValues(\.counts)
            return snapshot
        }
    }

    package func update(_ change: (inout Snapshot) -> Void) {
        let (old, new) = box.withLock { state in
            let old = state.snapshot
            change(&state.snapshot)
            return (old, state.snapshot)
        }
        reporter.report(from: old, to: new)
    }

    /// Changes the counts of one channel path; `template` (the address with `{parameters}`) names it
    /// in swift-metrics, so user ids never become metric dimensions.
    package func channel(_ channel: String, template: String? = nil, _ change: (inout Channel) -> Void) {
        let (old, new) = box.withLock { state in
            let counts = state.channel(channel)
            let old = counts.counts
            change(&counts.counts)
            return (old, counts.counts)
        }
        reporter.report(from: old, to: new, template: template)
    }

    /// A publish took `duration` from sending to its answer.
    package func recordPublish(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        reporter.publishDuration.recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}

/// The swift-metrics side of `RuntimeMetrics`: each counter's increase since the last change.
private final class MetricsReporter: Sendable {
    let factory: any MetricsFactory
    let framesReceived, malformedFrames, unknownMessageTypes, unknownSubscriptionFrames: Counter
    let subscribeErrors, duplicateAcknowledgements, keepAliveTimeouts, reconnects: Counter
    let publishDuration: Timer
    private struct ChannelCounterKey: Hashable {
        let name: String
        let template: String?
    }

    /// Per-channel counters by name and template, made when first used.
    private let channelCounters = LockedValue<[ChannelCounterKey: Counter]>([:])

    init(factory: any MetricsFactory) {
        self.factory = factory
        func counter(_ name: String) -> Counter { Counter(label: "channelgen_" + name, factory: factory) }
        framesReceived = counter("frames_received")
        malformedFrames = counter("malformed_frames")
        unknownMessageTypes = counter("unknown_message_types")
        unknownSubscriptionFrames = counter("unknown_subscription_frames")
        subscribeErrors = counter("subscribe_errors")
        duplicateAcknowledgements = counter("duplicate_acknowledgements")
        keepAliveTimeouts = counter("keep_alive_timeouts")
        reconnects = counter("reconnects")
        publishDuration = Timer(label: "channelgen_publish_duration", factory: factory)
    }

    func report(from old: RuntimeMetrics.Snapshot, to new: RuntimeMetrics.Snapshot) {
        add(framesReceived, new.framesReceived - old.framesReceived)
        add(malformedFrames, new.malformedFrames - old.malformedFrames)
        add(unknownMessageTypes, new.unknownMessageTypes - old.unknownMessageTypes)
        add(unknownSubscriptionFrames, new.unknownSubscriptionFrames - old.unknownSubscriptionFrames)
        add(subscribeErrors, new.subscribeErrors - old.subscribeErrors)
        add(duplicateAcknowledgements, new.duplicateAcknowledgements - old.duplicateAcknowledgements)
        add(keepAliveTimeouts, new.keepAliveTimeouts - old.keepAliveTimeouts)
        add(reconnects, new.reconnects - old.reconnects)
    }

    func report(from old: RuntimeMetrics.Channel, to new: RuntimeMetrics.Channel, template: String?) {
        // Called for every event: no collection is built here.
        if new.received > old.received { add(channelCounter("events_received", template: template), new.received - old.received) }
        if new.decoded > old.decoded { add(channelCounter("events_decoded", template: template), new.decoded - old.decoded) }
        if new.dropped > old.dropped { add(channelCounter("events_dropped", template: template), new.dropped - old.dropped) }
        if new.undeclaredEventTypes > old.undeclaredEventTypes {
            add(channelCounter("events_undeclared_type", template: template), new.undeclaredEventTypes - old.undeclaredEventTypes)
        }
        if new.overflowed > old.overflowed { add(channelCounter("events_overflowed", template: template), new.overflowed - old.overflowed) }
        if new.otherChannels > old.otherChannels { add(channelCounter("events_other_channels", template: template), new.otherChannels - old.otherChannels) }
    }

    func channelCounter(_ name: String, template: String?) -> Counter {
        let key = ChannelCounterKey(name: name, template: template)
        return channelCounters.withLock { counters in
            if let counter = counters[key] { return counter }
            let counter = Counter(label: "channelgen_" + name, dimensions: template.map { [("channel", $0)] } ?? [], factory: factory)
            counters[key] = counter
            return counter
        }
    }

    private func add(_ counter: Counter, _ delta: Int) {
        if delta > 0 { counter.increment(by: delta) }
    }
}
