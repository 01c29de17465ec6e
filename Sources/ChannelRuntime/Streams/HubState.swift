/// Everything `ChannelEventHub` keeps, behind its one lock: the state machine that decides, and what
/// its decisions act on (the typed consumers of each entry, the tasks of each subscription, status
/// observers, kept histories).
struct HubState: Sendable {
    var machine: HubStateMachine
    /// The consumers of each entry (`TypedDelivery<Subscription>`).
    var deliveries: [HubStateMachine.EntryID: any AnyHubDelivery] = [:]
    /// How to stop each delivering entry's children of the hub's root: the pump (decodes and
    /// delivers), and for a connection of another package the watcher of its statuses.
    var stops: [HubStateMachine.EntryID: [@Sendable () -> Void]] = [:]
    var statusObservers: [String: [Int: AsyncStream<SubscriptionStatus>.Continuation]] = [:]
    var lastObserverID = 0
    /// Opt-in histories, by entry key; they outlive the entries (a consumer may come late).
    var histories: [String: any Sendable] = [:]

    /// Performs the machine's effects on consumers; returns the children to stop (after the lock:
    /// stopping runs the streams' handlers).
    mutating func apply(_ effects: [HubStateMachine.ConsumerEffect]) -> [@Sendable () -> Void] {
        var cancelled: [@Sendable () -> Void] = []
        for effect in effects {
            switch effect {
            case .status(let entry, let key, let status):
                deliveries[entry]?.deliver(status)
                for observer in (statusObservers[key] ?? [:]).values { observer.yield(status) }
            case .resumed(let entry, let gap):
                deliveries[entry]?.deliverResumed(after: gap)
            case .stopDelivery(let entry, let discarding):
                deliveries[entry]?.ticket = nil
                if discarding { deliveries[entry]?.discardBuffered() }
                cancelled += stops.removeValue(forKey: entry) ?? []
            case .finish(let entry):
                deliveries[entry]?.finish()
            case .forget(let entry):
                deliveries[entry] = nil
                cancelled += stops.removeValue(forKey: entry) ?? []
            }
        }
        return cancelled
    }
}

extension LockedValue where Value == HubState {
    /// The hub's one way to change its state: `decide` asks the machine under the lock and returns
    /// a result and the machine's effects; the effects on consumers are applied there too (so they
    /// keep their order with the events), the children they end are stopped after the lock, and the
    /// calls are returned for the caller to make on the connection, in order.
    func modify<Result>(_ decide: (inout HubState) -> (Result, HubStateMachine.Effects)) -> (Result, [HubStateMachine.Call]) {
        let (result, calls, stops) = withLock { state in
            let (result, effects) = decide(&state)
            return (result, effects.calls, state.apply(effects.onConsumers))
        }
        for stop in stops { stop() }
        return (result, calls)
    }

    /// `modify(_:)` for a decision with no result of its own.
    func modify(_ decide: (inout HubState) -> HubStateMachine.Effects) -> [HubStateMachine.Call] {
        modify { state in ((), decide(&state)) }.1
    }
}
