import ChannelRuntime
import Foundation

/// Delivers each value sent to every current consumer's `AsyncStream`, and remembers what was
/// sent. Generated mocks use it so app tests can push typed events into notifier streams.
///
/// Nothing sent is lost without a word: a value delivered while no one listens waits for the
/// first consumer (`waiting`), who gets it before anything newer.
public final class EventBroadcaster<Event: Sendable>: @unchecked Sendable {
    // @unchecked: all mutable state is guarded by `lock`.
    private let lock = NSLock()
    /// A consumer's stream: plain events, or updates (events as `.event`, and `MockUpdate`s).
    private enum Consumer {
        case events(AsyncStream<Event>.Continuation)
        case updates(AsyncStream<ChannelUpdate<Event>>.Continuation)
        case envelopes(AsyncStream<ChannelEnvelope<Event>>.Continuation, Stamp)

        /// What an envelope says besides its event: numbered from 1 per consumer.
        struct Stamp {
            let channel: String
            let eventType: String?
            let sequence = LockedValue(0)
        }

        func yield(_ event: Event) {
            switch self {
            case .events(let continuation): continuation.yield(event)
            case .updates(let continuation): continuation.yield(.event(event))
            case .envelopes(let continuation, let stamp):
                let sequence = stamp.sequence.withLock { sequence in
                    sequence += 1
                    return sequence
                }
                continuation.yield(ChannelEnvelope(event: event, channel: stamp.channel, eventType: stamp.eventType, receivedAt: Date(), sequence: sequence))
            }
        }

        func finish() {
            switch self {
            case .events(let continuation): continuation.finish()
            case .updates(let continuation): continuation.finish()
            case .envelopes(let continuation, _): continuation.finish()
            }
        }
    }

    private var consumers: [Int: Consumer] = [:]
    private var nextID = 0
    private var sent: [Event] = []
    private var unheard: [Event] = []
    /// When sent values reach the streams (a mock's delivery mode); `nil`: at once.
    private let scheduler: MockScheduler?

    /// A broadcaster with no consumers and no history, delivering at once.
    public init() { scheduler = nil }

    /// A broadcaster whose deliveries follow `scheduler` (a generated mock's `delivery`).
    @_spi(Generated) public init(scheduler: MockScheduler) { self.scheduler = scheduler }

    /// A new consumer's stream; values sent from now on arrive in it (the first consumer also gets
    /// what was delivered while no one listened, first).
    public func stream() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .unbounded)
        add(.events(continuation)) { continuation.onTermination = $0 }
        return stream
    }

    /// A new consumer's update stream: each value sent from now on as `.event`, and what the mock
    /// says happened between them (`send(_ update: MockUpdate)`), in the order sent.
    public func updates() -> ChannelUpdates<Event> {
        let (stream, continuation) = AsyncStream.makeStream(of: ChannelUpdate<Event>.self, bufferingPolicy: .unbounded)
        add(.updates(continuation)) { continuation.onTermination = $0 }
        return ChannelUpdates(stream)
    }

    /// Registers `consumer`, hands it what waited for a first consumer, and removes it when its
    /// stream ends (`setTermination` installs the handler).
    private func add(_ consumer: Consumer, setTermination: (@escaping @Sendable (Any) -> Void) -> Void) {
        let id = lock.withLock {
            nextID += 1
            consumers[nextID] = consumer
            for event in unheard { consumer.yield(event) }
            unheard.removeAll()
            return nextID
        }
        setTermination { [weak self] _ in
            guard let self else { return }
            _ = self.lock.withLock { self.consumers.removeValue(forKey: id) }
        }
    }

    /// Tells every update stream of a status, a gap or a resumption, in order with the events
    /// (through the mock's delivery mode).
    public func send(_ update: MockUpdate) {
        let deliver: @Sendable () -> Void = { [self] in
            for case .updates(let continuation) in lock.withLock({ Array(consumers.values) }) { continuation.yield(update.channelUpdate()) }
        }
        if let scheduler { scheduler.schedule(deliver) } else { deliver() }
    }

    /// A new consumer's stream of envelopes: each value sent from now on, on `channel`, numbered
    /// from 1 in the order this broadcaster sent them, stamped with the time it was sent.
    public func envelopes(channel: String, eventType: String?) -> AsyncStream<ChannelEnvelope<Event>> {
        let (stream, continuation) = AsyncStream.makeStream(of: ChannelEnvelope<Event>.self, bufferingPolicy: .unbounded)
        add(.envelopes(continuation, Consumer.Stamp(channel: channel, eventType: eventType))) { continuation.onTermination = $0 }
        return stream
    }

    /// Sends `event` to every consumer (at once, or as the mock's delivery mode says); with no
    /// consumer it waits for the first.
    public func send(_ event: Event) {
        lock.withLock { sent.append(event) }
        guard let scheduler else { return deliver(event) }
        scheduler.schedule { [self] in deliver(event) }
    }

    private func deliver(_ event: Event) {
        // Under the lock: a consumer that joins now gets it either from `unheard` or live, once.
        lock.withLock {
            if consumers.isEmpty { unheard.append(event) }
            for consumer in consumers.values { consumer.yield(event) }
        }
    }

    /// Delivered while no one listened, waiting for the first consumer.
    public var waiting: [Event] { lock.withLock { unheard } }

    /// Ends every stream and forgets what was sent and what waits.
    public func reset() {
        finish()
        lock.withLock { (sent, unheard) = ([], []) }
    }

    /// Ends every consumer's stream.
    public func finish() {
        let ended = lock.withLock {
            defer { consumers.removeAll() }
            return Array(consumers.values)
        }
        for consumer in ended { consumer.finish() }
    }

    /// Consumers with an open stream or update stream (an event sent before the first waits for
    /// it, in `waiting`).
    public var consumerCount: Int { lock.withLock { consumers.count } }

    /// Everything sent so far, in order.
    public var history: [Event] { lock.withLock { sent } }
}

/// What a generated mock tells `updates(_:)` streams besides events (`mock.send(_:)`): the
/// elements of `ChannelUpdate` that are not events.
public enum MockUpdate: Sendable, Equatable {
    /// The subscription's status changed.
    case status(SubscriptionStatus)
    /// `missed` events were lost.
    case gap(missed: Int)
    /// The subscription is active again after being down for `after`.
    case resumed(after: Duration)

    func channelUpdate<Event>() -> ChannelUpdate<Event> {
        switch self {
        case .status(let status): .status(status)
        case .gap(let missed): .gap(missed: missed)
        case .resumed(let after): .resumed(after: after)
        }
    }
}
