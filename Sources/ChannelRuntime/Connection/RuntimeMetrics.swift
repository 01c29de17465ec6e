import CoreMetrics

/// Counters a running client keeps, readable at any time as a `Snapshot`. Malformed frames and
/// payloads are counted here and dropped; the streams go on.
///
/// The same counts also go to swift-metrics (`channelgen_frames_received`, …, per-channel counters
/// with a `channel` dimension holding the channel's template, never a user id; the connect
/// counters and the `channelgen_connect_duration`, `channelgen_first_event_duration` and
/// `channelgen_publish_duration` timers), each with a `transport` dimension (`websocket` or `sse`),
/// so an app or server plugs in its metrics backend. Bootstrap `MetricsSystem` before creating the
/// connection, or pass a factory. One `RuntimeMetrics` counts for one transport: the first
/// connection given it names it. <doc:RolloutMetrics> maps them to a rollout's dashboard.
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
        /// Attempts to connect: the transport was asked to open (a user was signed in). Each ends as
        /// a success, a failure, or neither when the app stopped or suspended it meanwhile.
        public var connectAttempts = 0
        /// Attempts the service accepted (AppSync: `connection_ack`; SSE: a `200` event stream).
        public var connectSuccesses = 0
        /// Attempts that failed, by class (absent: none of that class).
        public var connectFailures: [ConnectFailureClass: Int] = [:]
        /// Server-Sent Events `id`s not kept because they cannot be sent back as `Last-Event-ID`.
        public var ignoredEventIDs = 0
        /// Per channel path: events received, decoded and dropped.
        public var channels: [String: Channel] = [:]
    }

    /// The counters; `channels` stays empty here: each channel's counts live in its `ChannelBox`,
    /// so counting an event through a `ChannelCounter` hashes no channel path.
    private let box: LockedValue<State>
    private let reporter: MetricsReporter

    private struct State {
        var snapshot = Snapshot()
        var channels: [String: ChannelBox] = [:]
        /// `channelgen_frames_received`, counted for every frame: kept at hand.
        var framesCounter: Counter

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
        let counter = box.withLock { state in
            state.snapshot.framesReceived += 1
            return state.framesCounter
        }
        counter.increment(by: 1)
    }

    /// Counters at zero, also reported to `metricsFactory` (by default the bootstrapped `MetricsSystem`).
    public init(metricsFactory: (any MetricsFactory)? = nil) {
        reporter = MetricsReporter(factory: metricsFactory ?? MetricsSystem.factory)
        box = LockedValue(State(framesCounter: reporter.counter("frames_received")))
    }

    /// Names the transport these metrics count for (the `transport` dimension of every metric
    /// made from now on); the first name given stays. A connection names it as it is created,
    /// before anything is counted.
    package func name(transport: String) {
        guard reporter.name(transport: transport) else { return }
        box.withLock { $0.framesCounter = reporter.counter("frames_received") }
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
        reporter.record(duration, in: "publish_duration")
    }

    /// An accepted attempt took `duration` from asking the transport to open to the acceptance.
    package func recordConnect(_ duration: Duration) {
        reporter.record(duration, in: "connect_duration")
    }

    /// The first event of a session came `duration` after its attempt to connect began.
    package func recordFirstEvent(_ duration: Duration) {
        reporter.record(duration, in: "first_event_duration")
    }
}

/// The swift-metrics side of `RuntimeMetrics`: each counter's increase since the last change.
private final class MetricsReporter: Sendable {
    let factory: any MetricsFactory

    private struct Key: Hashable {
        let name: String
        /// The dimensions' names and values, in turn.
        let dimensions: [String]
    }

    private struct State {
        var transport: String?
        var counters: [Key: Counter] = [:]
        var timers: [String: Timer] = [:]
    }

    /// The transport's name and the metrics made so far, each made when first used.
    private let state = LockedValue(State())

    init(factory: any MetricsFactory) {
        self.factory = factory
    }

    /// Whether `transport` became the name (no name was given before).
    func name(transport: String) -> Bool {
        state.withLock { state in
            guard state.transport == nil else { return false }
            state.transport = transport
            return true
        }
    }

    /// `channelgen_<name>` with `dimensions` and the transport's.
    func counter(_ name: String, _ dimensions: [(String, String)] = []) -> Counter {
        state.withLock { state in
            let all = (state.transport.map { [("transport", $0)] } ?? []) + dimensions
            let key = Key(name: name, dimensions: all.flatMap { [$0.0, $0.1] })
            if let counter = state.counters[key] { return counter }
            let counter = Counter(label: "channelgen_" + name, dimensions: all, factory: factory)
            state.counters[key] = counter
            return counter
        }
    }

    func record(_ duration: Duration, in name: String) {
        let timer = state.withLock { state in
            if let timer = state.timers[name] { return timer }
            let timer = Timer(label: "channelgen_" + name, dimensions: state.transport.map { [("transport", $0)] } ?? [], factory: factory)
            state.timers[name] = timer
            return timer
        }
        let (seconds, attoseconds) = duration.components
        timer.recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    func report(from old: RuntimeMetrics.Snapshot, to new: RuntimeMetrics.Snapshot) {
        add("malformed_frames", new.malformedFrames - old.malformedFrames)
        add("unknown_message_types", new.unknownMessageTypes - old.unknownMessageTypes)
        add("unknown_subscription_frames", new.unknownSubscriptionFrames - old.unknownSubscriptionFrames)
        add("subscribe_errors", new.subscribeErrors - old.subscribeErrors)
        add("duplicate_acknowledgements", new.duplicateAcknowledgements - old.duplicateAcknowledgements)
        add("keep_alive_timeouts", new.keepAliveTimeouts - old.keepAliveTimeouts)
        add("reconnects", new.reconnects - old.reconnects)
        add("ignored_event_ids", new.ignoredEventIDs - old.ignoredEventIDs)
        add("connect_attempts", new.connectAttempts - old.connectAttempts)
        add("connect_successes", new.connectSuccesses - old.connectSuccesses)
        for (failureClass, count) in new.connectFailures {
            add("connect_failures", count - (old.connectFailures[failureClass] ?? 0), [("class", failureClass.rawValue)])
        }
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
        counter(name, template.map { [("channel", $0)] } ?? [])
    }

    private func add(_ name: String, _ delta: Int, _ dimensions: [(String, String)] = []) {
        if delta > 0 { counter(name, dimensions).increment(by: delta) }
    }

    private func add(_ counter: Counter, _ delta: Int) {
        if delta > 0 { counter.increment(by: delta) }
    }
}
