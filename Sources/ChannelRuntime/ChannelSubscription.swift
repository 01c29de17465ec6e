/// A typed subscription to one channel: which address, which payload type and which event type
/// it carries. Generated code declares one per channel (`DevicePresenceSubscription`, …).
public protocol ChannelSubscription: Hashable, Sendable {
    /// The payload type of the channel's events.
    associatedtype Event: Codable & Sendable

    static var template: ChannelTemplate { get }
    /// The message `name` from the spec (e.g. `device/presenceChanged`); the runtime compares it
    /// with the payload's `eventType` and counts mismatches. Routing never depends on it.
    static var eventType: String? { get }

    /// Builds the subscription from named parameter values (the runtime's current session).
    init(parameters: [String: ChannelSegment]) throws(ChannelParameterError)

    var parameters: [String: ChannelSegment] { get }
    /// The concrete channel path to subscribe to.
    var channel: String { get }
}

/// Where a generated notifier gets its streams: the runtime's connection, or a test double.
/// A stream stays open across reconnects; the source fills the subscription's parameters.
public protocol ChannelEventSource: Sendable {
    func events<Subscription: ChannelSubscription>(_ subscription: Subscription.Type) async -> AsyncStream<Subscription.Event>
}
