import Foundation

/// Delivers each value sent to every current consumer's `AsyncStream`, and remembers what was
/// sent. Generated mocks use it so app tests can push typed events into notifier streams.
public final class EventBroadcaster<Event: Sendable>: @unchecked Sendable {
    // @unchecked: all mutable state is guarded by `lock`.
    private let lock = NSLock()
    private var continuations: [Int: AsyncStream<Event>.Continuation] = [:]
    private var nextID = 0
    private var sent: [Event] = []

    /// A broadcaster with no consumers and no history.
    public init() {}

    /// A new consumer's stream; values sent from now on arrive in it.
    public func stream() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .unbounded)
        let id = lock.withLock {
            nextID += 1
            continuations[nextID] = continuation
            return nextID
        }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            _ = self.lock.withLock { self.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    /// A new consumer's stream of envelopes: each value sent from now on, on `channel`, numbered
    /// from 1 in the order this broadcaster sent them, stamped with the time it was sent.
    public func envelopes(channel: String, eventType: String?) -> AsyncStream<ChannelEnvelope<Event>> {
        let events = stream()
        return AsyncStream { continuation in
            let task = Task {
                var sequence = 0
                for await event in events {
                    sequence += 1
                    continuation.yield(ChannelEnvelope(event: event, channel: channel, eventType: eventType, receivedAt: Date(), sequence: sequence))
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Sends `event` to every current consumer.
    public func send(_ event: Event) {
        let consumers = lock.withLock {
            sent.append(event)
            return Array(continuations.values)
        }
        for consumer in consumers { consumer.yield(event) }
    }

    /// Ends every consumer's stream.
    public func finish() {
        let consumers = lock.withLock {
            defer { continuations.removeAll() }
            return Array(continuations.values)
        }
        for consumer in consumers { consumer.finish() }
    }

    /// Consumers with an open stream; wait for it before sending, or the event reaches no one.
    public var consumerCount: Int { lock.withLock { continuations.count } }

    /// Everything sent so far, in order.
    public var history: [Event] { lock.withLock { sent } }
}
