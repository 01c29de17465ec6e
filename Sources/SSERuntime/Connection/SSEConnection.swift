import ChannelRuntime
import Foundation
import Logging

/// One Server-Sent Events stream from a Mercure hub carrying every subscribed channel, kept alive
/// across drops: the second transport under the same hub and generated notifier
/// (`BackendNotifier(source: ChannelEventHub(connection: SSEConnection(…)))`).
///
/// The wire is the Mercure protocol: `GET <hub>?topic=<channel>&topic=…` with the
/// authorization's headers, answered by `text/event-stream`. Each event's `event:` field (Mercure's
/// update `type`) names its channel, its `data:` is the event's JSON and its `id:` is sent back as
/// `Last-Event-ID` when the stream is reopened, so the hub replays what was published meanwhile
/// (before the first event, the `Last-Event-ID` the hub answered the request with).
///
/// The connection's life is the transport-neutral `ConnectionStateMachine`, as for the WebSocket:
/// - a `200` event stream is the accepted session; every subscription it names is active at once;
/// - a subscription to a channel the stream does not carry reopens the stream with the new channel
///   set (changes within `resubscribeDelay` are gathered into one reopen); an unsubscribed channel
///   stays in the stream until the next reopen, its events dropped;
/// - `401`/`403` is an authorization failure (tried once more with fresh credentials), `429`/`503`
///   wait for `Retry-After` (at most `maximumRetryAfter`), other `5xx` reconnect, `204` and other
///   `4xx` fail for good;
/// - the server's `retry:` is a hint: it can lengthen the reconnect policy's delay (up to
///   `serverRetryRange`'s upper bound), never shorten it, so failures still back off as the policy
///   says; bytes and heartbeat comments feed the `heartbeatTimeout` watchdog;
/// - an event `id` that cannot be sent back as a `Last-Event-ID` header (`maximumEventIDBytes`,
///   control characters) is not kept: counted (`ignoredEventIDs`) and logged;
/// - events larger than `maximumEventBytes` and events naming no subscribed channel are counted
///   and dropped.
public actor SSEConnection: ChannelConnection {
    /// The settings the connection was made with.
    public nonisolated let configuration: SSEConfiguration
    /// Counters of events, reconnects and per-channel deliveries.
    public nonisolated let metrics: RuntimeMetrics

    private let transport: any EventStreamTransport
    private let clock: RuntimeClock
    private let logger: Logger
    /// Error and warning lines: credentials taken out, repeats summarised.
    private let diagnostics: DiagnosticLog
    private var machine: ConnectionStateMachine
    private let board = ConnectionStatusBoard()
    private var timers = MachineTimers()

    /// What the connection is doing now; `stateUpdates()` streams its changes.
    public var state: ConnectionState { board.connectionState }

    /// The stream of the current session. With no subscription there is no request (a hub needs at
    /// least one topic): the session is open but idle.
    private struct OpenSession {
        let id: ConnectionStateMachine.SessionID
        let channels: Set<String>
        let response: EventStreamResponse?
        let reader: Task<Void, Never>?
    }

    private var opening: (id: ConnectionStateMachine.SessionID, task: Task<Void, Never>)?
    private var session: OpenSession?
    private var parser: ServerSentEventParser
    private var lastByteAt: Duration = .zero
    private var renewal: Task<Void, Never>?

    /// The id of the last event received, sent as `Last-Event-ID` when the stream reopens.
    public private(set) var lastEventID: String?

    private struct Sink {
        let channel: String
        let route: ChannelRoute
        let continuation: BatchedStream<RawChannelEvent>.Continuation
        let counter: RuntimeMetrics.ChannelCounter
    }

    private var sinks: [String: Sink] = [:]
    private var sequence = 0

    /// A connection that does nothing until `start()`.
    ///
    /// - Parameters:
    ///   - configuration: the hub, authorization and timing.
    ///   - transport: the HTTP client (`NIOEventStreamTransport` by default).
    ///   - clock: the clock every delay and timeout uses (inject one in tests).
    ///   - metrics: where counters go.
    ///   - logger: where diagnostics go; tokens never reach it.
    public init(
        configuration: SSEConfiguration,
        transport: any EventStreamTransport = NIOEventStreamTransport(),
        clock: some Clock<Duration> = ContinuousClock(),
        metrics: RuntimeMetrics = RuntimeMetrics(),
        logger: Logger = Logger(label: "SSERuntime.SSEConnection")
    ) {
        self.configuration = configuration
        self.transport = transport
        self.clock = RuntimeClock(clock)
        self.metrics = metrics
        self.logger = logger
        self.diagnostics = DiagnosticLog(logger: logger, clock: self.clock)
        self.machine = ConnectionStateMachine(settings: configuration.machineSettings)
        self.parser = Self.parser(for: configuration)
    }

    private static func parser(for configuration: SSEConfiguration) -> ServerSentEventParser {
        ServerSentEventParser(maximumEventBytes: configuration.maximumEventBytes, maximumEventIDBytes: configuration.maximumEventIDBytes)
    }

    // MARK: Lifecycle

    /// Starts connecting (and keeps reconnecting); does nothing when already running.
    public func start() { run(machine.start()) }

    /// Ends the connection with no reconnect and returns once the stream is closed. Subscriptions
    /// stay registered, so their streams resume after the next `start()`.
    public func disconnect() async {
        run(machine.stop())
        await board.waitUntilStopped()
    }

    /// For the app going to the background: closes the stream and does not reconnect until `resume()`.
    public func suspend() async {
        run(machine.suspend())
        await board.waitUntilStopped()
    }

    /// For the app coming back: reconnects at once, resuming after the last event received.
    public func resume() { run(machine.resume()) }

    /// Connection states, starting with the current one.
    public func stateUpdates() -> AsyncStream<ConnectionState> { board.connectionStateUpdates() }

    // MARK: Running the machine

    private func run(_ actions: [ConnectionStateMachine.Action]) {
        for action in actions { perform(action) }
    }

    private func perform(_ action: ConnectionStateMachine.Action) {
        switch action {
        case .openTransport(let id):
            opening = (id, Task { await self.open(id) })
        case .sendHandshake:
            break  // The `200` was the handshake (see `open`).
        case .sendSubscribe(let id, _):
            guard let session else { return }
            // After the actions of this step: the machine expects the answer later.
            Task { self.answerSubscribe(id, on: session.id) }
        case .sendUnsubscribe:
            break  // The channel leaves the stream at the next reopen; its events are dropped until then.
        case .closeTransport(let id), .abortTransport(let id):
            close(id)
        case .startTimer(let timer, let delay):
            timers.start(timer, after: delay, on: clock) { timer, token in await self.timerFired(timer, token: token) }
        case .cancelTimer(let timer):
            timers.cancel(timer)
        case .sessionEnded(let id):
            if session?.id == id { close(id) }
        case .publishState(let newState):
            board.publish(newState, log: diagnostics)
        case .publishSubscriptionStatus(let id, let status):
            if sinks[id] != nil { board.setStatus(status, of: id) }
        case .count(let metric):
            metrics.count(metric, log: diagnostics, silence: "byte within heartbeatTimeout")
        }
    }

    // MARK: The stream

    private func open(_ id: ConnectionStateMachine.SessionID) async {
        guard await configuration.isSignedIn() else {
            logger.debug("signed out; waiting before connecting")
            opening = nil
            run(machine.signedOut(id))
            return
        }
        let channels = Set(sinks.values.map(\.channel))
        guard !channels.isEmpty else {
            opening = nil
            begin(OpenSession(id: id, channels: [], response: nil, reader: nil), refusal: nil)
            return
        }
        let response: EventStreamResponse
        do {
            var headers = try await configuration.authorization.headers(for: AuthorizationRequest(operation: .connect, endpoint: configuration.endpoint))
            diagnostics.setSecrets(AppSyncAuthorization.secrets(in: headers))
            if let lastEventID, !lastEventID.isEmpty { headers["Last-Event-ID"] = lastEventID }
            response = try await transport.open(hubURL(for: channels), headers: headers.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) })
        } catch {
            if opening?.id == id { opening = nil }
            if !(error is CancellationError) { diagnostics.error("opening the event stream failed", metadata: ["error": "\(error)"]) }
            run(machine.transportFailed(id))
            return
        }
        if opening?.id == id { opening = nil }
        guard machine.currentSession == id else {
            response.close()  // The connect timed out or the app stopped meanwhile.
            return
        }
        let refusal = Self.refusal(for: response, maximumRetryAfter: configuration.maximumRetryAfter)
        // Mercure's reconciliation: the hub names the last event it had when the stream opened, so
        // a reopen before the first event still resumes from there instead of losing the gap.
        if refusal == nil, lastEventID == nil, let current = response.headers["last-event-id"], !current.isEmpty {
            keepEventID(current)
        }
        let reader = refusal == nil ? Task {
            for await chunk in response.body { self.received(chunk, on: id) }
            self.transportEnded(id)
        } : nil
        begin(OpenSession(id: id, channels: channels, response: response, reader: reader), refusal: refusal)
        if refusal != nil { response.close() }
    }

    /// The session's transport is open: the response status is the service's answer.
    private func begin(_ newSession: OpenSession, refusal: ConnectionStateMachine.Refusal?) {
        session = newSession
        parser = Self.parser(for: configuration)
        lastByteAt = clock.now()
        run(machine.transportOpened(newSession.id))
        if let refusal {
            diagnostics.error("the hub refused the stream", metadata: ["status": "\(newSession.response?.status ?? 0)"])
            run(machine.sessionRefused(newSession.id, refusal))
        } else {
            run(machine.sessionAccepted(newSession.id, keepAliveTimeout: nil))
        }
    }

    private func hubURL(for channels: Set<String>) -> URL {
        var components = URLComponents(url: configuration.hub, resolvingAgainstBaseURL: false)!
        components.queryItems = (components.queryItems ?? []) + channels.sorted().map { URLQueryItem(name: "topic", value: $0) }
        // `+` in a query may be read as a space; channel names never hold one, but be exact anyway.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        return components.url!
    }

    /// How a response other than a `200` event stream is answered.
    static func refusal(for response: EventStreamResponse, maximumRetryAfter: Duration) -> ConnectionStateMachine.Refusal? {
        let contentType = response.headers["content-type"]?.lowercased() ?? ""
        if response.status == 200, contentType.hasPrefix("text/event-stream") { return nil }
        let errors = [ServiceError(errorType: "HTTPStatus", message: "HTTP \(response.status) \(contentType)", code: String(response.status))]
        switch response.status {
        case 401, 403:
            return .unauthorized(errors)
        case 429, 503:
            let retryAfter = response.headers["retry-after"].flatMap(Self.retryAfter).map { min($0, maximumRetryAfter) }
            return .retryable(errors, retryAfter: retryAfter)
        case 200, 500...599:
            return .retryable(errors)  // a captive portal's page, a failing hub: try again later
        default:
            return .rejected(errors)  // 204 (the standard's "stop reconnecting"), redirects, other 4xx
        }
    }

    /// `Retry-After` as delay seconds or an HTTP date.
    static func retryAfter(_ value: String) -> Duration? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(text), seconds >= 0 { return .seconds(seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: text) else { return nil }
        return .milliseconds(max(0, Int(date.timeIntervalSinceNow * 1000)))
    }

    private func transportEnded(_ id: ConnectionStateMachine.SessionID) {
        guard let session, session.id == id else { return }
        self.session = nil
        run(machine.transportClosed(id))
    }

    /// Closes the session's stream at once; its end comes back as `transportClosed`. An open in
    /// flight is cancelled.
    private func close(_ id: ConnectionStateMachine.SessionID) {
        if let opening, opening.id == id {
            opening.task.cancel()
            self.opening = nil
        }
        guard let session, session.id == id else { return }
        if let response = session.response, session.reader != nil {
            response.close()  // the reader sees the body finish and reports the end
        } else {
            Task { self.transportEnded(id) }  // an idle or refused session has no reader
        }
    }

    // MARK: Timers

    private func timerFired(_ timer: ConnectionStateMachine.Timer, token: Int) {
        guard timers.take(timer, token: token) else { return }
        if case .connect = timer { diagnostics.error("no response from the hub in time; closing") }
        // An idle session has nothing to be silent about.
        if session?.response == nil { lastByteAt = clock.now() }
        run(machine.timerFired(timer, silence: clock.now() - lastByteAt))
    }

    // MARK: Events

    private func received(_ chunk: [UInt8], on id: ConnectionStateMachine.SessionID) {
        guard session?.id == id else { return }
        lastByteAt = clock.now()
        for output in parser.parse(chunk) {
            switch output {
            case .event(let event):
                deliver(event)
            case .retry(let milliseconds):
                let asked = Duration.milliseconds(milliseconds)
                let range = configuration.serverRetryRange
                machine.serviceAskedForReconnectDelay(min(max(asked, range.lowerBound), range.upperBound))
            case .comment:
                break  // a heartbeat: the byte time above is all it is for
            case .oversizedEventDropped:
                metrics.update { $0.malformedFrames += 1 }
                diagnostics.error("dropping an event larger than maximumEventBytes", metadata: ["limit": "\(configuration.maximumEventBytes)"])
            case .eventIDIgnored(let problem):
                reportIgnoredEventID(problem)
            }
        }
    }

    /// Keeps `id` for `Last-Event-ID` if it can be sent as a header (the parser checked the stream's
    /// ids; this is for the hub's response header).
    private func keepEventID(_ id: String) {
        if let problem = ServerSentEventParser.problem(withEventID: id.utf8, maximumBytes: configuration.maximumEventIDBytes) {
            reportIgnoredEventID(problem)
        } else {
            lastEventID = id
        }
    }

    private func reportIgnoredEventID(_ problem: ServerSentEventParser.EventIDProblem) {
        metrics.update { $0.ignoredEventIDs += 1 }
        diagnostics.warning("ignoring an event id that cannot be sent back as Last-Event-ID", metadata: ["problem": "\(problem)"])
    }

    private func deliver(_ event: ServerSentEvent) {
        if let id = event.lastEventID { lastEventID = id }
        metrics.countFrame()
        let targets: [Sink]
        if event.type == "message" {
            // An event without a type goes to the only channel there is (a single-topic hub).
            let all = Array(sinks.values)
            targets = Set(all.map(\.channel)).count == 1 ? all : []
        } else {
            let channel = ChannelRoute.normalized(event.type)
            targets = sinks.values.filter { $0.route.matches(channel) }
        }
        guard !targets.isEmpty else {
            metrics.update { $0.unknownSubscriptionFrames += 1 }
            logger.debug("dropping an event for no subscribed channel", metadata: ["event": "\(event.type)"])
            return
        }
        sequence += 1
        let raw = RawChannelEvent(text: event.data, sequence: sequence, receivedAt: Date())
        for sink in targets {
            sink.counter.received(1)
            sink.continuation.send(raw)
        }
    }

    // MARK: Subscriptions

    /// Subscribes to `channel`, a topic path by the Server-Sent Events channel rules
    /// (`ChannelNamingRules.serverSentEvents`; a last segment `*` is everything below). The stream
    /// stays open across reconnects; `unsubscribe(_:)` or the consumer stopping ends it.
    public func subscribe(to channel: String) async throws(ChannelPathError) -> RawChannelSubscription {
        try ChannelPathError.check(channel, rules: .serverSentEvents, allowingWildcard: true)
        let id = UUID().uuidString
        let (stream, continuation, reader) = BatchedStream<RawChannelEvent>.makeStreamAndReader()
        continuation.onTermination = { _ in Task { await self.unsubscribe(id) } }
        sinks[id] = Sink(channel: channel, route: ChannelRoute(channel), continuation: continuation, counter: metrics.counter(forChannel: channel))
        run(machine.subscribe(id: id, channel: channel))
        return RawChannelSubscription(id: id, channel: channel, events: stream, reader: reader)
    }

    /// The machine sent a subscribe: active at once when the stream carries the channel, otherwise
    /// the stream is reopened with it (soon, so that a burst of subscribes is one reopen).
    private func answerSubscribe(_ id: String, on sessionID: ConnectionStateMachine.SessionID) {
        guard let session, session.id == sessionID, let sink = sinks[id] else { return }
        if session.channels.contains(sink.channel) {
            run(machine.subscribeSucceeded(sessionID, id: id))
        } else if renewal == nil {
            let clock = self.clock
            let delay = configuration.resubscribeDelay
            renewal = Task {
                try? await clock.sleep(for: delay)
                self.renew(sessionID)
            }
        }
    }

    private func renew(_ sessionID: ConnectionStateMachine.SessionID) {
        renewal = nil
        logger.debug("reopening the stream for a changed channel set")
        run(machine.renewSession(sessionID))
    }

    /// Ends a subscription: its stream finishes.
    public func unsubscribe(_ id: String) async {
        guard let sink = sinks.removeValue(forKey: id) else { return }
        sink.continuation.finish()
        run(machine.unsubscribe(id: id))
        board.forget(id)
    }

    /// Channels with an active subscription, for diagnostics.
    public var acknowledgedChannels: [String] {
        sinks.filter { machine.isActive($0.key) }.map(\.value.channel).sorted()
    }

    /// Where the subscription `id` stands now; `nil` once it ended.
    public func status(ofSubscription id: String) -> SubscriptionStatus? { board.status(of: id) }

    /// The statuses of subscription `id`, starting with the current one; finishes when it ends.
    public func statusUpdates(ofSubscription id: String) -> AsyncStream<SubscriptionStatus> { board.statusUpdates(of: id) }
}

/// Why the SSE connection cannot open its stream.
public enum SSEConnectionError: Error, Equatable, CustomStringConvertible {
    /// The hub URL is not `https` (plain `http` is for loopback hosts only), or has no host.
    case insecureHub(String)

    public var description: String {
        switch self {
        case .insecureHub(let url): return "'\(url)' is not https; plain http is allowed for loopback hosts only"
        }
    }
}

/// Which event types (channel paths, compared without leading and trailing `/`) a subscription
/// receives: its own channel, or every channel below a `…/*` prefix.
struct ChannelRoute: Sendable, Equatable {
    let path: String
    let isWildcard: Bool

    init(_ channel: String) {
        let path = Self.normalized(channel)
        if path.hasSuffix("/*") {
            self.path = String(path.dropLast(2))
            isWildcard = true
        } else {
            self.path = path
            isWildcard = false
        }
    }

    static func normalized(_ channel: String) -> String {
        var text = Substring(channel)
        while text.hasPrefix("/") { text = text.dropFirst() }
        while text.hasSuffix("/") { text = text.dropLast() }
        return String(text)
    }

    /// Whether an event on `channel` (normalized) belongs to this subscription.
    func matches(_ channel: String) -> Bool {
        isWildcard ? channel.hasPrefix(path + "/") : channel == path
    }
}
