/// Everything `ChannelEventHub` keeps, behind its one lock: the state machine that decides, and what
/// its decisions act on (the typed consumers of each entry, the tasks of each subscription, status
/// observers, kept histories).
struct HubState: Sendable {
    var machine: HubStateMachine
    /// The consumers of each entry (`TypedDelivery<Subscription>`).
    var deliveries: [HubStateMachine.EntryID: any AnyHubDelivery] = [:]
    /// Each delivering entry's two tasks: the pump (decodes and delivers) and the watcher (follows
    /// the connection's word on the subscription). Two, because each reads its own stream.
    var tasks: [HubStateMachine.EntryID: [Task<Void, Never>]] = [:]
    var statusObservers: [String: [Int: AsyncStream<SubscriptionStatus>.Continuation]] = [:]
    var lastObserverID = 0
    /// Opt-in histories, by entry key; they outlive the entries (a consumer may come late).
    var histories: [String: any Sendable] = [:]

    /// Performs the machine's effects on consumers; returns the tasks to cancel (after the lock:
    /// cancelling runs the streams' handlers).
    mutating func apply(_ effects: [HubStateMachine.ConsumerEffect]) -> [Task<Void, Never>] {
        var cancelled: [Task<Void, Never>] = []
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
                cancelled += tasks.removeValue(forKey: entry) ?? []
            case .finish(let entry):
                deliveries[entry]?.finish()
            case .forget(let entry):
                deliveries[entry] = nil
                cancelled += tasks.removeValue(forKey: entry) ?? []
            }
        }
        return cancelled
    }
}
