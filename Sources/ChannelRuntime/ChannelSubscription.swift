/// A typed subscription to one channel: which address, which payload type and which event type
/// it carries. Generated code declares one per channel (`DevicePresenceSubscription`, …).
public protocol ChannelSubscription: Hashable, Sendable {
    /// The payload type of the channel's events.
    associatedtype Event: Codable & Sendable

    /// The channel's address template.
    static var template: ChannelTemplate { get }
    /// The message `name` from the spec (e.g. `device/presenceChanged`). Routing never depends on
    /// it: a payload naming another event type is delivered all the same, and counted.
    static var eventType: String? { get }

    /// Every event type the channel's messages declare: `eventType` with the spec's aliases
    /// (`x-event-type-aliases`), or the values that tell several messages apart. An event that
    /// names none of them is still delivered, and counted, logged once per value and shown in the
    /// subscription's status (`.degraded`). Empty when the spec declares none: nothing is judged.
    @_spi(Generated) static var eventTypes: Set<String> { get }

    /// The concrete channel path to subscribe to. Two subscriptions of one type are equal when
    /// their channels are.
    var channel: String { get }

    /// The channel for named parameter values (the hub's current ones, such as the signed-in user
    /// id); by default the template filled in. A channel whose spec leaves the address open has no
    /// parameters to fill in and throws.
    @_spi(Generated) static func channel(for parameters: [String: ChannelSegment]) throws(ChannelParameterError) -> String

    /// How to tell this channel's events from those of other channels on the same address;
    /// `nil` (the default) when the channel has its address to itself.
    @_spi(Generated) static var sharedAddress: SharedAddressRouting? { get }

    /// Whether the transport carries each event as plain text rather than JSON (a `text/plain`
    /// message over Server-Sent Events, whose `Event` is `String`): an event is the text as it
    /// arrived and is published as it is. `false` (the default): events are JSON values.
    @_spi(Generated) static var eventsAreText: Bool { get }

    /// Whether each instance is its own stream (`x-request-stream`: an HTTP path requested on its
    /// own over Server-Sent Events, such as a job's progress). `false` (the default): a channel of
    /// the connection's shared stream.
    @_spi(Generated) static var isOwnStream: Bool { get }

    /// The names of the messages that end the stream (`x-ends-stream`: a job's `completed` and
    /// `failed`): such an event is delivered, then every consumer's stream finishes. Empty (the
    /// default): the stream runs until its consumers stop.
    @_spi(Generated) static var finalEventNames: Set<String> { get }

    /// The names of the messages that are the service's in-band errors (`x-stream-error`): they
    /// reach consumers typed, and the connection acts on them (re-authorize, back off, give up).
    @_spi(Generated) static var errorEventNames: Set<String> { get }
}

extension ChannelSubscription {
    @_spi(Generated) public static func channel(for parameters: [String: ChannelSegment]) throws(ChannelParameterError) -> String {
        try template.channel(parameters)
    }

    @_spi(Generated) public static var eventTypes: Set<String> { eventType.map { [$0] } ?? [] }
    @_spi(Generated) public static var sharedAddress: SharedAddressRouting? { nil }
    @_spi(Generated) public static var eventsAreText: Bool { false }
    @_spi(Generated) public static var isOwnStream: Bool { false }
    @_spi(Generated) public static var finalEventNames: Set<String> { [] }
    @_spi(Generated) public static var errorEventNames: Set<String> { [] }

    // A subscription is its channel: the generated types need no synthesized conformance each.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.channel == rhs.channel }
    public func hash(into hasher: inout Hasher) { hasher.combine(channel) }
}

/// Several channels on one address (valid AsyncAPI 3: streams multiplexed on one path), told apart
/// by a top-level string property whose value names the message (`"event": "heartbeat"`). Each
/// channel's subscription skips the events whose value names only other channels' messages (they
/// are theirs); every other event, a message of its own or one nobody declared, is decoded as usual.
@_spi(Generated) public struct SharedAddressRouting: Sendable, Hashable {
    /// The property whose value names the message.
    public let property: String
    /// The values that name messages of other channels on the address and none of this one's.
    public let otherChannelsValues: Set<String>

    public init(property: String, otherChannelsValues: Set<String>) {
        self.property = property
        self.otherChannelsValues = otherChannelsValues
    }

    /// Whether `text` is another channel's event. Text that is not a JSON object, or has no such
    /// string property, is not: it goes on to decoding, which reports what is wrong with it.
    public func isOtherChannelsEvent(_ text: String) -> Bool {
        guard let value = try? JSONReader.peekString(forKey: property, in: text) else { return false }
        return otherChannelsValues.contains(value)
    }
}

/// Where a generated notifier gets its streams: `ChannelEventHub` over an `AppSyncConnection`, or a
/// test double. The source holds the channel parameters (such as the signed-in user id) and fills
/// them into each subscription; a stream stays open across reconnects and parameter changes.
public protocol ChannelEventSource: Sendable {
    /// The typed events of a channel for the source's current parameters; the stream stays open
    /// across reconnects and parameter changes until its consumer stops.
    func events<Subscription: ChannelSubscription>(_ subscription: Subscription.Type) async -> AsyncStream<Subscription.Event>

    /// The typed events of one instance of a channel, whatever the source's parameters.
    func events<Subscription: ChannelSubscription>(for instance: Subscription) async -> AsyncStream<Subscription.Event>

    /// `events(_:)` with each event's channel, event type, arrival time and sequence number.
    func envelopes<Subscription: ChannelSubscription>(_ subscription: Subscription.Type) async -> AsyncStream<ChannelEnvelope<Subscription.Event>>

    /// The events of a channel for the source's parameters with what happened between them: status
    /// changes, gaps (events lost), resumptions after the connection was down.
    func updates<Subscription: ChannelSubscription>(_ subscription: Subscription.Type) async -> ChannelUpdates<Subscription.Event>

    /// Sets a channel parameter; every open stream moves to the channels the new value names.
    func setParameter(_ name: String, to value: ChannelSegment) async

    /// Where the subscription behind `subscription`'s streams stands (`nil` while nobody listens).
    func status<Subscription: ChannelSubscription>(of subscription: Subscription.Type) async -> SubscriptionStatus?

    /// The statuses of the subscription behind `subscription`'s streams, starting with the current one.
    func statusUpdates<Subscription: ChannelSubscription>(for subscription: Subscription.Type) async -> AsyncStream<SubscriptionStatus>

    /// What the connection is doing now (offline, not authorized, …).
    var connectionState: ConnectionState { get async }

    /// The connection's states, starting with the current one.
    func connectionStateUpdates() async -> AsyncStream<ConnectionState>

    /// Publishes 1–5 events to `subscription`'s channel for the source's current parameters.
    func publish<Subscription: ChannelSubscription>(_ events: [Subscription.Event], to subscription: Subscription.Type) async throws(ChannelPublishError)
}

extension ChannelEventSource {
    /// A source without its own (a test double): the events alone, each as `.event`.
    public func updates<Subscription: ChannelSubscription>(_ subscription: Subscription.Type) async -> ChannelUpdates<Subscription.Event> {
        ChannelUpdates(events: await events(subscription))
    }

    /// A source that does not publish (a test double) throws `unsupportedSource`.
    public func publish<Subscription: ChannelSubscription>(_ events: [Subscription.Event], to subscription: Subscription.Type) async throws(ChannelPublishError) {
        throw .unsupportedSource
    }
}

/// A payload that names its own event type. The runtime compares it with the subscription's
/// `eventTypes` and counts (never drops) the events that name another; routing never depends on it.
@_spi(Generated) public protocol EventTypeReporting {
    /// The event type the payload announces (e.g. `device/presenceChanged`); for the enum of a
    /// channel's several messages, the value that chose the case (or that chose none: `unknown`).
    var eventType: String { get }
}
