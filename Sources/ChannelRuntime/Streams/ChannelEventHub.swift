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
    // An actor so each operation's calls on the connection (unsubscribe, subscribe) run in the
    // order its decision gave them, one operation at a time. What it knows is one value behind one
    // lock (`HubState`), which the delivery children read too; `HubStateMachine` decides. Its tasks
    // are children of one root (`tasks`), which ends with the hub.

    /// The connection the subscriptions run on.
    public nonisolated let connection: any ChannelConnection
    /// Where typed publishes go: the `publisher` given, else the connection when it publishes.
    private let publisher: (any ChannelPublishing)?
    /// How many undelivered events each consumer's stream may hold.
    public nonisolated let bufferPolicy: StreamBufferPolicy
    private nonisolated let state: LockedValue<HubState>
    private let clock: RuntimeClock
    /// Error and warning lines, repeats summarised: undecodable events can come at socket speed.
    private nonisolated let diagnostics: DiagnosticLog
    /// The root of every task of the hub: each subscription's pump, a consumer's removal.
    private nonisolated let tasks = ConnectionRoot.start()

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
        self.state = LockedValue(HubState(machine: HubStateMachine(parameters: parameters)))
        self.bufferPolicy = bufferPolicy
        self.clock = RuntimeClock(clock)
        self.diagnostics = DiagnosticLog(logger: logger, clock: self.clock)
        // A transport switch is an event of the hub: it moves its own subscriptions.
        (connection as? SwitchableConnection)?.follow { [weak self] in
            guard let self else { return false }
            await self.connectionChanged()
            return true
        }
    }

    deinit { tasks.children.end() }

    /// The hub's root and its children alive now (a testing hook).
    package nonisolated var liveTasks: Int { tasks.liveTasks }

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
        let (stream, continuation) = bufferPolicy.makeStream(of: Subscription.Event.self)
        await attach(.events(continuation), to: target, priority: priority) { end in continuation.onTermination = { _ in end() } }
        return stream
    }

    private func updates<Subscription: ChannelSubscription>(_ target: Target<Subscription>) async -> ChannelUpdates<Subscription.Event> {
        // One element at a time: a gap is reported exactly where the events went missing.
        let (stream, continuation) = bufferPolicy.makeStream(of: ChannelUpdate<Subscription.Event>.self, batchLimit: 1)
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
        // Not `modify`: the consumer is added after the effects are applied, in the same lock (a
        // new consumer first learns where the subscription stands, once).
        let (entry, consumerID, calls, stopped) = state.withLock { state in
            let (entry, isNew, effects) = state.machine.join(key: key, address: target.address)
            if isNew {
                state.deliveries[entry] = TypedDelivery<Subscription>(history: state.histories[key] as? HistoryStore<Subscription.Event>)
            }
            let stopped = state.apply(effects.onConsumers)
            // An update consumer first learns where the subscription stands.
            if case .updates(let updates) = consumer, let status = state.machine.status(ofKey: key) { updates.deliver(status) }
            let replaying = replayingHistory ? state.machine.channel(of: target.address) : nil
            let delivery = unsafeDowncast(state.deliveries[entry]!, to: TypedDelivery<Subscription>.self)
            return (entry, delivery.add(consumer, priority: priority, replaying: replaying), effects.calls, stopped)
        }
        for stop in stopped { stop() }
        // The consumer's stream ends in a synchronous callback; its removal (which may unsubscribe,
        // awaiting the connection) is a child of the hub's root.
        let children = tasks.children
        whenEnded { children.add { await self.removeConsumer(consumerID, from: entry, key: key) } }
        await perform(calls)
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
        state.withLock { state in
            state.histories[key] = store
            if let entry = state.machine.entries[key] { state.deliveries[entry.id]?.setHistory(store) }
        }
    }

    /// The kept events of `subscription`, oldest first (empty without `keepHistory(of:_:)`).
    public func history<Subscription: ChannelSubscription>(of subscription: Subscription.Type) -> [ChannelEnvelope<Subscription.Event>] {
        state.withLock { state in
            let store = state.histories[Target<Subscription>.parameters.key] as? HistoryStore<Subscription.Event>
            return store?.snapshot(of: try? Subscription.channel(for: state.machine.parameters)) ?? []
        }
    }

    private func envelopes<Subscription: ChannelSubscription>(
        _ target: Target<Subscription>, replayingHistory: Bool
    ) async -> AsyncStream<ChannelEnvelope<Subscription.Event>> {
        let (stream, continuation) = bufferPolicy.makeStream(of: ChannelEnvelope<Subscription.Event>.self)
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
            channel = try Subscription.channel(for: state.withLock { $0.machine.parameters })
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
        await perform(state.modify { state in state.machine.setParameter(name, to: value) })
    }

    /// The current value of a parameter.
    public func parameter(_ name: String) -> ChannelSegment? { state.withLock { $0.machine.parameters[name] } }

    // MARK: Status

    /// Where the shared subscription of `subscription` stands; `nil` while it has no consumer.
    public func status<Subscription: ChannelSubscription>(of subscription: Subscription.Type) -> SubscriptionStatus? {
        state.withLock { $0.machine.status(ofKey: Target<Subscription>.parameters.key) }
    }

    /// Where the subscription of one instance (`events(for:)`) stands; `nil` while it has no consumer.
    public func status<Subscription: ChannelSubscription>(ofInstance instance: Subscription) -> SubscriptionStatus? {
        state.withLock { $0.machine.status(ofKey: Target.instance(instance).key) }
    }

    /// The statuses of the shared subscription of `subscription`, starting with the current one
    /// (when it has consumers); the sequence lives until its consumer stops.
    public func statusUpdates<Subscription: ChannelSubscription>(for subscription: Subscription.Type) -> AsyncStream<SubscriptionStatus> {
        statusUpdates(ofKey: Target<Subscription>.parameters.key)
    }

    /// The statuses of one instance's subscription (`events(for:)`, a job's stream), starting with
    /// the current one (when it has consumers); the sequence lives until its consumer stops. A
    /// job's `.failed` is its last word: nothing the connection says later replaces it.
    public func statusUpdates<Subscription: ChannelSubscription>(forInstance instance: Subscription) -> AsyncStream<SubscriptionStatus> {
        statusUpdates(ofKey: Target.instance(instance).key)
    }

    private func statusUpdates(ofKey key: String) -> AsyncStream<SubscriptionStatus> {
        let (stream, continuation) = AsyncStream.makeStream(of: SubscriptionStatus.self, bufferingPolicy: .bufferingNewest(16))
        let id = state.withLock { state in
            state.lastObserverID += 1
            state.statusObservers[key, default: [:]][state.lastObserverID] = continuation
            if let current = state.machine.status(ofKey: key) { continuation.yield(current) }
            return state.lastObserverID
        }
        let state = self.state
        continuation.onTermination = { _ in state.withLock { $0.statusObservers[key]?[id] = nil } }
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

    /// The connection moved to another transport: every subscription leaves the old one, all
    /// before any joins the new one; returns once each was asked for anew.
    private func connectionChanged() async {
        let now = clock.now()
        await perform(state.modify { state in state.machine.connectionChanged(now: now) })
    }

    // MARK: Performing the machine's calls

    /// Asks the connection what the state machine decided, in order.
    private func perform(_ calls: [HubStateMachine.Call]) async {
        for call in calls {
            switch call {
            case .unsubscribe(let id):
                await connection.unsubscribe(id)
            case .subscribe(let entry, let key, let ticket, let request):
                await subscribe(request, entry: entry, key: key, ticket: ticket)
            }
        }
    }

    private func subscribe(_ request: ChannelRequest, entry: HubStateMachine.EntryID, key: String, ticket: Int) async {
        let raw: RawChannelSubscription
        do {
            if let switchable = connection as? SwitchableConnection {
                raw = try await switchable.subscribe(request, movedByHub: true)
            } else {
                raw = try await connection.subscribe(request)
            }
        } catch {
            diagnostics.error("cannot subscribe", metadata: ["channel": "\(request.channel)", "error": "\(error)"])
            // A failed subscribe makes no call of its own.
            _ = state.modify { state in state.machine.subscribeFailed(key: key, ticket: ticket, error: "\(error)") }
            return
        }
        // A runtime connection's statuses come in the subscription's events, in order; another
        // connection's need a child of their own to read them.
        let statuses = raw.carriesStatuses ? nil : await connection.statusUpdates(ofSubscription: raw.id)
        let context = HubDelivery.Context(
            state: state, clock: clock, log: diagnostics, metrics: connection.metrics, key: key, entry: entry, ticket: ticket)
        let wanted = state.withLock { state in
            // Parameters may have changed, or the last consumer left, while subscribing.
            guard state.machine.subscribed(key: key, ticket: ticket, subscriptionID: raw.id), let delivery = state.deliveries[entry] else { return false }
            delivery.ticket = ticket
            state.stops[entry] = [delivery.startPump(raw, context: context, in: tasks.children)]
            if let statuses {
                let stop = ChildStop()
                tasks.children.add(stoppedBy: stop) { for await status in statuses { HubDelivery.serviceStatus(status, of: raw.id, context) } }
                state.stops[entry]?.append { stop.stop() }
            }
            return true
        }
        if !wanted { await connection.unsubscribe(raw.id) }
    }

    private func removeConsumer(_ consumer: Int, from entry: HubStateMachine.EntryID, key: String) async {
        await perform(state.modify { state in
            // An entry that was replaced (after its final event) is gone with its consumers.
            guard let delivery = state.deliveries[entry], delivery.remove(consumer) else { return .none }
            return state.machine.lastConsumerLeft(key: key, entry: entry)
        })
    }
}
