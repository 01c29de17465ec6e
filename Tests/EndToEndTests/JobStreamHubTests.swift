import ChannelRuntime
import ChannelRuntimeTesting
import EnrichmentJobs
import Foundation
import NIOChannelTransports
import SSERuntime
import Testing

/// The generated job-stream client (`spec/enrichment-jobs.asyncapi.yaml`) over SSE own streams:
/// typed events chosen by their `event:` name, a stream that finishes after its final event, and
/// names no message declares counted and shown, never silently dropped.
@Suite("Job streams through the generated notifier")
struct JobStreamHubTests {
    static let head = SSEHostileServerTests.eventStreamHead

    static func notifier(for server: ScriptedServer) throws -> (EnrichmentNotifier, ChannelEventHub, SSEConnection) {
        let connection = try SSEOwnStreamTests.connection(to: server)
        let hub = ChannelEventHub(connection: connection, logger: SSEConnectionTests.quiet)
        return (EnrichmentNotifier(source: hub), hub, connection)
    }

    /// Issue 59: `event: completed` whose data does not decode ended the stream with no word:
    /// `updates(for:)` got neither the event nor a failure, and job-demo waited out its time-out.
    /// Now the update consumer is told `.failed`, naming the event, and its loop ends.
    @Test func anUndecodableFinalEventFailsTheStreamVisiblyAndEndsTheLoop() async throws {
        let server = try await ScriptedServer.start(closing: false) { _, _ in
            let body = "event: progress\ndata: {\"jobId\":\"j1\",\"processed\":1,\"total\":2}\n\n"
                + "event: completed\ndata: {\"jobId\":42}\n\n"
            return Array((Self.head + body).utf8)
        }
        let (_, hub, connection) = try Self.notifier(for: server)
        await connection.start()
        let job = try EnrichmentSubscription(jobId: "j1")
        let updates = try await awaiting("the job's stream to end") {
            var seen: [ChannelUpdate<EnrichmentMessage>] = []
            for await update in await hub.updates(for: job) { seen.append(update) }
            return seen
        }
        let failure = ServiceError(errorType: "UndecodableFinalEvent", message: "the final event 'completed' did not decode as EnrichmentMessage")
        #expect(updates.last == .status(.failed([failure])), "\(updates)")
        #expect(updates.contains(.event(.progress(EnrichmentProgress(jobId: "j1", processed: 1, total: 2)))))
        await connection.disconnect()
        await server.stop()
    }

    /// Issue 62: a job the service does not know (an in-band `NOT_FOUND`) failed its status, but
    /// the documented `for await event in hub.events(for:)` loop never ended. Now it ends, and
    /// `updates(for:)` ends on `.failed` saying why; the connection carries on.
    @Test func aFailedJobEndsItsLoopAndSaysWhy() async throws {
        let server = try await ScriptedServer.start { _, _ in
            Array((Self.head + "event: error\ndata: {\"code\":\"NOT_FOUND\",\"message\":\"no such job\"}\n\n").utf8)
        }
        let (_, hub, connection) = try Self.notifier(for: server)
        await connection.start()
        let job = try EnrichmentSubscription(jobId: "gone")
        let updates = await hub.updates(for: job)
        let events = await hub.events(for: job)
        let statuses = await hub.statusUpdates(forInstance: job)
        let received = try await awaiting("the job's loop to end") {
            var received: [EnrichmentMessage] = []
            for await event in events { received.append(event) }
            return received
        }
        #expect(received == [.error(StreamError(code: "NOT_FOUND", message: "no such job"))])
        let seen = try await awaiting("the job's updates to end") {
            var seen: [ChannelUpdate<EnrichmentMessage>] = []
            for await update in updates { seen.append(update) }
            return seen
        }
        let last = try #require(seen.last)
        guard case .status(.failed(let errors)) = last else { Issue.record("ended on \(last), not .failed"); return }
        #expect(errors.first?.code == "NOT_FOUND")
        // The job's own status stream says the same.
        let failed = try await awaiting("the job's status to fail") { () -> SubscriptionStatus? in
            for await status in statuses { if case .failed = status { return status } }
            return nil
        }
        #expect(failed == .failed(errors))
        #expect(await connection.state != .failed(.gaveUp))
        await connection.disconnect()
        await server.stop()
    }

    /// Issue 62: a job's status was read by a task of its own beside the task decoding its events,
    /// so a failure could overtake the events before it: the loop ended with some of them never
    /// delivered, and no word of it. The status now travels in the stream, after those events.
    @Test func aFailureComesAfterEveryEventBeforeIt() async throws {
        let count = 900  // within the consumer's buffer (1 000): none is dropped for a slow reader
        let progress = (1...count).map { "event: progress\ndata: {\"jobId\":\"j1\",\"processed\":\($0),\"total\":\(count)}\n\n" }.joined()
        let server = try await ScriptedServer.start { _, _ in
            Array((Self.head + progress + "event: error\ndata: {\"code\":\"NOT_FOUND\",\"message\":\"gone\"}\n\n").utf8)
        }
        let (_, hub, connection) = try Self.notifier(for: server)
        await connection.start()
        let job = try EnrichmentSubscription(jobId: "j1")
        let events = await hub.events(for: job)
        let received = try await awaiting("the job's loop to end") {
            var received: [EnrichmentMessage] = []
            for await event in events { received.append(event) }
            return received
        }
        #expect(received.count == count + 1)
        #expect(received.last == .error(StreamError(code: "NOT_FOUND", message: "gone")))
        await connection.disconnect()
        await server.stop()
    }

    @Test func namedEventsArriveTypedAndTheFinalOneEndsTheLoop() async throws {
        let requests = RecordedRequests()
        let server = try await ScriptedServer.start(closing: false) { _, request in
            requests.append(request)
            let body = """
                event: progress
                data: {"jobId":"j1","processed":1,"total":3}

                data: {"jobId":"j1","processed":2,"total":3,"message":"no event field: the payload decides"}

                event: progress-v2
                data: {"jobId":"j1","processed":3,"total":3}

                event: completed
                data: {"jobId":"j1","resultsUrl":"https://example.com/r/j1"}

                event: progress
                data: {"jobId":"j1","processed":9,"total":9}


                """
            return Array((Self.head + body).utf8)
        }
        let (notifier, hub, connection) = try Self.notifier(for: server)
        await connection.start()
        let job = try EnrichmentSubscription(jobId: "j1")
        // The loop ends by itself after `completed`.
        let received = try await awaiting("the job's stream to finish") {
            var received: [EnrichmentMessage] = []
            for await event in await notifier.values(for: job) { received.append(event) }
            return received
        }
        #expect(received.count == 4)
        guard received.count == 4 else { return }
        #expect(received[0] == .progress(EnrichmentProgress(jobId: "j1", processed: 1, total: 3)))
        #expect(received[1] == .progress(EnrichmentProgress(jobId: "j1", processed: 2, total: 3, message: "no event field: the payload decides")))
        guard case .unknown(let undeclared) = received[2] else {
            Issue.record("an undeclared name is not .unknown: \(received[2])")
            return
        }
        #expect(undeclared["processed"] == .number(3))
        #expect(received[3] == .completed(EnrichmentCompleted(jobId: "j1", resultsUrl: "https://example.com/r/j1")))
        #expect(requests.all.map(SSEOwnStreamTests.target) == ["/api/v2/enrichments/j1/stream"])
        // Counted, and gone with the stream.
        #expect(connection.metrics.snapshot().channels["/api/v2/enrichments/j1/stream"]?.undeclaredEventTypes == 1)
        try await waitFor("the hub to let the job go") { await hub.status(ofInstance: job) == nil }
        await connection.disconnect()
        await server.stop()
    }

    @Test func anUndeclaredNameShowsInTheStatus() async throws {
        let server = try await ScriptedServer.start(closing: false) { _, _ in
            Array((Self.head + "event: progress-v2\ndata: {\"jobId\":\"j2\",\"processed\":1,\"total\":2}\n\n").utf8)
        }
        let (notifier, hub, connection) = try Self.notifier(for: server)
        await connection.start()
        let job = try EnrichmentSubscription(jobId: "j2")
        let events = Collected { await notifier.values(for: job) }
        try await waitFor("the degraded status") {
            if case .degraded(let problems) = await hub.status(ofInstance: job) { return problems.undeclaredEventTypes == ["progress-v2"] }
            return false
        }
        #expect(events.count == 1)
        events.cancel()
        await connection.disconnect()
        await server.stop()
    }

    @Test func severalJobsRunAtOnceOnOneConnection() async throws {
        let server = try await ScriptedServer.start(closing: false) { _, request in
            let job = SSEOwnStreamTests.target(of: request).split(separator: "/")[3]
            let body = (1...3).map { "event: progress\ndata: {\"jobId\":\"\(job)\",\"processed\":\($0),\"total\":3}\n\n" }.joined()
                + "event: failed\ndata: {\"jobId\":\"\(job)\",\"reason\":\"no ISBN\"}\n\n"
            return Array((Self.head + body).utf8)
        }
        let (notifier, _, connection) = try Self.notifier(for: server)
        await connection.start()
        let ids = ["a", "b", "c", "d"]
        let results = try await awaiting("every job to end") {
            try await withThrowingTaskGroup(of: (String, [EnrichmentMessage]).self) { group in
                for id in ids {
                    let job = try EnrichmentSubscription(jobId: id)
                    group.addTask { (id, await notifier.values(for: job).reduce(into: []) { $0.append($1) }) }
                }
                return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
            }
        }
        for id in ids {
            #expect(results[id]?.count == 4, "job \(id)")
            #expect(results[id]?.last == .failed(EnrichmentFailed(jobId: id, reason: "no ISBN")), "job \(id)")
        }
        #expect(await connection.state == .connected)
        await connection.disconnect()
        await server.stop()
    }

    @Test func anAuthorizationErrorAsksForCredentialsOnceThenFailsTyped() async throws {
        let requests = RecordedRequests()
        let server = try await ScriptedServer.start { _, request in
            requests.append(request)
            let progress = requests.count == 1 ? "id: 1\nevent: progress\ndata: {\"jobId\":\"j\",\"processed\":1,\"total\":2}\n\n" : ""
            return Array((Self.head + progress + "event: error\ndata: {\"code\":\"AUTH_FAILURE\",\"message\":\"token expired\"}\n\n").utf8)
        }
        let tokens = TokenCounter()
        let connection = try SSEOwnStreamTests.connection(to: server) { $0.authorization = .bearerToken { await tokens.next() } }
        let hub = ChannelEventHub(connection: connection, logger: SSEConnectionTests.quiet)
        await connection.start()
        let job = try EnrichmentSubscription(jobId: "j")
        let stream = await hub.updates(for: job)
        let updates = Collected {
            AsyncStream<ChannelUpdate<EnrichmentMessage>> { continuation in
                Task {
                    for await update in stream { continuation.yield(update) }
                    continuation.finish()
                }
            }
        }
        try await updates.wait("the stream to fail") {
            $0.contains { if case .status(.failed) = $0 { true } else { false } }
        }
        // The first open's error asked for a fresh token; the second one's ended the stream.
        #expect(requests.count == 2)
        #expect(requests.all[0].contains("Authorization: Bearer token-1\r\n"))
        #expect(requests.all[1].contains("Authorization: Bearer token-2\r\n"))
        let events: [EnrichmentMessage] = updates.elements.compactMap { if case .event(let event) = $0 { event } else { nil } }
        #expect(events == [
            .progress(EnrichmentProgress(jobId: "j", processed: 1, total: 2)),
            .error(StreamError(code: "AUTH_FAILURE", message: "token expired")),
            .error(StreamError(code: "AUTH_FAILURE", message: "token expired")),
        ])
        let failed = updates.elements.compactMap { if case .status(.failed(let errors)) = $0 { errors } else { nil } }.first
        #expect(failed?.first?.code == "AUTH_FAILURE")
        updates.cancel()
        await connection.disconnect()
        await server.stop()
    }

    @Test func otherErrorsBackOffAsFailedOpensUntilThePolicyGivesUp() async throws {
        let requests = RecordedRequests()
        let server = try await ScriptedServer.start { _, request in
            requests.append(request)
            return Array((Self.head + "event: error\ndata: {\"code\":\"SLOW_DOWN\"}\n\n").utf8)
        }
        let connection = try SSEOwnStreamTests.connection(to: server) { $0.reconnectPolicy = ReconnectPolicy.fixed(.milliseconds(10)).limited(to: 2) }
        let hub = ChannelEventHub(connection: connection, logger: SSEConnectionTests.quiet)
        await connection.start()
        let job = try EnrichmentSubscription(jobId: "j")
        let updates = await hub.updates(for: job)
        // The policy gives up: the job failed, and its loop ends.
        let seen = try await awaiting("the policy to give up") {
            var seen: [ChannelUpdate<EnrichmentMessage>] = []
            for await update in updates { seen.append(update) }
            return seen
        }
        guard case .status(.failed) = seen.last else { Issue.record("ended on \(String(describing: seen.last))"); return }
        // An error event proves nothing about the stream: each one is a failed open.
        #expect(requests.count == 3)
        #expect(seen.filter { if case .event = $0 { true } else { false } }.count == 3)
        await connection.disconnect()
        await server.stop()
    }
}

/// Hands out `token-1`, `token-2`, …: which credentials each request carried.
actor TokenCounter {
    private var issued = 0
    func next() -> String {
        issued += 1
        return "token-\(issued)"
    }
}
