#if Emulator
import Foundation
import NIOCore

/// The emulator's shared state: open connections, their subscriptions, fan-out of published
/// events, and the faults tests inject.
actor EmulatorBroker {
    /// The Server-Sent Events (Mercure) streams; every publish reaches them too.
    nonisolated let streams: EventStreams
    /// The WebSocket side's counts as they change, for tests to await.
    nonisolated let activity = EmulatorActivityFeed()

    init(replayCapacity: Int) {
        streams = EventStreams(replayCapacity: replayCapacity)
    }

    struct Connection {
        var outbox: AsyncStream<String>.Continuation
        var channel: any Channel
        /// Closes the WebSocket with a close frame of this code and reason, after what is queued.
        var close: @Sendable (Int, String) -> Void
        /// Stops the connection answering anything, its socket left open.
        var freeze: @Sendable () -> Void
        var identity: Identity
        var subscriptions: [String: ChannelPath] = [:]
    }

    /// The latest published events, newest last, for the console.
    private(set) var recentEvents: [ConsoleEvent] = []
    static let recentEventsKept = 100

    private var connections: [Int: Connection] = [:]
    private var nextConnection = 0
    private(set) var connectionsAccepted = 0
    private(set) var keepAliveEnabled = true
    private(set) var acknowledgementDelay: Duration = .zero
    private var rejectNext = 0
    /// `Authorization` values of accepted connects, in order (test observation; the emulator is local).
    private(set) var connectAuthorizations: [String] = []

    func recordConnectAuthorization(_ value: String?) {
        if let value { connectAuthorizations.append(value) }
        publishActivity()
    }

    /// Hands the counts now to the activity's watchers: called after each change to them.
    private func publishActivity() {
        activity.publish(
            EmulatorActivity(
                connections: connections.count, connectionsAccepted: connectionsAccepted, subscriptions: subscriptionCount,
                pingsReceived: pingsReceived, connectAuthorizations: connectAuthorizations.count))
    }

    // MARK: Connections

    func register(
        outbox: AsyncStream<String>.Continuation, channel: any Channel, identity: Identity,
        close: @escaping @Sendable (Int, String) -> Void, freeze: @escaping @Sendable () -> Void
    ) -> Int {
        nextConnection += 1
        connectionsAccepted += 1
        connections[nextConnection] = Connection(outbox: outbox, channel: channel, close: close, freeze: freeze, identity: identity)
        publishActivity()
        return nextConnection
    }

    func unregister(_ id: Int) {
        connections[id]?.outbox.finish()
        connections[id] = nil
        publishActivity()
    }

    var connectionCount: Int { connections.count }

    var subscriptionCount: Int { connections.values.reduce(0) { $0 + $1.subscriptions.count } }

    /// Subscribed channel paths (as written) over all connections.
    var subscribedChannels: [String] {
        connections.values.flatMap { $0.subscriptions.values.map { $0.segments.joined(separator: "/") + ($0.isWildcard ? "/*" : "") } }.sorted()
    }

    // MARK: Subscriptions

    enum SubscribeOutcome {
        case subscribed
        case duplicateID
        case limitReached
    }

    func subscribe(_ connection: Int, id: String, to path: ChannelPath, limit: Int) -> SubscribeOutcome {
        guard var state = connections[connection] else { return .limitReached }
        if state.subscriptions[id] != nil { return .duplicateID }
        if state.subscriptions.count >= limit { return .limitReached }
        state.subscriptions[id] = path
        connections[connection] = state
        publishActivity()
        return .subscribed
    }

    func unsubscribe(_ connection: Int, id: String) -> Bool {
        guard connections[connection]?.subscriptions.removeValue(forKey: id) != nil else { return false }
        publishActivity()
        return true
    }

    /// Sends each event, one `data` message per event, to every matching subscription.
    func publish(_ events: [String], to channel: ChannelPath) {
        let (streamReceivers, ids) = streams.publish(events, to: channel)
        var receivers = streamReceivers
        for connection in connections.values {
            for (id, path) in connection.subscriptions where path.matches(channel) {
                receivers += 1
                for event in events {
                    connection.outbox.yield(ProtocolMessages.data(id: id, event: event))
                }
            }
        }
        let now = Date()
        recentEvents += zip(events, ids).map { ConsoleEvent(channel: channel.text, event: $0, id: String($1), deliveredTo: receivers, at: now) }
        if recentEvents.count > Self.recentEventsKept { recentEvents.removeFirst(recentEvents.count - Self.recentEventsKept) }
    }

    /// The WebSocket connections as the console lists them.
    var consoleConnections: [ConsoleConnection] {
        connections.sorted { $0.key < $1.key }.map { id, connection in
            ConsoleConnection(
                id: "ws-\(id)", transport: "WebSocket", identity: connection.identity.consoleDescription,
                subscriptions: connection.subscriptions.sorted { $0.key < $1.key }.map { ConsoleSubscription(id: $0.key, channel: $0.value.text) })
        }
    }

    func send(_ text: String, to connection: Int) {
        connections[connection]?.outbox.yield(text)
    }

    // MARK: Faults

    /// Pings clients sent (each answered with a pong unless the connection is frozen).
    private(set) var pingsReceived = 0

    func countPing() {
        pingsReceived += 1
        publishActivity()
    }

    /// Every open connection stops answering (no frames, no pongs, no keep-alives), its socket open.
    func freezeConnections() {
        for connection in connections.values { connection.freeze() }
    }

    /// Closes every connection with a WebSocket close frame of `code` and `reason`; returns how many.
    func closeConnections(code: Int, reason: String) -> Int {
        for connection in connections.values { connection.close(code, reason) }
        return connections.count
    }

    /// Closes every connection's TCP socket with no WebSocket close frame.
    func dropConnections() {
        streams.dropAll()
        for connection in connections.values { connection.channel.close(promise: nil) }
    }

    func setKeepAliveEnabled(_ enabled: Bool) { keepAliveEnabled = enabled }

    func rejectNextConnects(_ count: Int) { rejectNext = count }

    /// True when this connect must be refused (consumes one rejection).
    func takeRejection() -> Bool {
        guard rejectNext > 0 else { return false }
        rejectNext -= 1
        return true
    }

    func delayAcknowledgements(by delay: Duration) { acknowledgementDelay = delay }
}
#endif
