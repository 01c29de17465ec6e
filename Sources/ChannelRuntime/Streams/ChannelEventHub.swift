import Foundation
import Logging

/// Typed streams over one `ChannelConnection` (AppSync Events, or any other transport): the
/// `ChannelEventSource` generated notifiers use.
///
/// Consumers of one subscription type share one channel subscription: it is subscribed when the
/// first consumer arrives and unsubscribed when the last one stops. Each event is decoded once and
/// delivered to every consumer. A payload that does not decode is logged, counted and dropped; one
/// whose event type no message of the channel declares is delivered, counted and logged once. Either
/// shows in the subscription's status (`.degraded`). Changing a parameter (the user id) moves every
/// open stream to the new channels without ending it.
///
/// Every consumer has a bounded buffer (`bufferPolicy`, default the newest 1 000 events): a consumer
/// that stops reading cannot grow memory without limit. Events that do not fit are counted per
/// channel (`RuntimeMetrics.Channel.overflowed`), logged, and reported to `updates(_:)` consumers as
/// a `ChannelUpdate.gap`, so an app can refetch what it missed.
public actor ChannelEventHub: ChannelEventSource {
    /// The connection the subscriptions run on.
    public nonisolated let connection: any ChannelConnection
    /// Where typed publishes go: the `publisher` given, else the connection when it publishes.
    private let publisher: (any ChannelPublishing)?
    /// How many undelivered events each consumer's stream may hold.
    public nonisolated let bufferPolicy: StreamBufferPolicy
    private var parameters: [String: ChannelSegment]
    private var entries: [String: any HubEntry] = [:]
    /// What the connection says of each subscription.
    private var serviceStatuses: [String: SubscriptionStatus] = [:]
    /// What consumers are told: the connection's word, `.degraded` while active with delivery problems.
    private var statuses: [String: SubscriptionStatus] = [:]
    private var statusObservers: [String: [UUID: AsyncStream<SubscriptionStatus>.Continuation]] = [:]
    /// When each subscription stopped being active, for `.resumed(after:)`.
    private var inactiveSince: [String: Duration] = [:]
    /// Opt-in histories, by entry key; they outlive the entries (a consumer may come late).
    private var histories: [String: any Sendable] = [:]
    private let clock: RuntimeClock
    /// Error and warning lines, repeats summarised: undecodable events can come at socket speed.
    private let diagnostics: DiagnosticLog

    /// A hub serving typed streams from `connection`.
    ///
    /// - Parameters:
    ///   - connection: the transport's connection (`AppSyncConnection`).
    ///   - parameters: initial channel parameter values, by spec name.
    ///   - bufferPolicy: how many undelivered events each consumer may hold.
    ///   - clock: measures how long a subscription was down (`ChannelUpdate.resumed(after:)`).
    ///   - logger: where dropped events are reported.
    ///   - publisher: where `publish(_:to:)` sends events; by default the connection, when it
    ///     publishes (`AppSyncConnection`, over its WebSocket). Pass an `AppSyncHTTPPublisher` to
    ///     publish over HTTP, e.g. beside a connection that only receives (`SSEConnection`).
    public init(
        connection: any ChannelConnection,
        parameters: [String: ChannelSegment] = [:],
        bufferPolicy: StreamBufferPolicy = .default,
        clock: some Clock<Duration> = ContinuousClock(),
        logger: Logger = Logger(label: "ChannelRuntime.ChannelEventHub"),
        publisher: (any ChannelPublishing)? = nil
    ) {
        self.connection = connection
        self.publisher = publisher ?? connection as? any ChannelPublishing
        self.parameters = parameters
        self.bufferPolicy = bufferPolicy
        self.clock = RuntimeClock(clock)
        self.diagnostics = DiagnosticLog(logger: logger, clock: self.clock)
    }

    /// The typed events of `subscription` for the current parameters; consumers of one channel share
    /// one subscription, and the stream stays open across reconnects and parameter changes. Events
    /// that do not fit the buffer are counted and logged; use `updates(_:)` to be told of them.
    public func events<Subscription: ChannelSubscription>(_ subscription: Subscription.Type) async -> AsyncStream<Subscription.Event> {
        await events(Target<Subscription>.parameters)
    }

    /// `events(_:)` for a consumer with a delivery priority: each event reaches consumers of a higher
    /// priority first, and consumers of one priority in the order they came (default priority 0).
    public func events<Subscription: ChannelSubscription>(_ subscription: Subscription.Type, priority: Int) async -> AsyncStream<Subscription.Event> {
        await events(Target<Subscription>.parameters, priority: priority)
    }

    /// The typed events of one instance of a channel (`RoomMessagesSubscription(orgId:roomId:)`),
    /// whatever the hub's parameters: any number of instances, each any number of times, on one
    /// connection; consumers of one instance share one subscription.
    public func events<Subscription: ChannelSubscription>(for instance: Subscription) async -> AsyncStream<Subscription.Event> {
        await events(Target.instance(instance))
    }

    /// Events, status changes and gaps of `subscription`, in order: the stream for a consumer that
    /// must know when it missed something (`.gap`), was down for a while (`.resumed`) or why nothing
    /// arrives (`.status(.rejected(…))`). The first element is the subscription's current status.
    public func updates<Subscription: ChannelSubscription>(_ subscription: Subscription.Type) async -> ChannelUpdates<Subscription.Event> {
        await updates(Target<Subscription>.parameters)
    }

    /// `updates(_:)` for one instance of a channel (see `events(for:)`).
    public func updates<Subscription: ChannelSubscription>(for instance: Subscription) async -> ChannelUpdates<Subscription.Event> {
        await updates(Target.instance(instance))
    }

    private func events<Subscription: ChannelSubscription>(_ target: Target<Subscription>, priority: Int = 0) async -> AsyncStream<Subscription.Event> {
        let (stream, continuation) = BatchedStream<Subscription.Event>.makeStream(bufferingPolicy: bufferPolicy.asyncStreamPolicy(of: Subscription.Event.self))
        await attach(.events(continuation), to: target, priority: priority) { end in continuation.onTermination = { _ in end() } }
        return stream
    }

    private func updates<Subscription: ChannelSubscription>(_ target: Target<Subscription>) async -> ChannelUpdates<Subscription.Event> {
        // One element at a time: a gap is reported exactly where the events went missing.
        let (stream, continuation) = BatchedStream<ChannelUpdate<Subscription.Event>>.makeStream(
            bufferingPolicy: bufferPolicy.asyncStreamPolicy(of: ChannelUpdate<Subscription.Event>.self), batchLimit: 1)
        let gaps = GapCounter()
        let consumer = UpdateConsumer(continuation: continuation, policy: bufferPolicy, gaps: gaps)
        await attach(.updates(consumer), to: target) { end in continuation.onTermination = { _ in end() } }
        return ChannelUpdates(base: stream, gaps: gaps)
    }

    /// Adds a consumer to the entry of its target (made, and routed, when it is the first);
    /// `whenEnded` installs the handler that removes the consumer when its stream ends.
    private func attach<Subscription: ChannelSubscription>(
        _ consumer: Consumer<Subscription.Event>, to target: Target<Subscription>, priority: Int = 0, replayingHistory: Bool = false,
        whenEnded: (@escaping @Sendable () -> Void) -> Void
    ) async {
        let key = target.key
        if let existing = entries[key] as? Entry<Subscription> {
            if !existing.isFinished {
                let id = existing.add(consumer, status: statuses[key], priority: priority, replaying: replayed(replayingHistory, existing))
                whenEnded { Task { await self.removeConsumer(id, from: key, of: existing) } }
                return
            }
            // Its stream ended with a final event (a job that completed): a new consumer starts a new one.
            removeEntry(key)
            if let old = await existing.stopPump() { await connection.unsubscribe(old) }
        }
        // A new entry's first status comes from routing it (waiting for a parameter, subscribing).
        let entry = Entry<Subscription>(instance: target.instance, metrics: connection.metrics, log: diagnostics) { [weak self] in
            Task { await self?.publishStatus(ofKey: key) }
        }
        if let store = histories[key] as? HistoryStore<Subscription.Event> { entry.setHistory(store) }
        entries[key] = entry
        let id = entry.add(consumer, status: nil, priority: priority, replaying: replayed(replayingHistory, entry))
        whenEnded { Task { await self.removeConsumer(id, from: key, of: entry) } }
        await route(entry, key: key)
    }

    /// The channel whose kept history a new consumer of `entry` gets: the one the parameters name now.
    private func replayed(_ replayingHistory: Bool, _ entry: any HubEntry) -> String? {
        replayingHistory ? try? entry.channel(for: parameters) : nil
    }

    /// The events of `subscription` with their channel, event type, arrival time and sequence
    /// number (`ChannelEnvelope`); otherwise like `events(_:)`. With `replayingHistory`, the kept
    /// history (`keepHistory(of:_:)`) comes first.
    public func envelopes<Subscription: ChannelSubscription>(
        _ subscription: Subscription.Type, replayingHistory: Bool
    ) async -> AsyncStream<ChannelEnvelope<Subscription.Event>> {
        await envelopes(Target<Subscription>.parameters, replayingHistory: replayingHistory)
    }

    /// The events of `subscription` in envelopes (channel, event type, arrival time, sequence number).
    public func envelopes<Subscription: ChannelSubscription>(_ subscription: Subscription.Type) async -> AsyncStream<ChannelEnvelope<Subscription.Event>> {
        await envelopes(Target<Subscription>.parameters, replayingHistory: false)
    }

    /// `envelopes(_:replayingHistory:)` for one instance of a channel (see `events(for:)`).
    public func envelopes<Subscription: ChannelSubscription>(
        for instance: Subscription, replayingHistory: Bool = false
    ) async -> AsyncStream<ChannelEnvelope<Subscription.Event>> {
        await envelopes(Target.instance(instance), replayingHistory: replayingHistory)
    }

    /// Keeps the recent events of `subscription` (opt-in, per channel): read them with
    /// `history(of:)` or replay them into a new consumer with `envelopes(_:replayingHistory:)`.
    public func keepHistory<Subscription: ChannelSubscription>(of subscription: Subscription.Type, _ retention: HistoryRetention) {
        let key = Target<Subscription>.parameters.key
        let store = HistoryStore<Subscription.Event>(retention: retention, clock: clock)
        histories[key] = store
        (entries[key] as? Entry<Subscription>)?.setHistory(store)
    }

    /// The kept events of `subscription`, oldest first (empty without `keepHistory(of:_:)`).
    public func history<Subscription: ChannelSubscription>(of subscription: Subscription.Type) -> [ChannelEnvelope<Subscription.Event>] {
        (histories[Target<Subscription>.parameters.key] as? HistoryStore<Subscription.Event>)?.snapshot(of: try? Subscription.channel(for: parameters)) ?? []
    }

    private func envelopes<Subscription: ChannelSubscription>(
        _ target: Target<Subscription>, replayingHistory: Bool
    ) async -> AsyncStream<ChannelEnvelope<Subscription.Event>> {
        let (stream, continuation) = BatchedStream<ChannelEnvelope<Subscription.Event>>.makeStream(
            bufferingPolicy: bufferPolicy.asyncStreamPolicy(of: ChannelEnvelope<Subscription.Event>.self))
        // The replay happens as the consumer joins, under the entry's lock: each event is either in
        // the replayed history or delivered live, never both, never neither.
        await attach(.envelopes(continuation), to: target, replayingHistory: replayingHistory) { end in
            continuation.onTermination = { _ in end() }
        }
        return stream
    }

    /// Publishes 1–5 events to `subscription`'s channel for the current parameters, through the
    /// hub's publisher (the connection's WebSocket, or HTTP; see `init`). The limits are checked
    /// first: nothing is sent when any event is too large.
    public func publish<Subscription: ChannelSubscription>(
        _ events: [Subscription.Event], to subscription: Subscription.Type
    ) async throws(ChannelPublishError) {
        let texts = Subscription.eventsAreText ? try ChannelPublishError.texts(events) : try ChannelPublishError.encoded(events)
        let channel: String
        do {
            channel = try Subscription.channel(for: parameters)
        } catch {
            throw .parameters(error)
        }
        guard let publisher else { throw .unsupportedTransport }
        do {
            try await publisher.publishEvents(texts, to: channel)
        } catch {
            throw .failed("\(error)")
        }
    }

    /// Sets a channel parameter; every open stream moves to the channels the new value names.
    /// When this returns, no stream hands out an event of a channel it left, buffered ones
    /// included: after a user switch, nothing of the previous user's.
    public func setParameter(_ name: String, to value: ChannelSegment) async {
        guard parameters[name] != value else { return }
        parameters[name] = value
        // Every old channel is left before any new one is joined, so the connection never carries
        // the old user's channels beside the new user's (an SSE stream would resume them together).
        for key in entries.keys.sorted() {
            guard let entry = entries[key], let current = entry.currentChannel, current != (try? entry.channel(for: parameters)) else { continue }
            if let old = await entry.stopPump() { await connection.unsubscribe(old) }
        }
        for key in entries.keys.sorted() {
            if let entry = entries[key] { await route(entry, key: key) }
        }
    }

    /// The current value of a parameter.
    public func parameter(_ name: String) -> ChannelSegment? { parameters[name] }

    // MARK: Status

    /// Where the shared subscription of `subscription` stands; `nil` while it has no consumer.
    public func status<Subscription: ChannelSubscription>(of subscription: Subscription.Type) -> SubscriptionStatus? {
        status(forKey: Target<Subscription>.parameters.key)
    }

    /// Where the subscription of one instance (`events(for:)`) stands; `nil` while it has no consumer.
    public func status<Subscription: ChannelSubscription>(ofInstance instance: Subscription) -> SubscriptionStatus? {
        status(forKey: Target.instance(instance).key)
    }

    private func status(forKey key: String) -> SubscriptionStatus? {
        entries[key] == nil ? nil : statuses[key]
    }

    /// The statuses of the shared subscription of `subscription`, starting with the current one
    /// (when it has consumers); the sequence lives until its consumer stops.
    public func statusUpdates<Subscription: ChannelSubscription>(for subscription: Subscription.Type) -> AsyncStream<SubscriptionStatus> {
        let key = Target<Subscription>.parameters.key
        let (stream, continuation) = AsyncStream.makeStream(of: SubscriptionStatus.self, bufferingPolicy: .bufferingNewest(16))
        let id = UUID()
        statusObservers[key, default: [:]][id] = continuation
        if entries[key] != nil, let current = statuses[key] { continuation.yield(current) }
        continuation.onTermination = { _ in Task { await self.removeStatusObserver(id, of: key) } }
        return stream
    }

    /// What the connection is doing now (offline, not authorized, …).
    public var connectionState: ConnectionState {
        get async { await connection.state }
    }

    /// The connection's states, starting with the current one.
    public func connectionStateUpdates() async -> AsyncStream<ConnectionState> {
        await connection.stateUpdates()
    }

    private func removeStatusObserver(_ id: UUID, of key: String) { statusObservers[key]?[id] = nil }

    private func setStatus(_ status: SubscriptionStatus, of key: String, subscriptionID: String?) {
        guard let entry = entries[key], entry.subscriptionID == subscriptionID, serviceStatuses[key] != status else { return }
        if serviceStatuses[key] == .active { inactiveSince[key] = clock.now() }
        serviceStatuses[key] = status
        publishStatus(ofKey: key)
        if status == .active, let since = inactiveSince.removeValue(forKey: key) {
            entry.deliverResumed(after: clock.now() - since)
        }
    }

    /// Tells consumers and observers the status of `key` when what they see changed: the
    /// connection's word, or its delivery problems while it is active.
    private func publishStatus(ofKey key: String) {
        guard let entry = entries[key], let service = serviceStatuses[key] else { return }
        let problems = service == .active ? entry.problems : DeliveryProblems()
        let shown = problems.isEmpty ? service : .degraded(problems)
        guard statuses[key] != shown else { return }
        statuses[key] = shown
        entry.deliver(shown)
        for observer in (statusObservers[key] ?? [:]).values { observer.yield(shown) }
    }

    // MARK: Routing

    /// Points `entry` at the channel its parameters name now (subscribing anew when it changed).
    private func route(_ entry: any HubEntry, key: String) async {
        let channel: String
        do {
            channel = try entry.channel(for: parameters)
        } catch {
            diagnostics.debug("stream waits for its channel parameters", metadata: ["reason": "\(error)"])
            if let old = await entry.stopPump() { await connection.unsubscribe(old) }
            setStatus(.waitingForParameter, of: key, subscriptionID: nil)
            return
        }
        guard entry.currentChannel != channel else { return }
        // Another channel (another user): not a resumption of the old one.
        inactiveSince[key] = nil
        if let old = await entry.stopPump() { await connection.unsubscribe(old) }
        let raw: RawChannelSubscription
        do {
            raw = try await connection.subscribe(entry.request(for: channel))
        } catch {
            diagnostics.error("cannot subscribe", metadata: ["channel": "\(channel)", "error": "\(error)"])
            setStatus(.failed([ServiceError(errorType: "SubscribeFailed", message: "\(error)")]), of: key, subscriptionID: nil)
            return
        }
        // Parameters may have changed, or the last consumer left, while subscribing.
        guard entries[key] === entry, (try? entry.channel(for: parameters)) == channel else {
            await connection.unsubscribe(raw.id)
            return
        }
        let statusUpdates = await connection.statusUpdates(ofSubscription: raw.id)
        let watcher = Task {
            for await status in statusUpdates { self.setStatus(status, of: key, subscriptionID: raw.id) }
        }
        if let replaced = entry.startPump(raw, statusWatcher: watcher) { await connection.unsubscribe(replaced) }
    }

    private func removeConsumer(_ consumer: Int, from key: String, of entry: any HubEntry) async {
        // An entry that was replaced (after its final event) is no longer the key's.
        guard entries[key] === entry, entry.remove(consumer) else { return }
        // The last consumer stopped.
        removeEntry(key)
        if let old = await entry.stopPump() { await connection.unsubscribe(old) }
    }

    private func removeEntry(_ key: String) {
        entries[key] = nil
        statuses[key] = nil
        serviceStatuses[key] = nil
        inactiveSince[key] = nil
    }
}
