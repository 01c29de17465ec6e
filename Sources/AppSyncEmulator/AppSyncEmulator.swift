// Compiled with the Emulator trait (on by default); without it this module is empty.
#if Emulator
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// A local AWS AppSync Events service on 127.0.0.1: the WebSocket protocol at `/event/realtime`
/// (subprotocol `aws-appsync-event-ws` with `header-` auth) and HTTP publish at `POST /event`,
/// with API-key and JWT authorizers, wildcard subscriptions, the service limits, and fault
/// injection for tests, and a console for people at `/console` (`EmulatorConsole`). It is also a Mercure hub (`GET /.well-known/mercure`, Server-Sent Events
/// with event ids, `Last-Event-ID` replay, `retry:` and heartbeats) for the SSE transport. Apps develop against it offline; tests use it instead of AWS.
public final class AppSyncEmulator: Sendable {
    public let configuration: EmulatorConfiguration
    private let broker: EmulatorBroker
    private let jobs = JobStreams()
    private let logger: Logger
    private let state = NIOLockedValueBox<(listener: EmulatorListener?, endpoint: URL?, authorizer: EmulatorAuthorizer?)>((nil, nil, nil))

    public init(configuration: EmulatorConfiguration = EmulatorConfiguration(), logger: Logger = Logger(label: "AppSyncEmulator")) {
        self.configuration = configuration
        self.logger = logger
        self.broker = EmulatorBroker(replayCapacity: configuration.replayBufferSize)
    }

    /// The HTTP endpoint while running, e.g. `http://127.0.0.1:54321/event`.
    public var endpoint: URL? { state.withLockedValue { $0.endpoint } }

    /// The console page while running, e.g. `http://127.0.0.1:54321/console`: connections and
    /// their subscriptions, the latest events, a publish form and the faults.
    public var console: URL? { endpoint.map { $0.deletingLastPathComponent().appendingPathComponent("console") } }

    /// Starts listening on 127.0.0.1:`port` (0: a free port chosen by the OS) and returns the HTTP endpoint.
    @discardableResult
    public func start(port: Int = 0) async throws -> URL {
        let authorizer = try await EmulatorAuthorizer(configuration: configuration)
        let host = NIOLockedValueBox("")
        let own = NIOLockedValueBox(LoopbackAddress(port: -1))  // set once the listener has its port
        let publishing = PublishHandling(configuration: configuration, broker: broker)
        let session = { @Sendable (hostValue: String) in
            EmulatorSession(configuration: self.configuration, broker: self.broker, authorizer: authorizer, publishing: publishing, host: hostValue, logger: self.logger)
        }

        let eventStreams = EventStreamEndpoint(configuration: configuration, streams: broker.streams, authorizer: authorizer, logger: logger)
        let jobStreams = JobStreamEndpoint(configuration: configuration, jobs: jobs, refusals: broker.streams, authorizer: authorizer)
        // The port is known once listening; the console needs it to know its own address.
        let console = NIOLockedValueBox<EmulatorConsole?>(nil)
        let respond: EmulatorListener.Responder = { request in
            if let console = console.withLockedValue({ $0 }), let answer = await console.response(to: request) { return answer }
            if let answer = await jobStreams.response(to: request) { return answer }
            return switch (request.method, request.path) {
            case (.POST, "/event"): await Self.publish(request, authorizer: authorizer, publishing: publishing)
            case (.GET, "/.well-known/mercure"): await eventStreams.response(to: request)
            default: .plain(.notFound, "not found")
            }
        }
        let broker = self.broker
        let upgrade: EmulatorListener.Upgrade = { head in
            guard head.path == "/event/realtime" else { return nil }
            // Only this machine's own pages and native clients: a page elsewhere could otherwise
            // subscribe and publish with the printed default key.
            guard own.withLockedValue({ $0 }).admitsUpgrade(host: head.headers.first(name: "host"), origin: head.headers.first(name: "origin")) else { return nil }
            guard !(await broker.takeRejection()) else { return nil }
            let offered = head.headers[canonicalForm: "sec-websocket-protocol"].map { $0.trimmingCharacters(in: .whitespaces) }
            guard offered.contains("aws-appsync-event-ws") else { return nil }
            let hostValue = host.withLockedValue { $0 }
            // Like AppSync, bad credentials still upgrade; a connection_error follows.
            let headers = offered.first(where: { $0.hasPrefix("header-") }).flatMap(Self.decodeAuthSubprotocol)
            let identity: Identity? = if let headers, headers["host"] == hostValue { await authorizer.identity(headers) } else { nil }
            if identity != nil { await broker.recordConnectAuthorization(headers?["Authorization"] ?? headers?["authorization"]) }
            let handler = session(hostValue)
            return (HTTPHeaders([("Sec-WebSocket-Protocol", "aws-appsync-event-ws")]), { socket in await handler.run(identity: identity, socket: socket) })
        }
        let listener = try await EmulatorListener(port: port, requestTimeout: configuration.requestTimeout, respond: respond, upgrade: upgrade)
        let boundPort = listener.port
        host.withLockedValue { $0 = "127.0.0.1:\(boundPort)" }
        own.withLockedValue { $0 = LoopbackAddress(port: boundPort) }
        console.withLockedValue { $0 = EmulatorConsole(broker: broker, port: boundPort) }
        let endpoint = URL(string: "http://127.0.0.1:\(boundPort)/event")!
        state.withLockedValue { $0 = (listener, endpoint, authorizer) }
        logger.info("AppSync Events emulator listening", metadata: ["endpoint": "\(endpoint)"])
        return endpoint
    }

    /// `POST /event`: HTTP publish.
    private static func publish(_ request: EmulatorRequest, authorizer: EmulatorAuthorizer, publishing: PublishHandling) async -> EmulatorResponse {
        let object = (try? JSONSerialization.jsonObject(with: Data(request.body.readableBytesView))) as? [String: Any] ?? [:]
        let identity = await authorizer.identity(request.headerFields)
        switch await publishing.publish(channelText: object["channel"] as? String, events: object["events"], identity: identity) {
        case .success(let result):
            return .complete(.ok, headers: [("Content-Type", "application/json")], body: ProtocolMessages.json(result))
        case .failure(let rejection):
            return .complete(HTTPResponseStatus(statusCode: rejection.status), headers: [("Content-Type", "application/json")], body: ProtocolMessages.json(["errors": rejection.errors]))
        }
    }

    /// Stops the server; open connections end.
    public func stop() async {
        let listener = state.withLockedValue { state -> EmulatorListener? in
            defer { state = (nil, nil, nil) }
            return state.listener
        }
        await broker.dropConnections()
        jobs.dropAll()
        await listener?.stop()
        broker.activity.finish()
    }

    /// The `header-<base64url(JSON)>` subprotocol decoded into headers.
    static func decodeAuthSubprotocol(_ subprotocol: String) -> [String: String]? {
        var base64 = String(subprotocol.dropFirst("header-".count))
            .replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64) else { return nil }
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: String]
    }

    // MARK: Tokens

    /// An HS256 JWT whose `sub` is `userId`, signed with the configured secret.
    public func token(forUser userId: String, lifetime: TimeInterval = 3600) async throws -> String {
        guard let authorizer = state.withLockedValue({ $0.authorizer }) else { throw EmulatorError.notRunning }
        return try await authorizer.token(sub: userId, lifetime: lifetime)
    }

    // MARK: Observation

    public var connectionCount: Int { get async { await broker.connectionCount } }
    public var connectionsAccepted: Int { get async { await broker.connectionsAccepted } }
    public var subscriptionCount: Int { get async { await broker.subscriptionCount } }
    public var subscribedChannels: [String] { get async { await broker.subscribedChannels } }
    /// The `Authorization` header of every accepted connect, in order.
    public var connectAuthorizations: [String] { get async { await broker.connectAuthorizations } }

    /// The WebSocket side's counts now, then each change to them (a reader that falls behind gets
    /// the latest): a test awaits a count instead of polling it. The stream ends when the emulator
    /// stops.
    ///
    /// ```swift
    /// for await activity in emulator.activityUpdates() where activity.connectionsAccepted == 2 { break }
    /// ```
    public func activityUpdates() -> AsyncStream<EmulatorActivity> { broker.activity.updates() }

    // MARK: Fault injection

    /// Closes every connection abnormally: the TCP socket goes away with no close frame.
    public func dropConnections() async {
        await broker.dropConnections()
        jobs.dropAll()
    }

    /// The next `count` job stream opens (`GET /api/v2/enrichments/{jobId}/stream`) are answered
    /// with an in-band `error` event carrying `code` (e.g. `AUTH_FAILURE`), and end.
    public func failNextJobStreams(_ count: Int, code: String) { jobs.failNext(count, code: code) }

    /// Job streams opened so far, and open now.
    public var jobStreamsOpened: Int { jobs.streamsOpened }
    public var jobStreamCount: Int { jobs.openStreams }

    /// When each event of `job` was emitted, by event id (1 is the first `progress`): for
    /// measuring how long an event takes to reach a consumer.
    public func jobEventEmissionTimes(_ job: String) -> [Int: ContinuousClock.Instant] { jobs.emissionTimes(of: job) }

    /// Every open WebSocket stops answering anything (frames, pongs, keep-alives) with its socket
    /// left open: a frozen server, or a network path that went dead.
    public func freezeConnections() async { await broker.freezeConnections() }

    /// Pings the clients sent.
    public var pingsReceived: Int { get async { await broker.pingsReceived } }

    /// Closes every client WebSocket with a close frame of `code` (1000: a normal close) and `reason`;
    /// returns how many it closed (none when no client is connected at that moment).
    @discardableResult
    public func closeConnections(code: Int = 1000, reason: String = "") async -> Int { await broker.closeConnections(code: code, reason: reason) }

    /// Stops (or resumes) sending `ka` messages.
    public func setKeepAliveEnabled(_ enabled: Bool) async { await broker.setKeepAliveEnabled(enabled) }

    /// Refuses the WebSocket upgrade of the next `count` connects.
    public func rejectNextConnects(_ count: Int) async { await broker.rejectNextConnects(count) }

    /// Answers the next `count` event stream requests with `status` (e.g. 429 or 503) and, when
    /// given, `Retry-After: <seconds>`.
    public func refuseNextEventStreams(_ count: Int, status: Int, retryAfterSeconds: Int? = nil) {
        broker.streams.refuseNext(count, status: status, retryAfter: retryAfterSeconds)
    }

    /// Every open event stream stops sending (no events, no heartbeats) with its connection left
    /// open: a frozen server. Events published meanwhile stay in the replay buffer.
    public func stallEventStreams() { broker.streams.stallAll() }

    /// Event streams open now, and opened since the start.
    public var eventStreamCount: Int { broker.streams.openStreams }
    public var eventStreamsOpened: Int { broker.streams.streamsOpened }

    /// Delays every `connection_ack` and `subscribe_success` (zero: no delay).
    public func delayAcknowledgements(by delay: Duration) async { await broker.delayAcknowledgements(by: delay) }
}
#endif
