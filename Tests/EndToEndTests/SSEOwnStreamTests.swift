import ChannelRuntime
import Foundation
import Logging
import NIOChannelTransports
import NIOConcurrencyHelpers
import SSERuntime
import Testing
import ChannelRuntimeTesting

/// Own streams (seed 004's job streams): each instance of a channel is its own `GET` of its path,
/// the `event:` field names the message, a final event ends the stream for good, and an open that
/// ends before any event counts as a failed one. Scripted loopback servers answer per path.
@Suite("SSE own streams (job streams)")
struct SSEOwnStreamTests {
    static let head = SSEHostileServerTests.eventStreamHead

    static func connection(
        to server: ScriptedServer, logger: Logger = SSEConnectionTests.quiet, _ configure: (inout SSEConfiguration) -> Void = { _ in }
    ) throws -> SSEConnection {
        let endpoint = try ChannelEndpoint(http: "http://127.0.0.1:\(server.port)/event")
        var configuration = SSEConfiguration(endpoint: endpoint, authorization: .bearerToken { "job-token-123" })
        configuration.reconnectPolicy = .fixed(.milliseconds(20))
        configuration.connectTimeout = boundForLoadedMachines
        configure(&configuration)
        return SSEConnection(configuration: configuration, transport: NIOEventStreamTransport(), logger: logger)
    }

    static func job(_ id: String, finals: Set<String> = ["completed", "failed"]) -> ChannelRequest {
        ChannelRequest(channel: "/api/v2/enrichments/\(id)/stream", isOwnStream: true, finalEventNames: finals)
    }

    /// The request line's path and query.
    static func target(of request: String) -> String {
        String(request.split(separator: " ", maxSplits: 2)[1])
    }

    @Test func eachJobIsItsOwnRequestWithItsOwnLastEventIDAndNamedEvents() async throws {
        let requests = RecordedRequests()
        let server = try await ScriptedServer.start { _, request in
            requests.append(request)
            let job = Self.target(of: request).contains("/a/") ? "a" : "b"
            let seen = requests.all.filter { Self.target(of: $0).contains("/\(job)/") }.count
            // Each job's stream ends after one event; the next open must resume from it.
            return Array((Self.head + "id: \(job)\(seen)\nevent: progress\ndata: {\"jobId\":\"\(job)\",\"n\":\(seen)}\n\n").utf8)
        }
        let connection = try Self.connection(to: server)
        let a = try await connection.subscribe(Self.job("a"))
        let b = try await connection.subscribe(Self.job("b"))
        let eventsOfA = Collected { a.events }
        let eventsOfB = Collected { b.events }
        await connection.start()
        try await eventsOfA.wait("three events of each job") { $0.count >= 3 && eventsOfB.count >= 3 }
        await connection.disconnect()

        #expect(eventsOfA.elements.prefix(3).map(\.text) == (1...3).map { "{\"jobId\":\"a\",\"n\":\($0)}" })
        #expect(eventsOfA.elements.allSatisfy { $0.eventName == "progress" })
        let ofA = requests.all.filter { Self.target(of: $0).contains("/a/") }
        let ofB = requests.all.filter { Self.target(of: $0).contains("/b/") }
        // No topic query: the path is the stream.
        #expect(ofA.allSatisfy { Self.target(of: $0) == "/api/v2/enrichments/a/stream" })
        #expect(ofA.allSatisfy { $0.contains("Authorization: Bearer job-token-123\r\n") })
        // Each job resumes from its own last event, never the other's.
        #expect(!ofA[0].lowercased().contains("last-event-id"))
        #expect(ofA[1].lowercased().contains("last-event-id: a1\r\n"))
        #expect(ofA[2].lowercased().contains("last-event-id: a2\r\n"))
        #expect(ofB[1].lowercased().contains("last-event-id: b1\r\n"))
        await server.stop()
    }

    @Test func aFinalEventEndsTheStreamAndNothingReopensIt() async throws {
        let requests = RecordedRequests()
        let server = try await ScriptedServer.start(closing: false) { _, request in
            requests.append(request)
            let body = "id: 1\nevent: progress\ndata: {\"n\":1}\n\nid: 2\nevent: completed\ndata: {\"n\":2}\n\n"
                + "id: 3\nevent: progress\ndata: {\"after\":true}\n\n"
            return Array((Self.head + body).utf8)
        }
        let connection = try Self.connection(to: server)
        let job = try await connection.subscribe(Self.job("a"))
        await connection.start()
        let events = try await awaiting("the stream to finish") { await job.events.reduce(into: []) { $0.append($1) } }
        #expect(events.map(\.eventName) == ["progress", "completed"])
        // The stream is gone from the connection: no status, and the connection carries on.
        try await untilPublished(by: connection, "the own stream to end") { await connection.status(ofSubscription: job.id) == nil }
        #expect(await connection.state == .connected)
        // A reopen would come after 20 ms; the stream's driver is stopped for good instead.
        try await Task.sleep(for: .milliseconds(200))
        #expect(requests.count == 1)
        await connection.disconnect()
        try await server.open.wait("every socket closed") { $0 == 0 }
        await server.stop()
    }

    @Test func anOpenThatEndsBeforeAnyEventCountsAsFailedSoALimitedPolicyStops() async throws {
        let requests = RecordedRequests()
        // A finished job's endpoint as seed 004 saw it: `200`, then the end, before any event.
        let server = try await ScriptedServer.start { _, request in
            requests.append(request)
            return Array((Self.head + ": nothing more\n\n").utf8)
        }
        let connection = try Self.connection(to: server) { $0.reconnectPolicy = ReconnectPolicy.fixed(.milliseconds(10)).limited(to: 3) }
        let job = try await connection.subscribe(Self.job("gone"))
        await connection.start()
        try await untilPublished(by: connection, "the stream to give up") {
            if case .failed = await connection.status(ofSubscription: job.id) { return true }
            return false
        }
        // The first open and three retries.
        #expect(requests.count == 4)
        // The shared stream is fine: the connection's state says so.
        #expect(await connection.state == .connected)
        await connection.disconnect()
        await server.stop()
    }

    /// Issue 59: a job stream answering `200`, one `progress`, then the end, over and over, was
    /// reopened for ever (57 requests in 60 s): an event made each short session count as healthy.
    /// Events do not; a stream that keeps ending without its final event gives up by the policy.
    @Test func aStreamThatKeepsEndingAfterOneEventGivesUpByThePolicy() async throws {
        let requests = RecordedRequests()
        let server = try await ScriptedServer.start { _, request in
            requests.append(request)
            return Array((Self.head + "id: \(requests.count)\nevent: progress\ndata: {}\n\n").utf8)
        }
        let connection = try Self.connection(to: server) { $0.reconnectPolicy = ReconnectPolicy.fixed(.milliseconds(10)).limited(to: 3) }
        let job = try await connection.subscribe(Self.job("busy"))
        let received = Collected { job.events }
        await connection.start()
        try await untilPublished(by: connection, "the stream to give up") {
            if case .failed = await connection.status(ofSubscription: job.id) { return true }
            return false
        }
        // The first open and three retries, each of which delivered its event.
        #expect(requests.count == 4)
        try await received.wait("the four events") { $0.count == 4 }
        await connection.disconnect()
        received.cancel()
        await server.stop()
    }

    /// Issue 59: one `progress`, then an in-band `AUTH_FAILURE`, on every open, got 60 requests a
    /// minute and never failed. The retry with fresh credentials is spent by the first refusal;
    /// the event before the second does not restore it.
    @Test func anEventBeforeAnInBandAuthorizationFailureDoesNotRestoreTheRetry() async throws {
        let requests = RecordedRequests()
        let server = try await ScriptedServer.start { _, request in
            requests.append(request)
            let body = "id: \(requests.count)\nevent: progress\ndata: {}\n\n"
                + "event: error\ndata: {\"code\":\"AUTH_FAILURE\"}\n\n"
            return Array((Self.head + body).utf8)
        }
        let connection = try Self.connection(to: server)
        let job = try await connection.subscribe(ChannelRequest(
            channel: "/api/v2/enrichments/a/stream", isOwnStream: true, finalEventNames: ["completed"], errorEventNames: ["error"]))
        await connection.start()
        try await untilPublished(by: connection, "the stream to fail") {
            if case .failed = await connection.status(ofSubscription: job.id) { return true }
            return false
        }
        #expect(requests.count == 2)
        await connection.disconnect()
        await server.stop()
    }

    @Test func aQueryTokenGoesInTheQueryAndNeverIntoLogs() async throws {
        let requests = RecordedRequests()
        let server = try await ScriptedServer.start { _, request in
            requests.append(request)
            // Refused: the failure is logged, with the request's URL in reach of the log.
            return Array("HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n".utf8)
        }
        let lines = NIOLockedValueBox<[String]>([])
        let logger = Logger(label: "capture") { _ in LineCapture(lines: lines) }
        let secret = "query-secret-token+/="
        let connection = try Self.connection(to: server, logger: logger) { $0.authorization = .queryToken { secret } }
        let job = try await connection.subscribe(Self.job("q"))
        await connection.start()
        try await requests.untilCount(2, "two attempts")
        await connection.disconnect()
        // Percent-encoded exactly (`+` is not a space).
        #expect(Self.target(of: requests.all[0]) == "/api/v2/enrichments/q/stream?token=query-secret-token%2B/%3D")
        #expect(!requests.all[0].contains("Authorization"))
        let logged = lines.withLockedValue { $0 }
        #expect(!logged.isEmpty)
        #expect(!logged.contains { $0.contains("query-secret-token") })
        withExtendedLifetime(job) {}
        await server.stop()
    }

    @Test func aParameterCannotMoveTheRequestElsewhere() async throws {
        let requests = RecordedRequests()
        let server = try await ScriptedServer.start { _, request in
            requests.append(request)
            return Array((Self.head + "event: completed\ndata: {}\n\n").utf8)
        }
        let connection = try Self.connection(to: server)
        await #expect(throws: SSEConnectionError.dotSegment("/api/v2/enrichments/../stream")) {
            try await connection.subscribe(ChannelRequest(channel: "/api/v2/enrichments/../stream", isOwnStream: true))
        }
        let job = try await connection.subscribe(ChannelRequest(channel: "/api/v2/enrichments/a?admin=1%x/stream", isOwnStream: true, finalEventNames: ["completed"]))
        await connection.start()
        _ = try await awaiting("the stream to finish") { await job.events.reduce(0) { n, _ in n + 1 } }
        #expect(Self.target(of: requests.all[0]) == "/api/v2/enrichments/a%3Fadmin=1%25x/stream")
        await connection.disconnect()
        await server.stop()
    }

    @Test func aQueryTokenCannotBeSentOverAWebSocketOrAPublish() async throws {
        let endpoint = try ChannelEndpoint(http: "http://127.0.0.1:1/event")
        let authorization = ChannelAuthorization.queryToken { "t" }
        await #expect(throws: AuthorizationPlacementError.queryOnly(parameter: "token")) {
            try await authorization.headers(for: AuthorizationRequest(operation: .connect, endpoint: endpoint))
        }
    }
}
