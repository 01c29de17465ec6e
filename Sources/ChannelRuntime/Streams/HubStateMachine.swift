/// The hub's decisions as a value: which channel each subscription (entry) is on, when it leaves
/// one and joins another, what its consumers are told (status, resumption, the stream's end), and
/// which answers from the connection are still wanted. `ChannelEventHub` keeps it behind its one lock
/// and performs what it returns: `Effects.onConsumers` at once, under that lock (so they keep their
/// order with the events), `Effects.calls` afterwards, in order, on the connection.
///
/// No I/O, no clock, no types of events: every rule is tested synchronously (`HubStateMachineTests`).
struct HubStateMachine: Sendable {
    /// One subscription of the hub: the consumers of one subscription type (or of one instance)
    /// share it. A new entry for the same key (after a stream's final event) gets a new id, so
    /// answers meant for the old one are told apart.
    typealias EntryID = Int

    /// What an entry subscribes to, and how the connection is asked for it.
    struct Address {
        /// The channel for the hub's parameters; throws while one it names is missing.
        var channel: @Sendable ([String: ChannelSegment]) throws -> String
        /// The request for a channel (own streams, final and error events: as the spec says).
        var request: ChannelRequest
    }

    /// Where an entry's subscription stands on the connection.
    enum Subscription: Equatable {
        /// Not subscribed: waiting for a parameter, failed, or between two channels.
        case none
        /// Asked for; the answer with this ticket is the one still wanted.
        case pending(ticket: Int)
        /// Subscribed; events flow from the connection's subscription `id`.
        case active(id: String, ticket: Int)
    }

    struct Entry {
        let id: EntryID
        let address: Address
        /// The channel subscribed to, or asked for.
        var channel: String?
        var subscription = Subscription.none
        /// What the connection says of the subscription.
        var service: SubscriptionStatus?
        /// What consumers were told: the connection's word, `.degraded` while active with problems.
        var shown: SubscriptionStatus?
        /// When the subscription stopped being active, for `.resumed(after:)`.
        var inactiveSince: Duration?
        var problems = DeliveryProblems()
        /// More distinct undeclared event types came than `problems` keeps (said once).
        var undeclaredBeyondLimit = false
        /// The final event came: the consumers' streams are finished.
        var isFinished = false
    }

    /// What the hub does on the consumers of an entry, under its lock.
    enum ConsumerEffect: Equatable {
        /// Tell update consumers and status observers of `key` the new status.
        case status(EntryID, key: String, SubscriptionStatus)
        /// Tell update consumers the subscription is active again after being down this long.
        case resumed(EntryID, after: Duration)
        /// Stop taking events from the entry's current subscription; drop what consumers have not
        /// read yet when `discarding` (a channel left, which may be another user's).
        case stopDelivery(EntryID, discarding: Bool)
        /// End every consumer's stream after what it holds (the stream's final event came).
        case finish(EntryID)
        /// Forget the entry's consumers (none left, or the entry was replaced).
        case forget(EntryID)
    }

    /// What the hub asks of the connection, after the lock, in order.
    enum Call: Equatable {
        case subscribe(EntryID, key: String, ticket: Int, ChannelRequest)
        case unsubscribe(subscriptionID: String)
    }

    struct Effects: Equatable {
        var onConsumers: [ConsumerEffect] = []
        var calls: [Call] = []

        static let none = Effects()

        fileprivate mutating func append(_ other: Effects) {
            onConsumers += other.onConsumers
            calls += other.calls
        }
    }

    /// What one more delivery problem means for the log.
    enum ProblemNews: Equatable {
        /// Nothing to say: seen before, or not the entry's current subscription.
        case none
        /// The first of its kind (for undeclared event types: of its value).
        case new
        /// The first undeclared event type beyond `DeliveryProblems.undeclaredEventTypesLimit`.
        case beyondLimit
    }

    /// A problem the delivery found in what a subscription brought.
    enum Problem {
        case undecodablePayload
        case undecodedEventsDropped
        case undeclaredEventType(String)
    }

    private(set) var parameters: [String: ChannelSegment]
    private(set) var entries: [String: Entry] = [:]
    private var lastEntryID = 0
    private var lastTicket = 0

    init(parameters: [String: ChannelSegment]) {
        self.parameters = parameters
    }

    // MARK: Consumers come and go

    /// A consumer joins the entry of `key`, made (and routed) when there is none, or when the one
    /// there has ended with its final event.
    mutating func join(key: String, address: @autoclosure () -> Address) -> (entry: EntryID, isNew: Bool, effects: Effects) {
        var effects = Effects()
        if let existing = entries[key] {
            if !existing.isFinished { return (existing.id, false, effects) }
            // A job that completed: a new consumer starts a new stream.
            effects.append(remove(key))
        }
        lastEntryID += 1
        entries[key] = Entry(id: lastEntryID, address: address())
        effects.append(route(key))
        return (lastEntryID, true, effects)
    }

    /// The last consumer of entry `id` stopped: the entry goes, and its subscription with it.
    mutating func lastConsumerLeft(key: String, entry id: EntryID) -> Effects {
        guard entries[key]?.id == id else { return .none }  // replaced already
        return remove(key)
    }

    private mutating func remove(_ key: String) -> Effects {
        guard var entry = entries.removeValue(forKey: key) else { return .none }
        var effects = leave(&entry, discarding: false)
        effects.onConsumers.append(.forget(entry.id))
        return effects
    }

    // MARK: Parameters

    /// Sets a parameter: every entry whose channel it changes leaves the old channel, all of them
    /// before any joins a new one (the connection never carries one user's channels beside the
    /// next one's), and what their consumers had not read of it is dropped.
    mutating func setParameter(_ name: String, to value: ChannelSegment) -> Effects {
        guard parameters[name] != value else { return .none }
        parameters[name] = value
        var effects = Effects()
        for key in entries.keys.sorted() {
            guard var entry = entries[key], let channel = entry.channel, channel != (try? entry.address.channel(parameters)) else { continue }
            effects.append(leave(&entry, discarding: true))
            entries[key] = entry
        }
        for key in entries.keys.sorted() { effects.append(route(key)) }
        return effects
    }

    // MARK: The connection changes

    /// The connection moved to another transport (`SwitchableConnection`): every entry leaves its
    /// subscription, all of them before any joins again, and asks the connection anew (which now
    /// means the new transport). What consumers hold stays: the channel is the same. An answer
    /// asked for before is stale by its ticket. Consumers see `.subscribing`, and `.resumed(after:)`
    /// once the new subscription is active; a subscription that had failed is asked for again.
    mutating func connectionChanged(now: Duration) -> Effects {
        var effects = Effects()
        for key in entries.keys.sorted() {
            guard let entry = entries[key], !entry.isFinished, entry.channel != nil else { continue }
            effects.append(setService(.subscribing, of: key, now: now))
            guard var entry = entries[key] else { continue }
            let downSince = entry.inactiveSince
            effects.append(leave(&entry, discarding: false))
            entry.inactiveSince = downSince
            entries[key] = entry
        }
        for key in entries.keys.sorted() { effects.append(route(key)) }
        return effects
    }

    /// Points the entry of `key` at the channel the parameters name now.
    private mutating func route(_ key: String) -> Effects {
        guard var entry = entries[key], !entry.isFinished else { return .none }
        var effects = Effects()
        let channel: String
        do {
            channel = try entry.address.channel(parameters)
        } catch {
            effects.append(leave(&entry, discarding: true))
            entries[key] = entry
            effects.append(setService(.waitingForParameter, of: key))
            return effects
        }
        guard entry.channel != channel else { return .none }
        effects.append(leave(&entry, discarding: true))
        lastTicket += 1
        var request = entry.address.request
        request.channel = channel
        entry.channel = channel
        entry.subscription = .pending(ticket: lastTicket)
        entries[key] = entry
        effects.calls.append(.subscribe(entry.id, key: key, ticket: lastTicket, request))
        // Until the connection says more of the new channel: not the old channel's word, and not
        // down since a time (another channel is not a resumption).
        effects.append(setService(.subscribing, of: key))
        return effects
    }

    /// Leaves the entry's channel, if it has one: delivery stops (and, for a channel left, consumers
    /// lose what they had not read), the connection unsubscribes, and a pending answer is no longer
    /// wanted. The delivery problems were that channel's; another channel is not a resumption.
    private func leave(_ entry: inout Entry, discarding: Bool) -> Effects {
        var effects = Effects()
        if case .active(let id, _) = entry.subscription {
            effects.onConsumers.append(.stopDelivery(entry.id, discarding: discarding && !entry.isFinished))
            effects.calls.append(.unsubscribe(subscriptionID: id))
        }
        if entry.channel != nil { entry.inactiveSince = nil }
        entry.channel = nil
        entry.subscription = .none
        entry.problems = DeliveryProblems()
        entry.undeclaredBeyondLimit = false
        return effects
    }

    // MARK: The connection's answers

    /// The connection subscribed the request with `ticket`. True when the entry still wants it:
    /// the hub then starts delivering; false: the hub unsubscribes it at once (parameters changed
    /// or the last consumer left while it was asked for).
    mutating func subscribed(key: String, ticket: Int, subscriptionID: String) -> Bool {
        guard var entry = entries[key], entry.subscription == .pending(ticket: ticket) else { return false }
        entry.subscription = .active(id: subscriptionID, ticket: ticket)
        entries[key] = entry
        return true
    }

    /// The connection could not subscribe the request with `ticket`.
    mutating func subscribeFailed(key: String, ticket: Int, error: String) -> Effects {
        guard var entry = entries[key], entry.subscription == .pending(ticket: ticket) else { return .none }
        _ = leave(&entry, discarding: true)  // nothing was delivered from it: no effects
        entries[key] = entry
        return setService(.failed([ServiceError(errorType: "SubscribeFailed", message: error)]), of: key)
    }

    /// The connection's word on subscription `subscriptionID`; `now` on the hub's clock.
    mutating func serviceStatus(_ status: SubscriptionStatus, key: String, subscriptionID: String, now: Duration) -> Effects {
        guard let entry = entries[key], case .active(subscriptionID, _) = entry.subscription, !entry.isFinished else { return .none }
        var effects = setService(status, of: key, now: now)
        // An own stream (one job's) that failed is over, as after its final event: consumers'
        // loops end after what they hold, and the failure stays what they read.
        if entry.address.request.isOwnStream, case .failed = status {
            entries[key]?.isFinished = true
            effects.onConsumers.append(.finish(entry.id))
        }
        return effects
    }

    private mutating func setService(_ status: SubscriptionStatus, of key: String, now: Duration? = nil) -> Effects {
        guard var entry = entries[key], entry.service != status else { return .none }
        if entry.service == .active, let now { entry.inactiveSince = now }
        entry.service = status
        entries[key] = entry
        var effects = publishStatus(of: key)
        if status == .active, let now, let since = entries[key]?.inactiveSince {
            entries[key]?.inactiveSince = nil
            effects.onConsumers.append(.resumed(entry.id, after: now - since))
        }
        return effects
    }

    /// Tells consumers the status of `key` when what they see changed: the connection's word,
    /// or its delivery problems while it is active.
    private mutating func publishStatus(of key: String) -> Effects {
        guard var entry = entries[key], let service = entry.service else { return .none }
        let problems = service == .active ? entry.problems : DeliveryProblems()
        let shown = problems.isEmpty ? service : .degraded(problems)
        guard entry.shown != shown else { return .none }
        entry.shown = shown
        entries[key] = entry
        var effects = Effects()
        effects.onConsumers.append(.status(entry.id, key: key, shown))
        return effects
    }

    // MARK: What the delivery finds

    /// The delivery of entry `id` (its subscription with `ticket`) found `problem`: shown in the
    /// status while active; `news` says whether to log it.
    mutating func note(_ problem: Problem, key: String, entry id: EntryID, ticket: Int) -> (news: ProblemNews, effects: Effects) {
        guard var entry = entries[key], entry.id == id, case .active(_, ticket) = entry.subscription else { return (.none, .none) }
        let news: ProblemNews
        switch problem {
        case .undecodablePayload:
            news = entry.problems.undecodablePayloads ? .none : .new
            entry.problems.undecodablePayloads = true
        case .undecodedEventsDropped:
            news = entry.problems.undecodedEventsDropped ? .none : .new
            entry.problems.undecodedEventsDropped = true
        case .undeclaredEventType(let value):
            if entry.problems.undeclaredEventTypes.contains(value) {
                news = .none
            } else if entry.problems.undeclaredEventTypes.count >= DeliveryProblems.undeclaredEventTypesLimit {
                news = entry.undeclaredBeyondLimit ? .none : .beyondLimit
                entry.undeclaredBeyondLimit = true
            } else {
                entry.problems.undeclaredEventTypes.append(value)
                news = .new
            }
        }
        entries[key] = entry
        return (news, news == .new ? publishStatus(of: key) : .none)
    }

    /// The final event of entry `id`'s stream came: every consumer's stream ends after what it
    /// holds; the entry stays (its consumers leave as they finish reading) until a new consumer
    /// starts a new stream. A final event that did not decode (`undecodable`) fails the entry
    /// first: update consumers and status observers are told why before their streams end, and
    /// the status stays `.failed` (nothing the connection says later replaces it).
    mutating func finalEventArrived(key: String, entry id: EntryID, ticket: Int, undecodable: ServiceError? = nil) -> Effects {
        guard entries[key]?.id == id, case .active(_, ticket) = entries[key]?.subscription, entries[key]?.isFinished == false else { return .none }
        var effects = Effects()
        if let undecodable { effects.append(setService(.failed([undecodable]), of: key)) }
        entries[key]?.isFinished = true
        effects.onConsumers.append(.finish(id))
        return effects
    }

    // MARK: Reading

    /// What consumers of `key` are shown; `nil` while it has no consumer.
    func status(ofKey key: String) -> SubscriptionStatus? {
        entries[key]?.shown
    }

    /// The channel `address` names for the current parameters, if it can be formed.
    func channel(of address: Address) -> String? {
        try? address.channel(parameters)
    }
}
