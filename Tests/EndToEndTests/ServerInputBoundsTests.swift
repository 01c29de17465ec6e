import AppSyncRuntime
import ChannelRuntime
import Foundation
import Logging
import NIOChannelTransports
import NIOConcurrencyHelpers
import SSERuntime
import Testing
import ChannelRuntimeTesting

/// Every read of what a server sends has a bound: hostile loopback servers that flood, trickle,
/// or send values the client would store and send back. One test per defect found; each failed
/// before its fix.
@Suite("Server input is read with a bound")
struct ServerInputBoundsTests {
    static let mebibyte = 1 << 20
    #if canImport(Darwin)
    static let isApplePlatform = true
    #else
    static let isApplePlatform = false
    #endif
    static let eventStreamHead = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n"

    /// An SSE body used to go through an unbounded buffer before the parser: a server sending faster
    /// than the client parsed (or a consumer not reading the body) filled memory, 6.8 GB in a
    /// 30-second flood. Now the socket is read no faster than the body is taken: with nobody
    /// reading, the server is stopped by TCP after about the socket buffers' size; and what was
    /// held back all arrives once the body is read.
    @Test func anSSEBodyNobodyReadsStopsTheServerAndLosesNothing() async throws {
        // NIO's transport stops reading the socket; URLSession's (`sseBodyNobodyReadsIsBounded…`) cannot.
        // Twice the bound below: an unbounded buffer takes it all. (It was 128 MiB, which a debug build
        // on two cores under six busy loops did not read within two minutes.)
        let total = 48 * Self.mebibyte
        let event = Array("event: /nobody/listens\ndata: {\"padding\":\"\(String(repeating: "x", count: 4000))\"}\n\n".utf8)
        let server = try await StreamingServer.start(head: Self.eventStreamHead, chunk: event, total: total)
        let url = URL(string: "http://127.0.0.1:\(server.port)/.well-known/mercure?topic=/a")!
        let response = try await awaiting("the response") { try await NIOEventStreamTransport(socketConnectTimeout: .seconds(120)).open(url, headers: []) }

        let sentWhileStalled = try await server.bytesSentOnceStalled(total: total)
        // Before: all of it. After: about 6 MiB here, nearly all of it in the kernel's loopback
        // buffers (autotuned); the transport itself holds at most 256 KiB.
        #expect(sentWhileStalled < 24 * Self.mebibyte, "\(sentWhileStalled) bytes sent to a client that reads nothing")

        // The bound only turns a hang into a failure: how fast the body is read is not the point.
        let received = try await awaiting("the whole body", within: 600) { await response.body.reduce(0) { $0 + $1.count } }
        #expect(received == total)
        response.close()
        await server.stop()
    }

    /// One event id with a control character ended delivery until the process restarted (it was
    /// stored, NIO refused it as a header, and no request was ever sent again); an oversized one was
    /// echoed in full. Now both are ignored, counted, and the stream resumes from the last good id.
    @Test func hostileEventIDsNeverStopTheStreamFromReopening() async throws {
        let requests = RecordedRequests()
        let bodies = [
            "id: 1\nevent: /app/a\ndata: {}\n\nid: bad\u{1}id\nevent: /app/a\ndata: {}\n\n",
            "id: \(String(repeating: "L", count: 10_000))\nevent: /app/a\ndata: {}\n\n",
            "event: /app/a\ndata: {}\n\n",
        ]
        let server = try await ScriptedServer.start { _, request in
            requests.append(request)
            return Array((Self.eventStreamHead + bodies[min(requests.count, bodies.count) - 1]).utf8)
        }
        let connection = try SSEHostileServerTests.connection(to: server)
        let subscription = try await connection.subscribe(to: "/app/a")
        let received = Collected { subscription.events }
        await connection.start()
        try await requests.untilCount(4, "the fourth request")
        try await received.wait("four events") { $0.count >= 4 }
        await connection.disconnect()
        for request in requests.all.dropFirst().prefix(3) {
            #expect(request.lowercased().contains("last-event-id: 1\r\n"))
            #expect(request.utf8.count < 1000)
        }
        #expect(connection.metrics.snapshot().ignoredEventIDs >= 2)
        received.cancel()
        await server.stop()
    }

    /// `retry: 0` followed by a hub answering 500 gave 269 requests in 28 s: the hint replaced the
    /// backoff. Now the policy's delay is the floor, so the attempts back off as the policy says.
    @Test func aRetryOfZeroDoesNotMakeTheClientHammerAFailingHub() async throws {
        let requests = RecordedRequests()
        let server = try await ScriptedServer.start { _, request in
            requests.append(request)
            if requests.count == 1 { return Array((Self.eventStreamHead + "retry: 0\nevent: /app/a\ndata: {}\n\n").utf8) }
            return Array("HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n".utf8)
        }
        let connection = try SSEHostileServerTests.connection(to: server) {
            $0.reconnectPolicy = .exponential(initial: .milliseconds(200), maximum: .seconds(10))
        }
        let subscription = try await connection.subscribe(to: "/app/a")
        // Every state is recorded: a reconnecting state lasts only its delay, shorter than a busy
        // test run may take to look.
        let updates = await connection.stateUpdates()
        let states = Collected { updates }
        let delays: @Sendable () -> [Duration] = { states.elements.compactMap { state -> Duration? in
            if case .reconnecting(let after, _) = state { after } else { nil }
        } }
        await connection.start()
        try await waitFor("four delays") { delays().count >= 4 }
        await connection.disconnect()
        // Before: every delay was 100 ms (`retry: 0` clamped). Now the policy's: 0.2, 0.4, 0.8, 1.6 s.
        #expect(Array(delays().prefix(4)) == [.milliseconds(200), .milliseconds(400), .milliseconds(800), .milliseconds(1600)])
        #expect(requests.count >= 4)
        states.cancel()
        withExtendedLifetime(subscription) {}
        await server.stop()
    }

    /// HTTP publish read the whole answer: a 500 with a 2 GB body took 4 GB. Now the client keeps
    /// 64 KiB and closes the socket; the publish fails with the status.
    @Test(arguments: Adapters.httpPost)
    func aHugeErrorAnswerIsCutAndThePublishFails(_ adapter: PostAdapter) async throws {
        let server = try await StreamingServer.start(
            head: "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 2000000000\r\n\r\n",
            chunk: Array(repeating: UInt8(ascii: "x"), count: 64 * 1024), total: 2_000_000_000)
        let endpoint = try ChannelEndpoint(http: "http://127.0.0.1:\(server.port)/event")
        let publisher = AppSyncHTTPPublisher(endpoint: endpoint, authorization: .apiKey("da2-key"), client: adapter())
        let outcome = try await awaiting("the publish") { await resultOf { try await publisher.publish(["{}"], to: "app/a") } }
        #expect(throws: AppSyncError.service([ServiceError(errorType: nil, message: "HTTP 500", code: "500")])) { try outcome.get() }
        try await server.open.wait("the socket closed") { $0 == 0 }
        // FoundationNetworking (Linux) reads ahead of URLSession's delegate without a bound, and
        // keeps reading for a while after the cancel: the answer kept is bounded, the bytes read are not.
        if adapter.name != "URLSessionPostClient" || Self.isApplePlatform {
            #expect(server.sentBytes < 48 * Self.mebibyte)
        }
        await server.stop()
    }

    /// The client's answer is at most `maximumResponseBytes`, even from an endless `200`.
    @Test(arguments: Adapters.httpPost)
    func anEndlessAnswerIsKeptUpToTheLimit(_ adapter: PostAdapter) async throws {
        let server = try await StreamingServer.start(
            head: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n",
            chunk: Array(repeating: UInt8(ascii: " "), count: 10_000), total: Int.max)
        let client = adapter(maximumResponseBytes: 100_000)
        let url = URL(string: "http://127.0.0.1:\(server.port)/event")!
        let answer = try await awaiting("the answer") { try await client.post(url, headers: [:], body: Data("{}".utf8)) }
        #expect(answer.status == 200)
        #expect(answer.body.count == 100_000)
        try await server.open.wait("the socket closed") { $0 == 0 }
        await server.stop()
    }

    /// HTTP publish had no overall deadline: a server sending a byte every few seconds kept a
    /// publish alive forever (its timeout counted silence only). Now `timeout` bounds the whole exchange.
    @Test(arguments: Adapters.httpPost)
    func aTricklingAnswerEndsAtTheDeadline(_ adapter: PostAdapter) async throws {
        // The answer trickles for 500 s, longer than `bounded` waits: only a deadline ends the publish
        // before the test gives up, and a busy machine gets the whole wait to show it.
        let length = 10_000
        let server = try await StreamingServer.start(
            head: "HTTP/1.1 200 OK\r\nContent-Length: \(length)\r\n\r\n", chunk: [UInt8(ascii: " ")], total: length, every: .milliseconds(50))
        let endpoint = try ChannelEndpoint(http: "http://127.0.0.1:\(server.port)/event")
        let publisher = AppSyncHTTPPublisher(endpoint: endpoint, authorization: .apiKey("da2-key"), client: adapter(timeout: .milliseconds(500)))
        let outcome = try await awaiting("the publish") { await resultOf { try await publisher.publish(["{}"], to: "app/a") } }
        #expect(throws: AppSyncError.timedOut) { try outcome.get() }
        try await server.open.wait("the socket closed") { $0 == 0 }
        await server.stop()
    }

    /// A publish that ran out of time while connecting failed as a lost connection, not a time-out
    /// (NIO's connect error passed through): a frozen server that never accepts is a time-out too.
    @Test(arguments: Adapters.httpPost)
    func aServerThatNeverAcceptsIsATimeOut(_ adapter: PostAdapter) async throws {
        let listener = try FrozenListener()
        defer { listener.close() }
        let endpoint = try ChannelEndpoint(http: "http://127.0.0.1:\(listener.port)/event")
        let publisher = AppSyncHTTPPublisher(endpoint: endpoint, authorization: .apiKey("da2-key"), client: adapter(timeout: .milliseconds(500)))
        let outcome = try await awaiting("the publish") { await resultOf { try await publisher.publish(["{}"], to: "app/a") } }
        #expect(throws: AppSyncError.timedOut) { try outcome.get() }
    }

    /// Regression: a TCP connect to a host that never answers went on after the connection gave it
    /// up, since NIO's connect does not watch task cancellation: `disconnect()` (and a `run()`'s
    /// end) waited for the socket's own connect time-out. The event stream's is set to an hour
    /// here, so only the cancellation can end it; the WebSocket's is NIO's 10 s, which WSClient
    /// does not let a caller set, so returning well within it is the proof there.
    @Test func aDisconnectWhileTheTCPConnectHangsReturnsAtOnce() async throws {
        let listener = try FrozenListener()
        defer { listener.close() }
        let endpoint = try ChannelEndpoint(http: "http://127.0.0.1:\(listener.port)/event")
        let quiet = Logger(label: "frozen-connect") { _ in SwiftLogNoOpLogHandler() }

        let sse = SSEConnection(
            configuration: SSEConfiguration(endpoint: endpoint, authorization: .apiKey("key")),
            transport: NIOEventStreamTransport(socketConnectTimeout: .seconds(3600)), clock: ManualClock(), logger: quiet)
        let subscription = try await sse.subscribe(to: "/app/a")
        await sse.start()
        try await untilPublished(by: sse, "connecting") { await sse.state == .connecting }
        try await awaiting("the event stream's disconnect") { await sse.disconnect() }
        withExtendedLifetime(subscription) {}

        let webSocket = AppSyncConnection(
            configuration: AppSyncConfiguration(endpoint: endpoint, authorization: .apiKey("da2-key")), transport: WSClientTransport(logger: quiet),
            clock: ManualClock(), logger: quiet)
        await webSocket.start()
        try await untilPublished(by: webSocket, "connecting") { await webSocket.state == .connecting }
        try await awaiting("the WebSocket's disconnect", within: 8) { await webSocket.disconnect() }
    }

    /// A server that echoes the auth subprotocol in its 101 made the client log it (it carries the
    /// API key or JWT, base64url-encoded) in the subprotocol-mismatch error.
    @Test func anEchoedAuthSubprotocolNeverReachesTheLog() async throws {
        let server = try await ScriptedServer.start { accept, request in
            let offered = request.split(separator: "\r\n").first { $0.lowercased().hasPrefix("sec-websocket-protocol:") }
            let auth = offered?.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) }
            return ScriptedServer.switchingProtocols(accept: accept, subprotocol: auth)
        }
        let lines = NIOLockedValueBox<[String]>([])
        let logger = Logger(label: "capture") { _ in LineCapture(lines: lines) }
        var configuration = AppSyncConfiguration(
            endpoint: try ChannelEndpoint(http: "http://127.0.0.1:\(server.port)/event"), authorization: .apiKey("da2-secretkey0123456789"))
        configuration.reconnectPolicy = .fixed(.milliseconds(50))
        let connection = AppSyncConnection(configuration: configuration, transport: WSClientTransport(logger: logger), logger: logger)
        await connection.start()
        try await waitFor("two refused upgrades") { lines.withLockedValue { $0.filter { $0.contains("connect failed") }.count } >= 2 }
        await connection.disconnect()
        let captured = lines.withLockedValue { $0 }
        #expect(captured.contains { $0.contains("header-<redacted>") })
        #expect(!captured.contains { $0.contains("header-ey") || $0.contains("da2-secretkey") })
        await server.stop()
    }
}

/// `body`'s outcome as a value.
func resultOf<T: Sendable>(_ body: () async throws -> T) async -> Result<T, any Error> {
    do { return .success(try await body()) } catch { return .failure(error) }
}

/// Every log line, with its metadata, as text.
struct LineCapture: LogHandler {
    let lines: NIOLockedValueBox<[String]>
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        lines.withLockedValue { $0.append("\(event.level) \(event.message) \(metadata.merging(event.metadata ?? [:]) { $1 })") }
    }
}
