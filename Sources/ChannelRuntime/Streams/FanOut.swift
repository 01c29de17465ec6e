/// Who receives one subscription's events, in which order, and what is reported when they do not
/// keep up: the hub's delivery rules as a value. `Entry` keeps it behind its one lock and performs
/// what it returns; the rules (priority order, replay then live, overflow reporting) are tested
/// synchronously (`FanOutTests`).
struct FanOut<Event: Sendable> {
    private var byID: [Int: (consumer: Consumer<Event>, priority: Int)] = [:]
    /// Consumer ids in delivery order: higher priority first, then in the order they came.
    private(set) var order: [Int] = []
    /// The consumers in delivery order, kept so delivering an event copies no collection.
    private(set) var consumers: [Consumer<Event>] = []
    private var lastID = 0
    private var hasEnvelopeConsumers = false
    /// Whether the last event overflowed a consumer (a run of overflows is logged once).
    private(set) var overflowing = false
    /// The subscription's kept events, when the app asked for them.
    var history: HistoryStore<Event>? {
        didSet { wantsEnvelopes = history != nil || hasEnvelopeConsumers }
    }

    var isEmpty: Bool { byID.isEmpty }

    /// Whether a consumer or the history needs each event in an envelope (kept, not computed: it
    /// is asked per event, and comparing an optional of the event's type would cost a lookup).
    private(set) var wantsEnvelopes = false

    /// Adds a consumer; returns its id and, when `replaying` names a channel, the kept events of
    /// that channel it must get before any live one. Performed under the entry's lock, so no event
    /// slips in between: each is either replayed or delivered live, never both, never neither.
    mutating func add(_ consumer: Consumer<Event>, priority: Int, replaying channel: String?) -> (id: Int, replay: [ChannelEnvelope<Event>]) {
        lastID += 1
        byID[lastID] = (consumer, priority)
        reorder()
        let replay = channel.map { history?.snapshot(of: $0) ?? [] } ?? []
        return (lastID, replay)
    }

    /// Removes a consumer; true when it was the last one.
    mutating func remove(_ id: Int) -> Bool {
        byID[id] = nil
        reorder()
        return byID.isEmpty
    }

    private mutating func reorder() {
        order = byID.keys.sorted { (byID[$0]!.priority, -$0) > (byID[$1]!.priority, -$1) }
        consumers = order.map { byID[$0]!.consumer }
        hasEnvelopeConsumers = consumers.contains { if case .envelopes = $0 { true } else { false } }
        wantsEnvelopes = history != nil || hasEnvelopeConsumers
    }

    /// An event's sends dropped `overflowed` older events from full buffers.
    mutating func delivered(overflowed: Int) -> OverflowReport {
        let wasOverflowing = overflowing
        overflowing = overflowed > 0
        guard overflowed > 0 else { return .nothing }
        return wasOverflowing ? .count(overflowed) : .countAndWarn(overflowed)
    }
}

/// What an event's overflow calls for. (Not nested in `FanOut`: the delivery code is not
/// specialized, and a type generic over the event would cost a metadata lookup per event.)
enum OverflowReport: Equatable {
    case nothing
    /// Count them.
    case count(Int)
    /// Count them and warn: the first overflow of a run.
    case countAndWarn(Int)
}
