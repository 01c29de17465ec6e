import Foundation

/// What the event hub needs from a transport's connection: raw subscriptions to concrete channels,
/// their statuses, the connection's state and its counters. `AppSyncConnection` is one; a second
/// transport (SSE) is another, and the hub, the generated notifier and the stream features on top
/// work with either unchanged.
public protocol ChannelConnection: Sendable {
    /// Counters of frames, reconnects and per-channel events.
    var metrics: RuntimeMetrics { get }

    /// Subscribes to a concrete channel path. The stream stays open across reconnects until
    /// `unsubscribe(_:)` or until its consumer stops.
    func subscribe(to channel: String) async throws -> RawChannelSubscription

    /// Subscribes as `request` says: a channel, and how its spec says it is carried (its own
    /// stream, events that end it). By default the channel is subscribed as any other
    /// (`subscribe(to:)`); `SSEConnection` opens an own stream as its own request.
    func subscribe(_ request: ChannelRequest) async throws -> RawChannelSubscription

    /// Ends a subscription: its stream and status sequence finish.
    func unsubscribe(_ id: String) async

    /// Where the subscription `id` stands now; `nil` once it ended.
    func status(ofSubscription id: String) async -> SubscriptionStatus?

    /// The statuses of subscription `id`, starting with the current one; finishes when it ends.
    func statusUpdates(ofSubscription id: String) async -> AsyncStream<SubscriptionStatus>

    /// What the connection is doing now.
    var state: ConnectionState { get async }

    /// Connection states, starting with the current one.
    func stateUpdates() async -> AsyncStream<ConnectionState>
}

extension ChannelConnection {
    public func subscribe(_ request: ChannelRequest) async throws -> RawChannelSubscription {
        try await subscribe(to: request.channel)
    }
}

/// A channel to subscribe to, and how its spec says it is carried.
public struct ChannelRequest: Sendable, Hashable {
    /// The concrete channel path.
    public var channel: String
    /// Each instance of the channel is its own stream (`x-request-stream` in the spec: an HTTP path
    /// such as `/api/v2/enrichments/{jobId}/stream`, requested on its own) rather than a channel of
    /// the connection's shared stream. A transport without such streams carries it as any channel.
    public var isOwnStream: Bool
    /// Event names after which the channel's stream ends for good (messages marked
    /// `x-ends-stream`, such as a job's `completed` and `failed`): the event is delivered, the
    /// stream finishes and nothing reopens it.
    public var finalEventNames: Set<String>
    /// Event names of the service's in-band errors on the stream (messages marked
    /// `x-stream-error`, such as `error` with `{"code": "AUTH_FAILURE"}`): delivered like any
    /// event, and acted on by the connection (`SSEConfiguration.streamErrorAction`).
    public var errorEventNames: Set<String>

    /// A request for `channel`; by default carried on the connection's shared stream and never ended by an event.
    public init(channel: String, isOwnStream: Bool = false, finalEventNames: Set<String> = [], errorEventNames: Set<String> = []) {
        self.channel = channel
        self.isOwnStream = isOwnStream
        self.finalEventNames = finalEventNames
        self.errorEventNames = errorEventNames
    }
}

/// One event as a connection received it: its JSON text, its place in the connection's arrival
/// order and when it arrived.
public struct RawChannelEvent: Sendable, Equatable {
    /// The event's JSON text.
    public let text: String
    /// Counts every event the connection received, across its subscriptions and reconnects (from 1).
    public let sequence: Int
    /// When the frame carrying it arrived.
    public let receivedAt: Date
    /// The event's id where the wire gives one: a Server-Sent Events `id:` (an event without its
    /// own carries the last one, as `EventSource` does); `nil` on AppSync, whose events have none.
    public package(set) var id: String?
    /// Events of its subscription dropped just before it, unread, because they arrived faster than
    /// they were decoded (the connection's bound on undecoded events).
    package var droppedBefore = 0
    /// The name the transport gave the event, where it names events (a Server-Sent Events `event:`
    /// field on an own stream: it selects the channel's message); `nil` elsewhere.
    package var eventName: String?
    /// A status of the subscription, in its place among the events
    /// (`RawChannelSubscription.carriesStatuses`); `nil` for almost every event.
    package var status: CarriedStatus?

    /// An event as a connection hands it out.
    public init(text: String, sequence: Int, receivedAt: Date) {
        self.text = text
        self.sequence = sequence
        self.receivedAt = receivedAt
    }

    /// A subscription's new status, alone, in its stream.
    package init(status: SubscriptionStatus, sequence: Int) {
        self.init(text: "", sequence: sequence, receivedAt: Date())
        self.status = CarriedStatus(status, alone: true)
    }

    /// What an event weighs in a bounded buffer of undecoded events: its text and a little more.
    package var weight: Int { text.utf8.count + 64 }

    /// `BatchedStream`'s `markingGap` for undecoded events: the first event after dropped ones
    /// carries their count (and what they carried), so the hub reports the loss where it happened.
    ///
    /// A status dropped with them is not lost: the latest one rides on the event, applied before it.
    package static func markGap(_ event: inout RawChannelEvent, _ dropped: [RawChannelEvent]) {
        for gone in dropped { event.droppedBefore += (gone.status?.alone == true ? 0 : 1) + gone.droppedBefore }
        if event.status == nil, let latest = dropped.last(where: { $0.status != nil })?.status {
            event.status = CarriedStatus(latest.status, alone: false)
        }
    }
}

/// A subscription's status carried in its stream of raw events, so the hub reads statuses and
/// events in the order the connection gave them (a failure after the events that came before it).
/// A reference: an event carries one word for it, `nil` almost always.
package final class CarriedStatus: Sendable, Equatable {
    package let status: SubscriptionStatus
    /// The element is the status alone; else an event follows it (the status was dropped from a full
    /// buffer and rides on the next event).
    package let alone: Bool

    package init(_ status: SubscriptionStatus, alone: Bool) {
        self.status = status
        self.alone = alone
    }

    package static func == (lhs: CarriedStatus, rhs: CarriedStatus) -> Bool { lhs.status == rhs.status && lhs.alone == rhs.alone }
}

/// A subscription's id and its stream of raw events.
public struct RawChannelSubscription: Sendable {
    /// The subscription id (AppSync: used on the wire).
    public let id: String
    /// The concrete channel path.
    public let channel: String
    /// Each event, in arrival order.
    public let events: AsyncStream<RawChannelEvent>
    /// The reader behind `events` when a runtime connection made it (`BatchedStream`): the hub
    /// reads it directly. `nil` for other connections.
    package let reader: BatchedStream<RawChannelEvent>.Reader?
    /// Whether `events` carries the subscription's statuses in order (`RawChannelEvent.status`), as
    /// a runtime connection's do: then the hub reads no `statusUpdates(ofSubscription:)` beside it.
    package var carriesStatuses = false

    /// A subscription as a connection hands it out.
    public init(id: String, channel: String, events: AsyncStream<RawChannelEvent>) {
        self.init(id: id, channel: channel, events: events, reader: nil)
    }

    package init(id: String, channel: String, events: AsyncStream<RawChannelEvent>, reader: BatchedStream<RawChannelEvent>.Reader?) {
        self.id = id
        self.channel = channel
        self.events = events
        self.reader = reader
    }

    /// The next event: from the connection's batched reader when it made one (no `AsyncStream`
    /// work per element), else from `events` through `iterator` (made from `events`).
    package func next(_ iterator: inout AsyncStream<RawChannelEvent>.Iterator) async -> RawChannelEvent? {
        if let reader { return await reader.next() }
        return await iterator.next()
    }
}
