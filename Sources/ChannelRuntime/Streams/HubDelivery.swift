import Foundation
import Logging

/// What an entry subscribes to: the channel the hub's parameters name, or one fixed instance.
enum Target<Subscription: ChannelSubscription> {
    case parameters
    case instance(Subscription)

    /// Entries are shared per key: per subscription type for parameters, per type and channel path
    /// for instances. The type is part of it: channels sharing an address are several types.
    var key: String {
        switch self {
        case .parameters: String(reflecting: Subscription.self)
        case .instance(let instance): String(reflecting: Subscription.self) + " instance:" + instance.channel
        }
    }

    /// How the hub's state machine asks for it.
    var address: HubStateMachine.Address {
        let request = ChannelRequest(
            channel: "", isOwnStream: Subscription.isOwnStream, finalEventNames: Subscription.finalEventNames,
            errorEventNames: Subscription.errorEventNames)
        switch self {
        case .parameters: return .init(channel: { try Subscription.channel(for: $0) }, request: request)
        case .instance(let instance):
            let channel = instance.channel
            return .init(channel: { _ in channel }, request: request)
        }
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

/// The consumers of one entry as the hub's effects reach them, whatever their event type.
protocol AnyHubDelivery: AnyObject, Sendable {
    /// The ticket of the subscription whose events are delivered now; `nil`: none.
    var ticket: Int? { get set }
    func deliver(_ status: SubscriptionStatus)
    func deliverResumed(after: Duration)
    func discardBuffered()
    func finish()
    /// Removes a consumer; true when it was the last one.
    func remove(_ consumer: Int) -> Bool
    func setHistory(_ history: any Sendable)
    /// Starts the child of `children` that decodes and delivers `raw`'s events; returns what stops it.
    func startPump(_ raw: RawChannelSubscription, context: HubDelivery.Context, in children: ConnectionTasks) -> @Sendable () -> Void
}

/// Namespace of the per-entry delivery.
enum HubDelivery {
    /// What a pump reaches beyond its events: the hub's state (under its lock), the log, the metrics.
    struct Context: Sendable {
        let state: LockedValue<HubState>
        let clock: RuntimeClock
        let log: DiagnosticLog
        let metrics: RuntimeMetrics
        let key: String
        let entry: HubStateMachine.EntryID
        let ticket: Int

        /// Notes a delivery problem in the state machine and performs what it says, under the lock.
        func note(_ problem: HubStateMachine.Problem) -> HubStateMachine.ProblemNews {
            // What the delivery finds makes no call on the connection.
            state.modify { state in state.machine.note(problem, key: key, entry: entry, ticket: ticket) }.0
        }
    }

    /// The connection's word on a subscription, to the machine.
    static func serviceStatus(_ status: SubscriptionStatus, of subscriptionID: String, _ context: Context) {
        // The connection's word makes no call on it.
        _ = context.state.modify { state in
            state.machine.serviceStatus(status, key: context.key, subscriptionID: subscriptionID, now: context.clock.now())
        }
    }
}

/// The typed consumers of one entry (one subscription type): the hub's state holds one per entry and
/// touches it only under its lock; the entry's pump reaches it through that lock.
final class TypedDelivery<Subscription: ChannelSubscription>: AnyHubDelivery, @unchecked Sendable {
    // @unchecked: every member is touched with the hub's lock held (the `LockedValue<HubState>`
    // that holds this object); the pump reaches it only through that lock.
    typealias Event = Subscription.Event
    /// Who gets the events: the delivery rules, a value.
    var fanOut = FanOut<Event>()
    var ticket: Int?

    init(history: HistoryStore<Event>?) {
        fanOut.history = history
    }

    /// Adds a consumer; with `replaying`, the kept history of that channel comes first.
    func add(_ consumer: Consumer<Event>, priority: Int, replaying channel: String?) -> Int {
        let (id, replay) = fanOut.add(consumer, priority: priority, replaying: channel)
        // Under the hub's lock: no live event reaches the consumer before its replay.
        if case .envelopes(let continuation) = consumer {
            for envelope in replay { continuation.yield(envelope) }
        }
        return id
    }

    func remove(_ consumer: Int) -> Bool { fanOut.remove(consumer) }

    func setHistory(_ history: any Sendable) { fanOut.history = history as? HistoryStore<Event> }

    func deliver(_ status: SubscriptionStatus) {
        for case .updates(let consumer) in fanOut.consumers { consumer.deliver(status) }
    }

    func deliverResumed(after gap: Duration) {
        for case .updates(let consumer) in fanOut.consumers { consumer.deliverResumed(after: gap) }
    }

    func discardBuffered() {
        for consumer in fanOut.consumers { consumer.discardBuffered() }
    }

    func finish() {
        for consumer in fanOut.consumers { consumer.finish() }
    }

    func startPump(_ raw: RawChannelSubscription, context: HubDelivery.Context, in children: ConnectionTasks) -> @Sendable () -> Void {
        // The pump ends with its subscription's stream. A runtime connection's reader is stopped by
        // ending it from this side (one task per subscription); another connection's stream only by
        // cancelling its reader's task, which a `ChildStop` does beside it.
        if let reader = raw.reader {
            children.add { await TypedDelivery<Subscription>.pump(raw, context) }
            return { reader.cancel() }
        }
        let stop = ChildStop()
        children.add(stoppedBy: stop) { await TypedDelivery<Subscription>.pump(raw, context) }
        return { stop.stop() }
    }

    /// This entry's delivery, found in the state under its lock: the entry's id names one type.
    private static func delivery(in state: HubState, _ context: HubDelivery.Context) -> TypedDelivery? {
        guard let delivery = state.deliveries[context.entry], delivery.ticket == context.ticket else { return nil }
        return unsafeDowncast(delivery, to: TypedDelivery.self)
    }

    // MARK: The pump

    /// Decodes and delivers the events of `raw` until it ends, the stream's final event comes, or
    /// the hub stops delivering it (its ticket is no longer the entry's).
    private static func pump(_ raw: RawChannelSubscription, _ context: HubDelivery.Context) async {
        let channel = raw.channel
        let metrics = context.metrics
        let counter = metrics.counter(forChannel: channel, template: Subscription.template.address)
        let decodePayload = Subscription.eventsAreText
            ? EventDecoding.textDecoder(for: Event.self)
            : EventDecoding.decoder(for: Event.self)
        // A named event (an own stream's `event:`) tells the decoder which message it is.
        let decodeNamed = Subscription.isOwnStream && !Subscription.eventsAreText ? EventDecoding.namedDecoder(for: Event.self) : nil
        let finalEventNames = Subscription.finalEventNames
        let eventType = EventDecoding.eventTypeReader(for: Event.self)
        // The event type only tells several messages apart; one that no message declares is
        // delivered all the same (the channel's address already chose the message), and counted.
        let expected = Subscription.eventType
        let declared = Subscription.eventTypes
        let sharedAddress = Subscription.sharedAddress
        // Per event, this generic code (not specialized for the subscription type) builds no
        // optionals or tuples of the event type: each would cost a metadata lookup.
        var events = raw.events.makeAsyncIterator()
        let readsStatuses = raw.carriesStatuses
        let traces = context.log.traces
        while let event = await raw.next(&events) {
            if let carried = event.status {
                if readsStatuses { HubDelivery.serviceStatus(carried.status, of: raw.id, context) }
                if carried.alone {
                    if event.droppedBefore > 0 { noteDroppedUndecoded(event.droppedBefore, context) }
                    continue
                }
            }
            if event.droppedBefore > 0 { noteDroppedUndecoded(event.droppedBefore, context) }
            if let sharedAddress, sharedAddress.isOtherChannelsEvent(event.text) {
                metrics.channel(channel, template: Subscription.template.address) { $0.otherChannels += 1 }
                continue
            }
            let value: Event
            do {
                if let name = event.eventName, let decodeNamed { value = try decodeNamed(event.text, name) } else { value = try decodePayload(event.text) }
            } catch {
                if traces { trace("event dropped: it did not decode", event, type: event.eventName, channel: channel, context) }
                dropUndecodable(channel: channel, error: error, context)
                if let name = event.eventName, finalEventNames.contains(name) { return finish(channel: channel, afterUndecodable: name, context) }
                continue
            }
            // `message` is the name of an event that names none (Server-Sent Events' default).
            let reported = eventType?(value) ?? event.eventName.flatMap { $0 == "message" ? nil : $0 }
            if let reported, reported != expected, !declared.isEmpty, !declared.contains(reported) {
                noteUndeclared(reported, declared: declared, channel: channel, context)
            }
            if traces { trace("event", event, type: reported ?? expected, channel: channel, context) }
            let delivered = deliver(value, reportedType: reported, raw: event, channel: channel, context)
            // Counted once delivered: a reader of the metrics that sees it sees its overflow too.
            counter.decodedOne()
            guard delivered else { return }
            if let name = event.eventName, finalEventNames.contains(name) { return finish(channel: channel, afterUndecodable: nil, context) }
        }
    }

    /// Delivers one event under the hub's lock (so it keeps its order with statuses, and nothing
    /// reaches a consumer after the hub stopped this subscription); false when it had stopped.
    private static func deliver(_ event: Event, reportedType: String?, raw: RawChannelEvent, channel: String, _ context: HubDelivery.Context) -> Bool {
        // Per event, this code (not specialized) builds no optional, tuple or enum generic over the
        // event type: each would cost a metadata lookup.
        let outcome = context.state.withLock { state -> DeliveryOutcome in
            guard let found = state.deliveries[context.entry], found.ticket == context.ticket else { return .stopped }
            let delivery = unsafeDowncast(found, to: TypedDelivery.self)
            // Consumers' buffers weigh an event by its text (`StreamBufferPolicy.byteLimit`).
            let weight = raw.text.utf8.count
            if delivery.fanOut.wantsEnvelopes {
                return .delivered(delivery.deliverWithEnvelopes(event, weight: weight, reportedType: reportedType, raw: raw, channel: channel))
            }
            // The common case, plain streams and update streams, touches no generic type but the
            // event's.
            var overflowed = 0
            var index = 0
            let consumers = delivery.fanOut.consumers
            while index < consumers.count {
                switch consumers[index] {
                case .events(let continuation):
                    overflowed += max(0, continuation.send(event, weight: weight + StreamBufferPolicy.elementOverhead))
                case .updates(let updates):
                    overflowed += updates.deliver(event, weight: weight)
                case .envelopes:
                    break  // none, or `wantsEnvelopes` would hold
                }
                index += 1
            }
            guard overflowed > 0 || delivery.fanOut.overflowing else { return .delivered(.nothing) }
            return .delivered(delivery.fanOut.delivered(overflowed: overflowed))
        }
        switch outcome {
        case .stopped: return false
        case .delivered(let report):
            if report != .nothing { noteOverflow(report, channel: channel, context) }
            return true
        }
    }

    /// Recorded in the history and fanned out to the consumers of the same moment (see `add`).
    private func deliverWithEnvelopes(_ event: Event, weight: Int, reportedType: String?, raw: RawChannelEvent, channel: String) -> OverflowReport {
        let envelope = ChannelEnvelope(
            event: event, channel: channel, eventType: reportedType ?? Subscription.eventType,
            receivedAt: raw.receivedAt, sequence: raw.sequence, id: raw.id)
        fanOut.history?.append(envelope)
        var overflowed = 0
        for consumer in fanOut.consumers {
            switch consumer {
            case .events(let continuation):
                overflowed += max(0, continuation.send(event, weight: weight + StreamBufferPolicy.elementOverhead))
            case .updates(let updates):
                overflowed += updates.deliver(event, weight: weight)
            case .envelopes(let continuation):
                overflowed += max(0, continuation.send(envelope, weight: weight + StreamBufferPolicy.elementOverhead))
            }
        }
        guard overflowed > 0 || fanOut.overflowing else { return .nothing }
        return fanOut.delivered(overflowed: overflowed)
    }

    /// The trace line of one event: what came (channel, type, size, place, id), never what it said.
    private static func trace(_ what: String, _ event: RawChannelEvent, type: String?, channel: String, _ context: HubDelivery.Context) {
        var metadata: Logger.Metadata = ["channel": "\(channel)", "bytes": "\(event.text.utf8.count)", "sequence": "\(event.sequence)"]
        if let type { metadata["type"] = "\(type)" }
        if let id = event.id { metadata["id"] = "\(id)" }
        context.log.trace(what, metadata: metadata)
    }

    /// Counts and logs (once per run of overflows) events that did not fit consumers' buffers.
    private static func noteOverflow(_ report: OverflowReport, channel: String, _ context: HubDelivery.Context) {
        let overflowed: Int
        switch report {
        case .nothing: return
        case .count(let count): overflowed = count
        case .countAndWarn(let count):
            overflowed = count
            context.log.warning("a consumer is not keeping up; dropping its oldest undelivered events", metadata: [
                "channel": "\(channel)", "type": "\(Event.self)",
            ])
        }
        context.metrics.channel(channel, template: Subscription.template.address) { $0.overflowed += overflowed }
    }

    /// The stream's final event came: every consumer's stream finishes once it read what it holds
    /// (and, the last consumer gone, the hub unsubscribes as for any consumer that stops).
    private static func finish(channel: String, afterUndecodable name: String?, _ context: HubDelivery.Context) {
        var failure: ServiceError?
        if let name {
            context.log.error("the final event did not decode; the stream fails", metadata: ["channel": "\(channel)", "event": "\(name)"])
            failure = ServiceError(errorType: "UndecodableFinalEvent", message: "the final event '\(name)' did not decode as \(Event.self)")
        }
        // The final event makes no call: the consumers leave as they finish reading.
        _ = context.state.modify { state in
            state.machine.finalEventArrived(key: context.key, entry: context.entry, ticket: context.ticket, undecodable: failure)
        }
    }

    /// Events the connection dropped before decoding (counted and logged there): shown in the
    /// status, and a gap for update consumers before the next event.
    private static func noteDroppedUndecoded(_ count: Int, _ context: HubDelivery.Context) {
        context.state.withLock { state in
            guard let delivery = delivery(in: state, context) else { return }
            for case .updates(let updates) in delivery.fanOut.consumers { updates.deliverGap(missed: count) }
        }
        _ = context.note(.undecodedEventsDropped)
    }

    private static func dropUndecodable(channel: String, error: any Error, _ context: HubDelivery.Context) {
        context.metrics.channel(channel, template: Subscription.template.address) { $0.dropped += 1 }
        context.log.error("dropping an event that does not decode", metadata: [
            "channel": "\(channel)", "type": "\(Event.self)", "error": "\(error)",
        ])
        _ = context.note(.undecodablePayload)
    }

    /// Counts an event whose type no message of the channel declares; the first of each value (up
    /// to a limit: the values come from the server) is logged and shown in the status.
    private static func noteUndeclared(_ reported: String, declared: Set<String>, channel: String, _ context: HubDelivery.Context) {
        context.metrics.channel(channel, template: Subscription.template.address) { $0.undeclaredEventTypes += 1 }
        // Looking at 201 characters at most: a server may send megabytes of event type per event.
        let head = reported.prefix(201)
        let value = head.count > 200 ? String(head.prefix(200)) + "…" : reported
        switch context.note(.undeclaredEventType(value)) {
        case .none:
            return
        case .beyondLimit:
            context.log.warning("more event types no message of the channel declares; they are counted, not logged", metadata: [
                "channel": "\(channel)", "limit": "\(DeliveryProblems.undeclaredEventTypesLimit)",
            ])
        case .new:
            // On a channel of several messages the event arrives as the enum's `unknown` case.
            context.log.warning("delivering an event whose event type no message of the channel declares", metadata: [
                "channel": "\(channel)", "eventType": "\(value)", "declared": "\(declared.sorted().joined(separator: ", "))",
                "type": "\(Event.self)",
            ])
        }
    }
}

/// What delivering one event came to.
private enum DeliveryOutcome {
    /// The hub no longer delivers this subscription's events.
    case stopped
    case delivered(OverflowReport)
}
