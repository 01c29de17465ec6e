import ChannelRuntime
import NIOConcurrencyHelpers

/// Counters a running client keeps, readable at any time as a `Snapshot`. Malformed frames and
/// payloads are counted here and dropped; the streams go on.
public final class RuntimeMetrics: Sendable {
    public struct Channel: Sendable, Equatable {
        /// Events that arrived for the channel.
        public var received = 0
        /// Events decoded and delivered to consumers.
        public var decoded = 0
        /// Events dropped: the payload did not decode or carried another `eventType`.
        public var dropped = 0

        public init(received: Int = 0, decoded: Int = 0, dropped: Int = 0) {
            self.received = received
            self.decoded = decoded
            self.dropped = dropped
        }
    }

    public struct Snapshot: Sendable, Equatable {
        public var framesReceived = 0
        public var malformedFrames = 0
        public var unknownMessageTypes = 0
        public var unknownSubscriptionFrames = 0
        public var subscribeErrors = 0
        public var keepAliveTimeouts = 0
        public var reconnects = 0
        public var channels: [String: Channel] = [:]
    }

    private let box = NIOLockedValueBox(Snapshot())

    public init() {}

    public func snapshot() -> Snapshot { box.withLockedValue { $0 } }

    func update(_ change: (inout Snapshot) -> Void) { box.withLockedValue(change) }

    func channel(_ channel: String, _ change: (inout Channel) -> Void) {
        box.withLockedValue { change(&$0.channels[channel, default: Channel()]) }
    }
}
