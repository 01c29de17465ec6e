import Foundation

/// A transport as `ConnectionDriver` sees it: something that opens sessions. The driver does
/// everything else (the machine, timers, statuses, subscriptions, delivery); a wire only opens,
/// sends, reads and closes, and tells the driver what its frames mean.
package protocol Wire: Sendable {
    /// How the driver's log lines name this wire's handshake answer and keep-alive.
    var vocabulary: WireVocabulary { get }

    /// Opens an authorized session carrying `channels` (every subscribed channel now; a wire that
    /// subscribes per channel ignores them). Throws when it cannot; the machine then retries.
    func openSession(channels: Set<String>, context: WireContext) async throws -> any WireSession

    /// Forgets where the channels would resume from (a Server-Sent Events `Last-Event-ID`): their
    /// events came over another connection meanwhile, and a replay would deliver them twice.
    func forgetResumption()
}

extension Wire {
    package func forgetResumption() {}
}

/// What a wire's sessions may use of the driver's: its counters, its log, its clock, and its root,
/// where a session's own tasks (a writer, a sweeper of late answers) run as children.
package struct WireContext: Sendable {
    package let metrics: RuntimeMetrics
    package let diagnostics: DiagnosticLog
    package let clock: RuntimeClock
    package let children: ConnectionTasks
}

/// Names for the driver's log lines, so they speak the wire's language, and for its metrics.
package struct WireVocabulary: Sendable {
    /// The `transport` dimension of the connection's metrics (`websocket`, `sse`).
    package var transport: String
    /// The service's acceptance of a session ("connection_ack").
    package var acceptance: String
    /// What the keep-alive watchdog waits for ("frame within connectionTimeoutMs").
    package var keepAlive: String

    package init(transport: String, acceptance: String, keepAlive: String) {
        self.transport = transport
        self.acceptance = acceptance
        self.keepAlive = keepAlive
    }
}

/// One open session of a wire: a socket, a response stream.
package protocol WireSession: AnyObject, Sendable {
    /// Reads the session until its transport ends, handing what each frame means to `handle`, on the
    /// caller's actor (the driver's). Returns once the transport ended, with how it ended.
    nonisolated(nonsending) func receive(_ handle: (WireInput) -> Void) async -> ConnectionEnd

    /// Starts the service's handshake; its answer comes back as `.accepted` or `.refused`.
    func sendHandshake()

    /// Asks for subscription `id` to `channel`; see `SubscribeReply`.
    func subscribe(_ id: String, to channel: String) async -> SubscribeReply

    /// Ends subscription `id` on the wire, where the wire has such a thing.
    func unsubscribe(_ id: String)

    /// Starts a polite close; `receive` returns when it is done.
    func close()

    /// Closes at once, without a handshake.
    func abort()

    /// A session with nothing to read (no channel to stream yet): silence is no sign of trouble.
    var isIdle: Bool { get }

    /// Whether the session still carries traffic (after a network path change, or silence): the
    /// peer answered (a WebSocket pong), the ask failed, or the wire cannot ask (Server-Sent Events,
    /// a WebSocket adapter without pings). The driver bounds the wait.
    func probe() async -> ProbeAnswer
}

/// What a liveness probe found.
package enum ProbeAnswer: Sendable, Equatable {
    /// The peer answered: the session is alive.
    case answered
    /// The probe could not be sent (the socket failed).
    case failed
    /// The wire has no way to ask.
    case cannotTell
}

/// What a wire's frames mean to the driver.
package enum WireInput {
    /// Bytes arrived: the keep-alive watchdog starts again.
    case activity
    /// The service accepted the session; its keep-alive silence limit if it named one.
    case accepted(keepAliveTimeout: Duration?)
    /// The service refused the session.
    case refused(ConnectionStateMachine.Refusal)
    /// The service confirmed subscription `id`.
    case subscribed(String)
    /// The service refused subscription `id`.
    case subscribeRejected(String, [ServiceError])
    /// One event for subscription `id` (the wire routes by subscription).
    case event(String, subscription: String)
    /// Events for subscription `id`, in order.
    case events([String], subscription: String)
    /// One event published on `channel` (the wire routes by channel: each subscription whose
    /// channel matches gets it), with the name the wire gave it if it names events, and its id if
    /// it has one.
    case channelEvent(String, channel: String, name: String? = nil, id: String? = nil)
    /// An in-band error event on `channel` (an own stream's `error`): delivered like any event,
    /// but proving nothing about the session's health, then `refusal` ends the session.
    case inBandError(String, channel: String, name: String, id: String?, ConnectionStateMachine.Refusal)
    /// The stream ended for good after a final event (`ChannelRequest.finalEventNames`): every
    /// subscription's stream finishes and nothing reconnects.
    case finished
    /// The service asked for this delay before the next reconnect.
    case reconnectDelay(Duration)
}

/// A wire's answer to a subscribe.
package enum SubscribeReply: Sendable {
    /// Authorized and ready to send; the driver calls `send` if the subscription and the session
    /// are still current, and the service's answer comes back as an input.
    case send(@Sendable () -> Void)
    /// Active at once: the session already carries the channel.
    case active
    /// The session cannot carry the channel: the driver opens a new session (changes within its
    /// renewal delay gathered into one).
    case needsNewSession
    /// No subscribe could be made (the authorization provider failed).
    case failed([ServiceError])
}

/// Which channels a subscription receives on a wire that routes by channel (paths compared without
/// leading and trailing `/`): its own channel, or every channel below a `…/*` prefix.
package struct ChannelRoute: Sendable, Equatable {
    package let path: String
    package let isWildcard: Bool

    package init(_ channel: String) {
        let path = Self.normalized(channel)
        if path.hasSuffix("/*") {
            self.path = String(path.dropLast(2))
            isWildcard = true
        } else {
            self.path = path
            isWildcard = false
        }
    }

    package static func normalized(_ channel: String) -> String {
        var text = Substring(channel)
        while text.hasPrefix("/") { text = text.dropFirst() }
        while text.hasSuffix("/") { text = text.dropLast() }
        return String(text)
    }

    /// Whether an event on `channel` (normalized) belongs to this subscription.
    package func matches(_ channel: String) -> Bool {
        isWildcard ? channel.hasPrefix(path + "/") : channel == path
    }
}
