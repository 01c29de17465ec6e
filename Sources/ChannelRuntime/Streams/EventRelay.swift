import Foundation

/// A subscription's events handed straight from the connection to the hub's handler, on the
/// connection's own thread: the event is decoded and sent to the consumers' streams with no task
/// and no buffer in between (the hub's other path reads each subscription's stream in a pump
/// task). Runtime connections offer it (`RelayingConnection`).
///
/// Events that arrive before the hub attaches its handler wait here, up to `pendingLimit` (the
/// oldest beyond it are dropped and counted), and reach the handler first, in order. After
/// `close()` returns, the handler is never called again and nothing is kept.
package final class EventRelay: @unchecked Sendable {
    // @unchecked: every stored variable is touched with `lock` held. The handler runs under the
    // lock too: events reach it one at a time, in order, and `close()` waits for a call under way.
    private let lock = NSLock()
    private var handler: (@Sendable (RawChannelEvent) -> Void)?
    private var pending: [RawChannelEvent] = []
    private var droppedWhilePending = 0
    private var isClosed = false
    /// How many events may wait for the handler.
    package let pendingLimit: Int

    package init(pendingLimit: Int = 1_000) {
        self.pendingLimit = max(1, pendingLimit)
    }

    /// Hands `event` to the handler, or keeps it until there is one; dropped once closed.
    package func send(_ event: RawChannelEvent) {
        lock.lock()
        defer { lock.unlock() }
        if let handler { return handler(event) }
        guard !isClosed else { return }
        if pending.count == pendingLimit {
            pending.removeFirst()
            droppedWhilePending += 1
        }
        pending.append(event)
    }

    /// Starts calling `handler` with every event, the waiting ones first. Returns how many waiting
    /// events were dropped for want of room; 0 when closed already (and the handler is not kept).
    @discardableResult
    package func attach(_ handler: @escaping @Sendable (RawChannelEvent) -> Void) -> Int {
        lock.lock()
        defer { lock.unlock() }
        guard !isClosed else { return 0 }
        for event in pending { handler(event) }
        pending = []
        self.handler = handler
        defer { droppedWhilePending = 0 }
        return droppedWhilePending
    }

    /// No more events: the handler is released and waiting events are discarded.
    package func close() {
        lock.lock()
        let released = (handler, pending)
        (handler, pending, isClosed) = (nil, [], true)
        lock.unlock()
        // Released outside the lock: what the handler holds may do anything as it goes.
        withExtendedLifetime(released) {}
    }
}

/// A connection that can deliver a subscription's events through an `EventRelay`: the hub's fast
/// path. Every runtime connection (AppSync, SSE) is one; any other `ChannelConnection` is read
/// through its streams.
package protocol RelayingConnection: ChannelConnection {
    /// `subscribe(to:)`, with every event going to `relay` instead of the returned stream (which
    /// ends at once).
    func subscribe(to channel: String, relay: EventRelay) async throws -> RawChannelSubscription
}

/// Where a connection sends a subscription's events: its stream, or the hub's relay.
package enum EventDelivery: Sendable {
    case stream(BatchedStream<RawChannelEvent>.Continuation)
    case relay(EventRelay)

    package func send(_ event: RawChannelEvent) {
        switch self {
        case .stream(let continuation): continuation.send(event)
        case .relay(let relay): relay.send(event)
        }
    }

    /// The subscription ended: no more events.
    package func finish() {
        switch self {
        case .stream(let continuation): continuation.finish()
        case .relay(let relay): relay.close()
        }
    }
}
