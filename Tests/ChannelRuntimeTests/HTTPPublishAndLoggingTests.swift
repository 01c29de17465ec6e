import AppSyncRuntime
import ChannelRuntime
import ChannelRuntimeTesting
import ChannelTransports
import Foundation
import Logging
import MetricsTestKit
import SSERuntime
import Testing

private final class RecordingHTTPClient: HTTPPostClient, Sendable {
    let requests = LockedBox<[(URL, [String: String], String)]>([])
    let status: Int
    let response: String

    init(status: Int, response: String) {
        self.status = status
        self.response = response
    }

    func post(_ url: URL, headers: [String: String], body: Data) async throws -> (status: Int, body: Data) {
        requests.mutate { $0.append((url, headers, String(decoding: body, as: UTF8.self))) }
        return (status, Data(response.utf8))
    }
}

@Suite("HTTP publish")
struct HTTPPublishTests {
    @Test func postsTheDocumentedRequestAndReadsPerEventResults() async throws {
        let client = RecordingHTTPClient(status: 200, response: """
            {"failed":[{"identifier":"b","index":1,"code":"EventTooLargeException","message":"Transformed event is larger than 240KB"}],
             "successful":[{"identifier":"a","index":0}]}
            """)
        let publisher = AppSyncHTTPPublisher(endpoint: Harness.endpoint, authorization: .apiKey("da2-key"), client: client)
        let result = try await publisher.publish([#"{"event_1":"data_1"}"#, #"{"event_2":"data_2"}"#], to: "default/channel")
        #expect(result.successful == [.init(identifier: "a", index: 0)])
        #expect(result.failed == [.init(identifier: "b", index: 1, code: "EventTooLargeException", message: "Transformed event is larger than 240KB")])
        let (url, headers, body) = try #require(client.requests.value.first)
        #expect(url.absoluteString == "https://abc123.appsync-api.eu-west-1.amazonaws.com/event")
        #expect(headers == ["x-api-key": "da2-key", "content-type": "application/json"])
        #expect(body == #"{"channel":"default/channel","events":["{\"event_1\":\"data_1\"}","{\"event_2\":\"data_2\"}"]}"#)
    }

    @Test func aSuccessfulPublishsDurationIsRecorded() async throws {
        let factory = TestMetrics()
        let client = RecordingHTTPClient(status: 200, response: #"{"failed":[],"successful":[{"identifier":"a","index":0}]}"#)
        let publisher = AppSyncHTTPPublisher(
            endpoint: Harness.endpoint, authorization: .apiKey("da2-key"), client: client, metrics: RuntimeMetrics(metricsFactory: factory))
        _ = try await publisher.publish(["{}"], to: "default/channel")
        #expect(try factory.expectTimer("channelgen_publish_duration").values.count == 1)
    }

    @Test func errorResponsesBecomeServiceErrors() async throws {
        let client = RecordingHTTPClient(status: 401, response: #"{"errors":[{"errorType":"UnauthorizedException","message":"You are not authorized to make this call."}]}"#)
        let publisher = AppSyncHTTPPublisher(endpoint: Harness.endpoint, authorization: .apiKey("bad"), client: client)
        await #expect(throws: AppSyncError.service([ServiceError(errorType: "UnauthorizedException", message: "You are not authorized to make this call.", code: "401")])) {
            try await publisher.publish(["{}"], to: "default/channel")
        }
        await #expect(throws: AppSyncError.invalidPublish("a publish carries 1 to 5 events, not 0")) {
            try await publisher.publish([], to: "default/channel")
        }
    }
}

@Suite("Secrets stay out of logs")
struct LoggingTests {
    @Test func tokensNeverReachTheLogs() async throws {
        let secret = "eyJSECRET-TOKEN-VALUE"
        let lines = LockedBox<[String]>([])
        let clock = ManualClock()
        let transport = InMemoryTransport()
        var configuration = AppSyncConfiguration(endpoint: Harness.endpoint, authorization: .token { secret })
        configuration.reconnectPolicy = .fixed(.seconds(1))
        let logger = Logger(label: "capture") { _ in CapturingLogHandler(lines: lines) }
        let connection = AppSyncConnection(configuration: configuration, transport: transport, clock: clock, logger: logger)
        let hub = ChannelEventHub(connection: connection, parameters: ["userId": try ChannelSegment("u1")], logger: logger)
        let consumer = TypedCollector(await hub.events(PingSubscription.self))

        await connection.start()
        let server = try await transport.nextConnection()
        try await server.acceptConnection()
        let subscribe = try #require(await server.nextMessage())
        let id = try #require(subscribe["id"] as? String)
        server.push(["type": "subscribe_error", "id": id, "errors": [["errorType": "UnauthorizedException", "message": "Token expired"]]])
        server.push(["type": "data", "id": id, "event": "not json"])
        server.push("garbage")
        server.push(#"{"type":"connection_error","errors":[{"errorType":"InternalFailure","message":"x"}]}"#)
        try await untilPublished(by: connection, "a reconnect") { await connection.state == .reconnecting(after: .seconds(1), because: .refused([ServiceError(errorType: "InternalFailure", message: "x")])) }
        consumer.cancel()
        await connection.disconnect()

        let captured = lines.value
        #expect(captured.count > 5)
        #expect(!captured.contains { $0.contains(secret) })
        #expect(!captured.contains { $0.contains("header-") })
    }
}

@Suite("What the logs say")
struct LogWordingTests {
    /// Issue 62: a job's stream that failed for good was logged "connection failed for good",
    /// while the connection stayed up and the next job worked. It is logged as that stream's.
    @Test func aJobsFailureIsLoggedAsThatStreamsNotTheConnections() async throws {
        let lines = LockedBox<[String]>([])
        let logger = Logger(label: "capture") { _ in CapturingLogHandler(lines: lines) }
        let streams = InMemoryEventStreamTransport()
        let configuration = SSEConfiguration(endpoint: try ChannelEndpoint(http: "https://hub.example.com/event"), authorization: .apiKey("k"))
        let connection = SSEConnection(configuration: configuration, transport: streams, clock: ManualClock(), logger: logger)
        await connection.start()
        let job = try await connection.subscribe(ChannelRequest(channel: "/jobs/j1", isOwnStream: true, errorEventNames: ["error"]))
        let statuses = await connection.statusUpdates(ofSubscription: job.id)
        let stream = try await streams.nextStream()
        stream.writer.yield(Array("event: error\ndata: {\"code\":\"NOT_FOUND\"}\n\n".utf8))
        for await status in statuses { if case .failed = status { break } }
        // The stream's driver finished that step (it is an actor) before it stops.
        await connection.disconnect()
        #expect(lines.value.contains { $0.hasPrefix("error the stream failed for good; the connection carries on") && $0.contains("/jobs/j1") }, "\(lines.value)")
        #expect(!lines.value.contains { $0.contains("connection failed for good") })
    }
}

@Suite("HTTP publish answers")
struct HTTPPublishAnswerTests {
    /// An empty or unreadable success answer used to count as a publish with no failures.
    @Test(arguments: ["", #"{"successful":[{"identifier":"a","index":1e19}],"failed":[]}"#, "<html>"])
    func anUnreadableSuccessAnswerIsAnError(_ body: String) async throws {
        let client = RecordingHTTPClient(status: 200, response: body)
        let publisher = AppSyncHTTPPublisher(endpoint: Harness.endpoint, authorization: .apiKey("da2-key"), client: client)
        await #expect(throws: AppSyncError.service([ServiceError(errorType: "InvalidResponse", message: "the publish response could not be read", code: "200")])) {
            try await publisher.publish(["{}"], to: "default/channel")
        }
    }
}

/// The logging boundary (`DiagnosticLog`): one redaction for every scheme, and repeated lines
/// summarised instead of written at the rate a server sends them.
@Suite("Diagnostic log")
struct DiagnosticLogTests {
    static func log(lines: LockedBox<[String]>, clock: ManualClock = ManualClock(), burst: Int = 3) -> DiagnosticLog {
        DiagnosticLog(logger: Logger(label: "capture") { _ in CapturingLogHandler(lines: lines) }, clock: RuntimeClock(clock), interval: .seconds(10), burst: burst)
    }

    static let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1MSJ9.c2lnbmF0dXJlLXNlY3JldA"

    /// API key, JWT and custom (SigV4) headers, and the `header-…` subprotocol that carries any of
    /// them: none of it reaches a line, whether the server echoed it in an error or not.
    @Test(arguments: [
        ["x-api-key": "da2-abcdefghijklmnopqrstuvwxyz", "host": "api.example.com"],
        ["Authorization": jwt, "host": "api.example.com"],
        ["Authorization": "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261125/eu-west-1/appsync/aws4_request, SignedHeaders=host, Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7",
         "x-amz-security-token": "FwoGZXIvYXdzEXAMPLESESSIONTOKEN", "x-amz-date": "20261125T060000Z", "host": "api.example.com"],
    ])
    func credentialsOfEveryAuthorizationSchemeAreRedacted(_ headers: [String: String]) throws {
        let lines = LockedBox<[String]>([])
        let log = Self.log(lines: lines, burst: 10)  // every line written: this test is about redaction
        let subprotocol = ChannelAuthorization.headerSubprotocol(headers)
        log.setSecrets(ChannelAuthorization.secrets(in: headers))
        for (_, value) in headers {
            log.error("connect failed", metadata: ["error": "the server chose \(subprotocol) and said \(value)"])
        }
        let captured = lines.value
        #expect(captured.count == headers.count)
        for (name, value) in headers where !["host", "x-amz-date"].contains(name) {
            #expect(!captured.contains { $0.contains(value) }, "\(name)")
        }
        #expect(!captured.contains { $0.contains(subprotocol) })
        #expect(captured.allSatisfy { $0.contains("header-<redacted>") })
        #expect(captured.contains { $0.contains("api.example.com") })  // not a credential: kept
    }

    /// With no secrets known (another component, or before the first connect), the shapes of a JWT
    /// and of the auth subprotocol are still taken out; ordinary words are not.
    @Test func tokenShapesAreRedactedWithoutKnowingTheSecrets() {
        #expect(Redaction.redacted("chose: aws-appsync-event-ws, header-eyJob3N0IjoiYSJ9 then") == "chose: aws-appsync-event-ws, header-<redacted> then")
        #expect(Redaction.redacted("Bearer \(Self.jwt).") == "Bearer <redacted>.")
        #expect(Redaction.redacted("my-header-x eyJ-not-a-jwt headers-") == "my-header-x eyJ-not-a-jwt headers-")
    }

    /// Issue 44: server text made error lines of 85.5 MB, forged whole lines with newlines, and
    /// passed terminal escape sequences through; debug lines had no limit at all.
    @Test func serverTextIsOneBoundedLineWithControlCharactersEscaped() {
        let lines = LockedBox<[String]>([])
        let log = Self.log(lines: lines, burst: 10)
        let forged = "ok\n2026-11-28T00:00:00+0000 error [ChannelRuntime] forged line\r\u{1b}[2J\u{7}\u{85}\u{2028}end"
        let huge = String(repeating: "x", count: 10_000_000) + "\n"
        log.error("connection_error", metadata: ["errors": "\(forged)"])
        log.debug("dropping a message of unknown type", metadata: ["type": "\(huge)"])
        log.info("the connection ended \u{1b}]0;title\u{7}", metadata: ["reason": "\(forged)"])
        let captured = lines.value
        #expect(captured.count == 3)
        for line in captured {
            #expect(!line.unicodeScalars.contains { $0.value < 0x20 || (0x7f...0x9f).contains($0.value) || $0 == "\u{2028}" })
            #expect(line.utf8.count < 2 * LogText.limit)
        }
        #expect(captured[0].contains(#"ok\n2026-11-28T00:00:00+0000 error [ChannelRuntime] forged line\r\u{1b}[2J\u{7}\u{85}\u{2028}end"#))
        #expect(captured[1].contains("…[cut: 10000001 bytes in all]"))
        #expect(captured[2].contains(#"the connection ended \u{1b}]0;title\u{7}"#))
        #expect(LogText.safe("plain text stays as it is") == "plain text stays as it is")
        #expect(LogText.safe(String(repeating: "é", count: 600)).hasSuffix("é…[cut: 1200 bytes in all]"))  // cut between scalars
    }

    /// Debug lines are summarised like the others.
    @Test func repeatedDebugLinesAreSummarisedToo() {
        let lines = LockedBox<[String]>([])
        let log = Self.log(lines: lines)
        for _ in 0..<1000 { log.debug("dropping data for an unknown subscription") }
        #expect(lines.value.count == 3)
    }

    /// A storm of one error (216k lines a minute before) is written `burst` times per interval; the
    /// first line after the interval says how many were left out.
    @Test func repeatedLinesAreSummarisedPerInterval() {
        let lines = LockedBox<[String]>([])
        let clock = ManualClock()
        let log = Self.log(lines: lines, clock: clock)
        for index in 0..<1000 { log.error("subscribe rejected", metadata: ["n": "\(index)"]) }
        log.warning("another message")
        #expect(lines.value.count == 4)
        clock.advance(by: .seconds(10))
        log.error("subscribe rejected", metadata: ["n": "last"])
        #expect(lines.value.count == 5)
        #expect(lines.value.last?.contains("997 more in the previous 10.0 seconds") == true)
        #expect(lines.value.last?.contains("last") == true)
    }
}
