import AppSyncRuntime
import ChannelRuntime
import ChannelTransports
import Foundation
import Logging
import NIOChannelTransports
import NIOConcurrencyHelpers
import SSERuntime
import Testing
import ChannelRuntimeTesting

/// The SSE connection against scripted loopback servers that misbehave: oversized and garbled
/// events, informational responses, redirects, servers that never answer.
/// Part of the transport conformance suite: each case runs against every adapter in `Adapters.eventStream`.
@Suite("SSE connection against hostile servers")
struct SSEHostileServerTests {
    static let adapters = Adapters.eventStream

    static func connection(
        to server: ScriptedServer, transport: any EventStreamTransport = NIOEventStreamTransport(),
        _ configure: (inout SSEConfiguration) -> Void = { _ in }
    ) throws -> SSEConnection {
        let endpoint = try ChannelEndpoint(http: "http://127.0.0.1:\(server.port)/event")
        var configuration = SSEConfiguration(endpoint: endpoint, authorization: .apiKey("key"))
        configuration.reconnectPolicy = .fixed(.milliseconds(50))
        configuration.connectTimeout = boundForLoadedMachines
        configure(&configuration)
        return SSEConnection(configuration: configuration, transport: transport, logger: SSEConnectionTests.quiet)
    }

    static let eventStreamHead = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n"

    @Test(arguments: adapters)
    func oversizedAndGarbledEventsAreDroppedAndTheStreamGoesOn(_ adapter: Adapter<any EventStreamTransport>) async throws {
        let body = ":heartbeat\n\n"
            + "event: /app/a\ndata: \(String(repeating: "x", count: 5000))\n\n"
            + "\u{1}garbage without a colon\n\nevent\n\nretry: soon\n\n"
            + "id: 7\nevent: /app/a\ndata: {\"n\":1}\n\n"
        let server = try await ScriptedServer.start(closing: false) { _ in Array((Self.eventStreamHead + body).utf8) }
        let connection = try Self.connection(to: server, transport: adapter.make()) { $0.maximumEventBytes = 1024 }
        let subscription = try await connection.subscribe(to: "/app/a")
        let received = Collected { subscription.events }
        await connection.start()
        try await received.wait("the valid event") { $0.count == 1 }
        #expect(received.elements.map(\.text) == ["{\"n\":1}"])
        #expect(connection.metrics.snapshot().malformedFrames == 1)
        #expect(connection.lastEventID == "7")
        await connection.disconnect()
        received.cancel()
        await server.stop()
    }

    /// Issue 59: a hub alternating `401` and `200` with one event, then the end, never failed:
    /// the event made the short session count as healthy, which restored the one retry with fresh
    /// credentials before the next `401`. Now the second `401` in a row of short sessions fails.
    @Test func aHubAlternating401AndOneEventFailsUnauthorized() async throws {
        let answers = NIOLockedValueBox(0)
        let server = try await ScriptedServer.start { _ in
            let answer = answers.withLockedValue { $0 += 1; return $0 }
            let reply = answer.isMultiple(of: 2)
                ? Self.eventStreamHead + "id: \(answer)\nevent: /app/a\ndata: {}\n\n"
                : "HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n"
            return Array(reply.utf8)
        }
        let connection = try Self.connection(to: server)
        let subscription = try await connection.subscribe(to: "/app/a")
        let received = Collected { subscription.events }
        await connection.start()
        try await untilPublished(by: connection, "the connection to fail") {
            if case .failed(.unauthorized) = await connection.state { true } else { false }
        }
        // 401, the retry (200 and its event), 401 again: failed.
        #expect(answers.withLockedValue { $0 } == 3)
        #expect(received.count == 1)
        await connection.disconnect()
        received.cancel()
        await server.stop()
    }

    @Test(arguments: adapters)
    func informationalResponsesBeforeTheAnswerDoNotTrap(_ adapter: Adapter<any EventStreamTransport>) async throws {
        let reply = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\n" + Self.eventStreamHead + "event: /app/a\ndata: {}\n\n"
        let server = try await ScriptedServer.start(closing: false) { _ in Array(reply.utf8) }
        let connection = try Self.connection(to: server, transport: adapter.make())
        let subscription = try await connection.subscribe(to: "/app/a")
        let received = Collected { subscription.events }
        await connection.start()
        try await received.wait("the event after the informational heads") { $0.count == 1 }
        await connection.disconnect()
        received.cancel()
        await server.stop()
    }

    @Test(arguments: adapters)
    func aRedirectIsNotFollowedAndEndsTheConnection(_ adapter: Adapter<any EventStreamTransport>) async throws {
        let server = try await ScriptedServer.start { _ in
            Array("HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:9/steal\r\nContent-Length: 0\r\n\r\n".utf8)
        }
        let connection = try Self.connection(to: server, transport: adapter.make())
        let subscription = try await connection.subscribe(to: "/app/a")
        await connection.start()
        try await untilPublished(by: connection, "the refusal") {
            if case .failed(.rejected(let errors)) = await connection.state { return errors.first?.code == "302" }
            return false
        }
        #expect(server.openedConnections.value == 1)
        withExtendedLifetime(subscription) {}
        await server.stop()
    }

    @Test(arguments: adapters)
    func aServerThatNeverAnswersIsCutOffAndLeavesNoSocketOpen(_ adapter: Adapter<any EventStreamTransport>) async throws {
        let server = try await ScriptedServer.start(closing: false) { _ in [] }
        let connection = try Self.connection(to: server, transport: adapter.make()) { $0.connectTimeout = .milliseconds(200) }
        let subscription = try await connection.subscribe(to: "/app/a")
        await connection.start()
        try await server.openedConnections.wait("three timed-out attempts") { $0 >= 3 }
        await connection.disconnect()
        try await server.open.wait("every socket closed") { $0 == 0 }
        withExtendedLifetime(subscription) {}
        await server.stop()
    }

    /// A server may answer and close before it has read all of the request. The client's request
    /// write then fails, but the answer is on the wire and must be read: under load the client
    /// lost this race between its head and end writes, never saw the stream's event, and reopened
    /// without `Last-Event-ID`. (The race needs a slowed client; unloaded, this passes either way.)
    @Test(arguments: adapters)
    func anAnswerSentBeforeTheRequestWasReadIsStillRead(_ adapter: Adapter<any EventStreamTransport>) async throws {
        let reply = Self.eventStreamHead + "id: 9\nevent: /app/a\ndata: {}\n\n"
        let server = try await ScriptedServer.start(answeringEarly: true) { _, _ in Array(reply.utf8) }
        let url = URL(string: "http://127.0.0.1:\(server.port)/.well-known/mercure?topic=/app/a")!
        for attempt in 1...25 {
            let response = try await awaiting("the response") { try await adapter.make().open(url, headers: []) }
            #expect(response.status == 200, "attempt \(attempt)")
            let body = try await awaiting("the body to end") { await response.body.reduce(into: []) { $0 += $1 } }
            #expect(String(decoding: body, as: UTF8.self) == "id: 9\nevent: /app/a\ndata: {}\n\n", "attempt \(attempt)")
        }
        await server.stop()
    }

    @Test(arguments: adapters)
    func aStreamThatEndsIsReopenedWithTheLastEventID(_ adapter: Adapter<any EventStreamTransport>) async throws {
        let requests = RecordedRequests()
        let server = try await ScriptedServer.start { _, request in
            requests.append(request)
            return Array((Self.eventStreamHead + "retry: 10\nid: \(requests.count)\nevent: /app/a\ndata: {}\n\n").utf8)
        }
        let connection = try Self.connection(to: server, transport: adapter.make())
        let subscription = try await connection.subscribe(to: "/app/a")
        await connection.start()
        try await requests.untilCount(3, "three streams")
        await connection.disconnect()
        let second = requests.all[1].lowercased()
        #expect(second.contains("last-event-id: 1\r\n"))
        #expect(second.contains("x-api-key: key\r\n"))
        #expect(requests.all[0].hasPrefix("GET /.well-known/mercure?topic=/app/a HTTP/1.1\r\n"))
        withExtendedLifetime(subscription) {}
        await server.stop()
    }
}

/// Request heads a scripted server saw, in order.
final class RecordedRequests: Sendable {
    private let recorded = Watched<[String]>([])
    func append(_ request: String) { recorded.update { $0.append(request) } }
    var all: [String] { recorded.value }
    var count: Int { all.count }

    /// Returns once `count` requests have arrived (an await: each request resumes the wait).
    func untilCount(_ count: Int, _ what: String) async throws {
        try await recorded.wait(what) { $0.count >= count }
    }
}
