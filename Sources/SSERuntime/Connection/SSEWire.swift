import ChannelRuntime
import ChannelTransports
import Foundation
import Logging

/// Server-Sent Events as a `Wire`: a session is one `GET`, its `200` is the acceptance, and the
/// last event id is sent back when a new session of the same channels opens. Two styles:
/// Mercure's hub (one request names every subscribed channel as a `topic`; each event's type
/// names its channel) and an own stream (one channel's path requested on the API's host; each
/// event's type names its message).
final class SSEWire: Wire {
    /// Where a session's request goes and what an event's `event:` field means.
    enum Style: Sendable {
        /// Mercure: `GET <hub>?topic=…` for every channel; `event:` names the channel.
        case hub
        /// One channel's own stream: `GET <API host><channel path>`; `event:` names the message,
        /// an event named one of `finalEventNames` ends the stream for good, and one named one of
        /// `errorEventNames` is the service's in-band error (`SSEConfiguration.streamErrorAction`).
        case ownStream(finalEventNames: Set<String>, errorEventNames: Set<String>)
    }

    let configuration: SSEConfiguration
    let transport: any EventStreamTransport
    let style: Style
    /// The last event id and the channels of the stream it was read on: the point from which those
    /// channels resume.
    private let resumption = LockedValue<Resumption?>(nil)

    struct Resumption {
        var id: String
        var channels: Set<String>
    }

    init(configuration: SSEConfiguration, transport: any EventStreamTransport, style: Style = .hub) {
        self.configuration = configuration
        self.transport = transport
        self.style = style
    }

    var vocabulary: WireVocabulary { WireVocabulary(transport: "sse", acceptance: "response from the hub", keepAlive: "byte within twice heartbeatInterval") }

    /// The id of the last event received, sent as `Last-Event-ID` when the stream reopens.
    var lastEventID: String? { resumption.withLock { $0?.id } }

    func forgetResumption() { resumption.withLock { $0 = nil } }

    /// The `Last-Event-ID` for a stream of `channels`: only when it keeps a channel of the stream
    /// the id was read on, which resumes from there without a gap. A stream of other channels only
    /// (another user's, after a switch) starts afresh: the id is no point of theirs. (A hub's one id
    /// resumes every topic of the request, so a channel added beside kept ones gets its events
    /// since that point too.)
    func lastEventID(for channels: Set<String>) -> String? {
        resumption.withLock { resumption in
            guard let resumption, !resumption.id.isEmpty, !channels.isDisjoint(with: resumption.channels) else { return nil }
            return resumption.id
        }
    }

    func openSession(channels: Set<String>, context: WireContext) async throws -> any WireSession {
        // A hub needs at least one topic: with no subscription the session is open but idle.
        guard !channels.isEmpty else { return SSESession(response: nil, channels: [], resumingFrom: nil, wire: self, context: context) }
        var (headers, query) = try await configuration.authorization.credentials(for: AuthorizationRequest(operation: .connect, endpoint: configuration.endpoint))
        context.diagnostics.setSecrets(ChannelAuthorization.secrets(in: headers) + query.compactMap(\.value))
        let resumingFrom = lastEventID(for: channels)
        if let resumingFrom { headers["Last-Event-ID"] = resumingFrom }
        let url = switch style {
        case .hub: url(base: configuration.hub, path: nil, query: channels.sorted().map { URLQueryItem(name: "topic", value: $0) } + query)
        case .ownStream: url(base: configuration.endpoint.http, path: "/" + ChannelRoute.normalized(channels.first!), query: query)
        }
        let response = try await transport.open(
            url, headers: headers.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }, tasks: TransportTasks(context.children))
        return SSESession(response: response, channels: channels, resumingFrom: resumingFrom, wire: self, context: context)
    }

    /// `base` with its path replaced by `path` (percent-encoded: a parameter value cannot add a
    /// query or a fragment), and `query` added to its own.
    private func url(base: URL, path: String?, query: [URLQueryItem]) -> URL {
        var components = URLComponents(url: base, resolvingAgainstBaseURL: false)!
        if let path {
            components.path = path
            components.query = nil
        }
        let items = (components.queryItems ?? []) + query
        components.queryItems = items.isEmpty ? nil : items
        // `+` in a query may be read as a space (a token may hold one): be exact.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        return components.url!
    }

    /// How a response other than a `200` event stream is answered.
    static func refusal(for response: EventStreamResponse, maximumRetryAfter: Duration) -> ConnectionStateMachine.Refusal? {
        let contentType = response.headers["content-type"]?.lowercased() ?? ""
        let mediaType = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first?.trimmingCharacters(in: .whitespaces)
        if response.status == 200, mediaType == "text/event-stream" { return nil }
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

    /// Keeps `id` as the point `channels` resume from if it can be sent as a header (the parser
    /// checks the stream's ids; this is for the hub's response header).
    fileprivate func keepEventID(_ id: String, channels: Set<String>, context: WireContext) {
        if let problem = ServerSentEventParser.problem(withEventID: id.utf8, maximumBytes: configuration.maximumEventIDBytes) {
            Self.reportIgnoredEventID(problem, context: context)
        } else {
            eventReceived(withID: id, channels: channels)
        }
    }

    fileprivate func eventReceived(withID id: String, channels: Set<String>) {
        resumption.withLock { $0 = Resumption(id: id, channels: channels) }
    }

    fileprivate static func reportIgnoredEventID(_ problem: ServerSentEventParser.EventIDProblem, context: WireContext) {
        context.metrics.update { $0.ignoredEventIDs += 1 }
        context.diagnostics.warning("ignoring an event id that cannot be sent back as Last-Event-ID", metadata: ["problem": "\(problem)"])
    }
}

/// One event stream from the hub, or an idle session while nothing is subscribed.
final class SSESession: WireSession {
    private let response: EventStreamResponse?
    private let channels: Set<String>
    /// The `Last-Event-ID` the request sent, if any.
    private let resumingFrom: String?
    private let wire: SSEWire
    private let context: WireContext
    /// Ends an idle session's `receive` when it is closed.
    private let idle = AsyncStream<Never>.makeStream()

    fileprivate init(response: EventStreamResponse?, channels: Set<String>, resumingFrom: String?, wire: SSEWire, context: WireContext) {
        self.response = response
        self.channels = channels
        self.resumingFrom = resumingFrom
        self.wire = wire
        self.context = context
    }

    var isIdle: Bool { response == nil }

    /// A response stream cannot be asked whether it is alive: after a path change it is reopened
    /// (with `Last-Event-ID`), unless there is none to lose.
    func probe() async -> ProbeAnswer { isIdle ? .answered : .cannotTell }

    nonisolated(nonsending) func receive(_ handle: (WireInput) -> Void) async -> ConnectionEnd {
        guard let response else {
            handle(.accepted(keepAliveTimeout: nil))
            for await _ in idle.stream {}
            return .dropped
        }
        let configuration = wire.configuration
        if let refusal = SSEWire.refusal(for: response, maximumRetryAfter: configuration.maximumRetryAfter) {
            context.diagnostics.error("the hub refused the stream", metadata: ["status": "\(response.status)"])
            handle(.refused(refusal))
            response.close()
            return .dropped
        }
        // Mercure's reconciliation: the hub names the last event it had when the stream opened, so
        // a reopen before the first event still resumes from there instead of losing the gap.
        if resumingFrom == nil, let current = response.headers["last-event-id"], !current.isEmpty {
            wire.keepEventID(current, channels: channels, context: context)
        }
        handle(.accepted(keepAliveTimeout: nil))
        var parser = ServerSentEventParser(maximumEventBytes: configuration.maximumEventBytes, maximumEventIDBytes: configuration.maximumEventIDBytes)
        for await chunk in response.body {
            handle(.activity)
            for output in parser.parse(chunk) {
                if context.diagnostics.traces { trace(output) }
                switch output {
                case .event(let event):
                    if deliver(event, handle) {
                        // The final event: nothing after it is read, and nothing reopens the stream.
                        response.close()
                        return .dropped
                    }
                case .retry(let milliseconds):
                    let range = configuration.serverRetryRange
                    handle(.reconnectDelay(min(max(.milliseconds(milliseconds), range.lowerBound), range.upperBound)))
                case .comment:
                    break  // a heartbeat: the activity above is all it is for
                case .oversizedEventDropped:
                    context.metrics.update { $0.malformedFrames += 1 }
                    context.diagnostics.error("dropping an event larger than maximumEventBytes", metadata: ["limit": "\(configuration.maximumEventBytes)"])
                case .eventIDIgnored(let problem):
                    SSEWire.reportIgnoredEventID(problem, context: context)
                }
            }
        }
        // The response ended (EOF after a `200`): a drop, reconnected with `Last-Event-ID`.
        return .dropped
    }

    /// The trace line of what the parser read: an event's name, id and size, never its data.
    private func trace(_ output: ServerSentEventParser.Output) {
        switch output {
        case .event(let event):
            var metadata: Logger.Metadata = ["type": "\(event.type)", "bytes": "\(event.data.utf8.count)"]
            if let id = event.lastEventID { metadata["id"] = "\(id)" }
            context.diagnostics.trace("frame", metadata: metadata)
        case .retry(let milliseconds): context.diagnostics.trace("frame", metadata: ["type": "retry", "milliseconds": "\(milliseconds)"])
        case .comment: context.diagnostics.trace("frame", metadata: ["type": "comment"])
        case .oversizedEventDropped: context.diagnostics.trace("frame", metadata: ["type": "oversized event"])
        case .eventIDIgnored: context.diagnostics.trace("frame", metadata: ["type": "event id ignored"])
        }
    }

    /// Hands `event` to the driver; true when it ended the stream (a final event, an in-band error).
    private func deliver(_ event: ServerSentEvent, _ handle: (WireInput) -> Void) -> Bool {
        if let id = event.lastEventID { wire.eventReceived(withID: id, channels: channels) }
        context.metrics.countFrame()
        if case .ownStream(let finalEventNames, let errorEventNames) = wire.style, let channel = channels.first {
            if errorEventNames.contains(event.type) {
                handle(.inBandError(event.data, channel: channel, name: event.type, id: event.lastEventID, refusal(forInBandError: event.data)))
                return true
            }
            handle(.channelEvent(event.data, channel: channel, name: event.type, id: event.lastEventID))
            guard finalEventNames.contains(event.type) else { return false }
            handle(.finished)
            return true
        }
        if event.type != "message" {
            handle(.channelEvent(event.data, channel: event.type, id: event.lastEventID))
        } else if channels.count == 1, let only = channels.first {
            handle(.channelEvent(event.data, channel: only, id: event.lastEventID))  // no type: the only channel there is (a single-topic hub)
        } else {
            context.metrics.update { $0.unknownSubscriptionFrames += 1 }
            context.diagnostics.debug("dropping an event with no type on a stream of several channels")
        }
        return false
    }

    /// How the session ends after an in-band error, by its `code` and the configuration's policy.
    private func refusal(forInBandError data: String) -> ConnectionStateMachine.Refusal {
        let code = try? JSONReader.peekString(forKey: "code", in: data)
        let message = try? JSONReader.peekString(forKey: "message", in: data)
        let errors = [ServiceError(errorType: "StreamError", message: message, code: code)]
        switch wire.configuration.streamErrorAction(code) {
        case .reauthorize: return .unauthorized(errors)
        case .retry: return .retryable(errors)
        case .fail: return .rejected(errors)
        }
    }

    func sendHandshake() {}  // The `200` was the handshake.

    func subscribe(_ id: String, to channel: String) async -> SubscribeReply {
        channels.contains(channel) ? .active : .needsNewSession
    }

    func unsubscribe(_ id: String) {}  // The channel leaves the stream at the next reopen; its events are dropped until then.

    func close() { abort() }

    func abort() {
        response?.close()  // the body finishes, and `receive` with it
        idle.continuation.finish()
    }
}
