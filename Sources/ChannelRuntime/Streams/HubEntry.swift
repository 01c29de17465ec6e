import Foundation
import Logging

/// What an entry subscribes to: the channel the hub's parameters name, or one fixed instance.
enum Target<Subscription: ChannelSubscription> {
    case parameters
    case instance(Subscription)

    /// Entries are shared per key: per subscription type for parameters, per channel path for instances.
    var key: String {
        switch self {
        case .parameters: Subscription.template.address
        case .instance(let instance): "instance:" + instance.channel
        }
    }

    var instance: Subscription? {
        if case .instance(let instance) = self { return instance }
        return nil
    }
}

/// A consumer of one subscription type: a plain event stream, or an update stream.
enum Consumer<Event: Sendable>: Sendable {
    case events(BatchedStream<Event>.Continuation)
    case updates(UpdateConsumer<Event>)
    case envelopes(BatchedStream<ChannelEnvelope<Event>>.Continuation)

    /// Ends the consumer's stream after what it holds.
    func finish() {
        switch self {
        case .events(let continuation): continuation.finish()
        case .updates(let updates): updates.finish()
        case .envelopes(let continuation): continuation.finish()
        }
    }

    /// Drops what the consumer has not read yet (see `BatchedStream.Continuation.discardBuffered()`).
    func discardBuffered() {
        switch self {
        case .events(let continuation): continuation.discardBuffered()
        case .updates(let updates): updates.discardBuffered()
        case .envelopes(let continuation): continuation.discardBuffered()
        }
    }
}

/// The shared state of one subscription type, touched by the hub (routing) and by the pump task
/// (decoding and delivery); a lock keeps the consumer list and pump consistent.
protocol HubEntry: AnyObject, Sendable {
    var currentChannel: String? { get }
    var subscriptionID: String? { get }
    func channel(for parameters: [String: ChannelSegment]) throws -> String
    /// How the connection is asked for `channel`: as the spec says it is carried.
    func request(for channel: String) -> ChannelRequest
    /// Starts delivering `raw`; returns the id of a subscription it replaced, if any.
    func startPump(_ raw: RawChannelSubscription, statusWatcher: Task<Void, Never>) -> String?
    /// Stops delivering, and leaves consumers nothing of the old channel to read; returns the id of
    /// the subscription to unsubscribe, if any.
    func stopPump() async -> String?
    /// Removes a consumer; true when it was the last one.
    func remove(_ consumer: Int) -> Bool
    /// Tells every update consumer the subscription's new status.
    func deliver(_ status: SubscriptionStatus)
    /// Tells every update consumer the subscription is active again after `after` down.
    func deliverResumed(after: Duration)
    /// What kept events from arriving as declared, so far.
    var problems: DeliveryProblems { get }
    /// Whether the stream's final event came (its consumers' streams finished).
    var isFinished: Bool { get }
}

final class Entry<Subscription: ChannelSubscription>: HubEntry, @unchecked Sendable {
    // @unchecked: `current` is only touched with `lock` held.
    private struct State {
        /// Who gets the events: the delivery rules, a value.
        var fanOut = FanOut<Subscription.Event>()
        var channel: String?
        var subscriptionID: String?
        /// Decodes and delivers the subscription's events.
        var pump: Task<Void, Never>?
        /// Follows the subscription's status for the hub.
        var statusWatcher: Task<Void, Never>?
        var problems = DeliveryProblems()
        /// More distinct undeclared event types came than `problems` keeps (said once).
        var undeclaredBeyondLimit = false
        /// The final event came and the consumers' streams finished: what they hold is theirs to read.
        var finished = false
    }

    private let lock = NSLock()
    private var current = State()
    /// A fixed instance's channel, or `nil` for the channel the hub's parameters name.
    private let instance: Subscription?
    private let metrics: RuntimeMetrics
    private let log: DiagnosticLog
    /// Called (outside the lock) when `problems` grew, so the hub shows it in the status.
    private let problemsChanged: @Sendable () -> Void

    init(instance: Subscription?, metrics: RuntimeMetrics, log: DiagnosticLog, problemsChanged: @escaping @Sendable () -> Void) {
        self.instance = instance
        self.metrics = metrics
        self.log = log
        self.problemsChanged = problemsChanged
    }

    private func withState<Result>(_ body: (inout State) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&current)
    }

    var currentChannel: String? { withState { $0.channel } }

    func setHistory(_ history: HistoryStore<Subscription.Event>) { withState { $0.fanOut.history = history } }
    var subscriptionID: String? { withState { $0.subscriptionID } }
    var problems: DeliveryProblems { withState { $0.problems } }
    var isFinished: Bool { withState { $0.finished } }

    func channel(for parameters: [String: ChannelSegment]) throws -> String {
        try instance?.channel ?? Subscription.channel(for: parameters)
    }

    func request(for channel: String) -> ChannelRequest {
        ChannelRequest(
            channel: channel, isOwnStream: Subscription.isOwnStream, finalEventNames: Subscription.finalEventNames,
            errorEventNames: Subscription.errorEventNames)
    }

    /// Adds a consumer; an update consumer first learns the current status; with `replaying`, the
    /// kept history of that channel comes first.
    func add(_ consumer: Consumer<Subscription.Event>, status: SubscriptionStatus?, priority: Int = 0, replaying channel: String? = nil) -> Int {
        if case .updates(let updates) = consumer, let status { updates.deliver(status) }
        return withState { state in
            let (id, replay) = state.fanOut.add(consumer, priority: priority, replaying: channel)
            // Under the lock: no live event reaches the consumer before its replay.
            if case .envelopes(let continuation) = consumer {
                for envelope in replay { continuation.yield(envelope) }
            }
            return id
        }
    }

    func remove(_ consumer: Int) -> Bool {
        withState { $0.fanOut.remove(consumer) }
    }

    func deliver(_ status: SubscriptionStatus) {
        for case .updates(let consumer) in withState({ $0.fanOut.consumers }) { consumer.deliver(status) }
    }

    func deliverResumed(after gap: Duration) {
        for case .updates(let consumer) in withState({ $0.fanOut.consumers }) { consumer.deliverResumed(after: gap) }
    }

    func startPump(_ raw: RawChannelSubscription, statusWatcher: Task<Void, Never>) -> String? {
        let channel = raw.channel
        let counter = metrics.counter(forChannel: channel, template: Subscription.template.address)
        let pump = Task.detached { [self] in
            let decodePayload = Subscription.eventsAreText
                ? EventDecoding.textDecoder(for: Subscription.Event.self)
                : EventDecoding.decoder(for: Subscription.Event.self)
            // A named event (an own stream's `event:`) tells the decoder which message it is.
            let decodeNamed = Subscription.isOwnStream && !Subscription.eventsAreText ? EventDecoding.namedDecoder(for: Subscription.Event.self) : nil
            let finalEventNames = Subscription.finalEventNames
            let eventType = EventDecoding.eventTypeReader(for: Subscription.Event.self)
            // The event type only tells several messages apart; one that no message declares is
            // delivered all the same (the channel's address already chose the message), and counted.
            let expected = Subscription.eventType
            let declared = Subscription.eventTypes
            let sharedAddress = Subscription.sharedAddress
            // Per event, this generic code (not specialized for the subscription type) builds no
            // optionals or tuples of the event type: each would cost a metadata lookup.
            let subscription = raw
            var events = subscription.events.makeAsyncIterator()
            while let raw = await nextEvent(of: subscription, from: &events) {
                if raw.droppedBefore > 0 { noteDroppedUndecoded(raw.droppedBefore) }
                if let sharedAddress, sharedAddress.isOtherChannelsEvent(raw.text) {
                    metrics.channel(channel, template: Subscription.template.address) { $0.otherChannels += 1 }
                    continue
                }
                let event: Subscription.Event
                do {
                    if let name = raw.eventName, let decodeNamed { event = try decodeNamed(raw.text, name) } else { event = try decodePayload(raw.text) }
                } catch {
                    dropUndecodable(channel: channel, error: error)
                    if let name = raw.eventName, finalEventNames.contains(name) { return finish(channel: channel, afterUndecodable: name) }
                    continue
                }
                // `message` is the name of an event that names none (Server-Sent Events' default).
                let reported = eventType?(event) ?? raw.eventName.flatMap { $0 == "message" ? nil : $0 }
                if let reported, reported != expected, !declared.isEmpty, !declared.contains(reported) {
                    noteUndeclared(reported, declared: declared, channel: channel)
                }
                counter.decodedOne()
                deliver(event, reportedType: reported, raw: raw, channel: channel)
                if let name = raw.eventName, finalEventNames.contains(name) { return finish(channel: channel, afterUndecodable: nil) }
            }
        }
        let replaced = withState { state -> (pump: Task<Void, Never>?, watcher: Task<Void, Never>?, id: String?) in
            defer {
                state.channel = channel
                state.subscriptionID = raw.id
                (state.pump, state.statusWatcher) = (pump, statusWatcher)
            }
            return (state.pump, state.statusWatcher, state.subscriptionID)
        }
        replaced.pump?.cancel()
        replaced.watcher?.cancel()
        return replaced.id
    }

    /// Once this returns, no consumer gets an event of the old channel (which may be another
    /// user's): the pump has stopped, and what consumers had not read yet is dropped, as are the
    /// delivery problems seen there. (The kept history hands out only the current channel's events.)
    func stopPump() async -> String? {
        let stopped = withState { state -> (pump: Task<Void, Never>?, watcher: Task<Void, Never>?, id: String?) in
            defer {
                state.channel = nil
                state.subscriptionID = nil
                (state.pump, state.statusWatcher) = (nil, nil)
            }
            return (state.pump, state.statusWatcher, state.subscriptionID)
        }
        stopped.pump?.cancel()
        stopped.watcher?.cancel()
        // A cancelled pump finishes the event in hand (it checks for cancellation between events).
        await stopped.pump?.value
        let consumers = withState { state in
            state.problems = DeliveryProblems()
            state.undeclaredBeyondLimit = false
            return state.fanOut.consumers
        }
        // After a final event the consumers keep what they hold: it is the stream's end, not another user's.
        if !withState({ $0.finished }) {
            for consumer in consumers { consumer.discardBuffered() }
        }
        return stopped.id
    }

    /// The stream's final event came: every consumer's stream finishes once it read what it holds
    /// (and, the last consumer gone, the hub unsubscribes as for any consumer that stops).
    private func finish(channel: String, afterUndecodable name: String?) {
        if let name {
            log.error("the final event did not decode; ending the stream all the same", metadata: ["channel": "\(channel)", "event": "\(name)"])
        }
        let consumers = withState { state in
            state.finished = true
            return state.fanOut.consumers
        }
        for consumer in consumers { consumer.finish() }
    }

    private func deliver(_ event: Subscription.Event, reportedType: String?, raw: RawChannelEvent, channel: String) {
        // The common case, plain streams and update streams, touches no generic type but the
        // event's (this code is not specialized; each other one would cost a metadata lookup).
        lock.lock()
        let consumers = current.fanOut.consumers
        let wantsEnvelopes = current.fanOut.wantsEnvelopes
        let wasOverflowing = current.fanOut.overflowing
        lock.unlock()
        if wantsEnvelopes { return deliverWithEnvelopes(event, reportedType: reportedType, raw: raw, channel: channel) }
        var overflowed = 0
        var index = 0
        while index < consumers.count {
            switch consumers[index] {
            case .events(let continuation):
                if continuation.send(event) == .dropped { overflowed += 1 }
            case .updates(let updates):
                overflowed += updates.deliver(event)
            case .envelopes:
                break  // none, or `wantsEnvelopes` would hold
            }
            index += 1
        }
        noteOverflow(overflowed, wasOverflowing: wasOverflowing, channel: channel)
    }

    private func deliverWithEnvelopes(_ event: Subscription.Event, reportedType: String?, raw: RawChannelEvent, channel: String) {
        // One lock per event: recorded in the history and fanned out to the consumers of the same
        // moment (see `add`).
        let (consumers, wasOverflowing, envelope) = withState { state in
            let envelope = ChannelEnvelope(
                event: event, channel: channel,
                eventType: reportedType ?? Subscription.eventType,
                receivedAt: raw.receivedAt, sequence: raw.sequence)
            state.fanOut.history?.append(envelope)
            return (state.fanOut.consumers, state.fanOut.overflowing, envelope)
        }
        var overflowed = 0
        for consumer in consumers {
            switch consumer {
            case .events(let continuation):
                if continuation.send(event) == .dropped { overflowed += 1 }
            case .updates(let updates):
                overflowed += updates.deliver(event)
            case .envelopes(let continuation):
                if continuation.send(envelope) == .dropped { overflowed += 1 }
            }
        }
        noteOverflow(overflowed, wasOverflowing: wasOverflowing, channel: channel)
    }

    /// Counts and logs (once per run of overflows) events that did not fit consumers' buffers.
    private func noteOverflow(_ overflowed: Int, wasOverflowing: Bool, channel: String) {
        guard overflowed > 0 || wasOverflowing else { return }  // the common case takes no second lock
        let report = withState { $0.fanOut.delivered(overflowed: overflowed) }
        guard report != .nothing else { return }
        metrics.channel(channel, template: Subscription.template.address) { $0.overflowed += overflowed }
        if case .countAndWarn = report {
            log.warning("a consumer is not keeping up; dropping its oldest undelivered events", metadata: [
                "channel": "\(channel)", "type": "\(Subscription.Event.self)",
            ])
        }
    }

    /// Events the connection dropped before decoding (counted and logged there): shown in the
    /// status, and a gap for update consumers before the next event.
    private func noteDroppedUndecoded(_ count: Int) {
        let (first, consumers) = withState { state in
            defer { state.problems.undecodedEventsDropped = true }
            return (!state.problems.undecodedEventsDropped, state.fanOut.consumers)
        }
        for case .updates(let updates) in consumers { updates.deliverGap(missed: count) }
        if first { problemsChanged() }
    }

    private func dropUndecodable(channel: String, error: any Error) {
        metrics.channel(channel, template: Subscription.template.address) { $0.dropped += 1 }
        log.error("dropping an event that does not decode", metadata: [
            "channel": "\(channel)", "type": "\(Subscription.Event.self)", "error": "\(error)",
        ])
        let first = withState { state in
            defer { state.problems.undecodablePayloads = true }
            return !state.problems.undecodablePayloads
        }
        if first { problemsChanged() }
    }

    /// Counts an event whose type no message of the channel declares; the first of each value (up
    /// to a limit: the values come from the server) is logged and shown in the status.
    private func noteUndeclared(_ reported: String, declared: Set<String>, channel: String) {
        metrics.channel(channel, template: Subscription.template.address) { $0.undeclaredEventTypes += 1 }
        // Looking at 201 characters at most: a server may send megabytes of event type per event.
        let head = reported.prefix(201)
        let value = head.count > 200 ? String(head.prefix(200)) + "…" : reported
        let news = withState { state -> UndeclaredNews in
            guard !state.problems.undeclaredEventTypes.contains(value) else { return .none }
            guard state.problems.undeclaredEventTypes.count < DeliveryProblems.undeclaredEventTypesLimit else {
                defer { state.undeclaredBeyondLimit = true }
                return state.undeclaredBeyondLimit ? .none : .beyondLimit
            }
            state.problems.undeclaredEventTypes.append(value)
            return .new
        }
        switch news {
        case .none:
            return
        case .beyondLimit:
            log.warning("more event types no message of the channel declares; they are counted, not logged", metadata: [
                "channel": "\(channel)", "limit": "\(DeliveryProblems.undeclaredEventTypesLimit)",
            ])
        case .new:
            // On a channel of several messages the event arrives as the enum's `unknown` case.
            log.warning("delivering an event whose event type no message of the channel declares", metadata: [
                "channel": "\(channel)", "eventType": "\(value)", "declared": "\(declared.sorted().joined(separator: ", "))",
                "type": "\(Subscription.Event.self)",
            ])
            problemsChanged()
        }
    }
}

/// What one more undeclared event type means for the log and the status.
private enum UndeclaredNews {
    /// Seen before (or beyond the limit, already said).
    case none
    /// A value not seen before: logged, shown in the status.
    case new
    /// The first value beyond the limit.
    case beyondLimit
}

/// The subscription's next event: from the connection's batched reader when it made one (no
/// `AsyncStream` work per element), else from its stream.
private func nextEvent(of subscription: RawChannelSubscription, from events: inout AsyncStream<RawChannelEvent>.Iterator) async -> RawChannelEvent? {
    if let reader = subscription.reader { return await reader.next() }
    return await events.next()
}
