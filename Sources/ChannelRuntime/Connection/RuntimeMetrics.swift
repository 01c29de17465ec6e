
/// Counters a running client keeps, readable at any time as a `Snapshot`. Malformed frames and
/// payloads are counted here and dropped; the streams go on.
public final class RuntimeMetrics: Sendable {
    /// Events of one channel.
    public struct Channel: Sendable, Equatable {
        /// Events that arrived for the channel.
        public var received = 0
        /// Events decoded and delivered to consumers.
        public var decoded = 0
        /// Events dropped: the payload did not decode or carried another `eventType`.
        public var dropped = 0
        /// Events a consumer did not get because its buffer was full (it stopped reading); counted
        /// once per consumer that missed the event. The consumer learns of it as a gap.
        public var overflowed = 0

        /// Counts for one channel.
        public init(received: Int = 0, decoded: Int = 0, dropped: Int = 0, overflowed: Int = 0) {
            self.received = received
            self.decoded = decoded
            self.dropped = dropped
            self.overflowed = overflowed
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
        /// Per channel path: events received, decoded and dropped.
        public var channels: [String: Channel] = [:]
    }

    private let box = LockedValue(Snapshot())

    /// Counters at zero.
    public init() {}

    /// The counters now.
    public func snapshot() -> Snapshot { box.withLock { $0 } }

    package func update(_ change: (inout Snapshot) -> Void) { box.withLock(change) }

    package func channel(_ channel: String, _ change: (inout Channel) -> Void) {
        box.withLock { change(&$0.channels[channel, default: Channel()]) }
    }
}
