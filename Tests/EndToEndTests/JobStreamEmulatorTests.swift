import AppSyncEmulator
import ChannelRuntime
import ChannelRuntimeTesting
import ChildProcessSupport
import EnrichmentJobs
import Foundation
import NIOChannelTransports
import SSERuntime
import Testing

/// Seed 004's job streams against the embedded emulator: a job started over HTTP, followed over
/// its own stream by the generated client, through drops, in-band errors and query tokens.
@Suite("Job streams on the emulator")
struct JobStreamEmulatorTests {
    static let key = "da2-jobs"
    static let secret = "job-stream-tests-secret-0123456789abcdef"

    static func emulator(step: Duration = .milliseconds(40)) async throws -> (AppSyncEmulator, URL) {
        var configuration = EmulatorConfiguration(apiKeys: [key], jwtSecret: secret)
        configuration.jobStepInterval = step
        let emulator = AppSyncEmulator(configuration: configuration, logger: SSEConnectionTests.quiet)
        let base = try await emulator.start().deletingLastPathComponent()
        return (emulator, base)
    }

    static func startJob(at base: URL, total: Int, outcome: String = "completed", headers: [String: String] = ["x-api-key": key]) async throws -> String {
        let body = try JSONSerialization.data(withJSONObject: ["total": total, "outcome": outcome])
        let answer = try await NIOHTTPPostClient(timeout: boundForLoadedMachines).post(
            base.appendingPathComponent("api/v2/enrichments"), headers: headers, body: body)
        #expect(answer.status == 202)
        let object = try JSONSerialization.jsonObject(with: answer.body) as? [String: Any]
        return try #require(object?["jobId"] as? String)
    }

    static func connection(to base: URL, _ authorization: ChannelAuthorization) throws -> SSEConnection {
        var configuration = SSEConfiguration(endpoint: try ChannelEndpoint(http: base.absoluteString), authorization: authorization)
        configuration.reconnectPolicy = .fixed(.milliseconds(20))
        configuration.connectTimeout = boundForLoadedMachines
        return SSEConnection(configuration: configuration, transport: NIOEventStreamTransport(), logger: SSEConnectionTests.quiet)
    }

    @Test func aDroppedJobStreamResumesWithNoEventLostOrTwice() async throws {
        let (emulator, base) = try await Self.emulator()
        let job = try await Self.startJob(at: base, total: 40)
        let connection = try Self.connection(to: base, .apiKey(Self.key))
        let hub = ChannelEventHub(connection: connection, logger: SSEConnectionTests.quiet)
        await connection.start()
        let events = await hub.events(for: try EnrichmentSubscription(jobId: job))
        let collector = Task {
            var received: [EnrichmentMessage] = []
            for await event in events {
                received.append(event)
                // Two drops mid-job.
                if received.count == 10 || received.count == 25 { await emulator.dropConnections() }
            }
            return received
        }
        let received = try await awaiting("the job to complete") { await collector.value }
        let processed = received.compactMap { if case .progress(let progress) = $0 { progress.processed } else { nil } }
        #expect(processed == Array(1...40))
        #expect(received.last == .completed(EnrichmentCompleted(jobId: job, resultsUrl: "/api/v2/enrichments/\(job)/results")))
        // The first drop always meets an open stream; the second may come after the job ended
        // (a loaded consumer reads event 25 after `completed` closed the stream).
        #expect((2...3).contains(emulator.jobStreamsOpened))
        await connection.disconnect()
        await emulator.stop()
    }

    @Test func aQueryTokenReadsTheUsersOwnJobAndAnotherUsersJobFailsTyped() async throws {
        let (emulator, base) = try await Self.emulator()
        let alice = try await emulator.token(forUser: "alice")
        let bob = try await emulator.token(forUser: "bob")
        let job = try await Self.startJob(at: base, total: 2, headers: ["Authorization": alice])

        let own = try Self.connection(to: base, .queryToken { alice })
        let ownHub = ChannelEventHub(connection: own, logger: SSEConnectionTests.quiet)
        await own.start()
        let received = try await awaiting("alice's job") {
            await ownHub.events(for: try EnrichmentSubscription(jobId: job)).reduce(into: [EnrichmentMessage]()) { $0.append($1) }
        }
        #expect(received.count == 3)

        // Bob's token is refused in-band (AUTH_FAILURE): asked again once, then the stream fails.
        let other = try Self.connection(to: base, .queryToken { bob })
        let otherHub = ChannelEventHub(connection: other, logger: SSEConnectionTests.quiet)
        await other.start()
        let bobsJob = try EnrichmentSubscription(jobId: job)
        // The failed job's loop ends, on `.failed` saying why.
        let updates = try await awaiting("bob's stream to fail") {
            await otherHub.updates(for: bobsJob).reduce(into: [ChannelUpdate<EnrichmentMessage>]()) { $0.append($1) }
        }
        guard case .status(.failed(let failure)) = updates.last else { Issue.record("ended on \(String(describing: updates.last))"); return }
        #expect(failure.first?.code == "AUTH_FAILURE")
        let errors = updates.compactMap { if case .event(let event) = $0 { event } else { nil } }
        #expect(errors.allSatisfy { if case .error(let error) = $0 { error.code == "AUTH_FAILURE" } else { false } })
        #expect(errors.count == 2)
        await own.disconnect()
        await other.disconnect()
        await emulator.stop()
    }

    @Test func injectedErrorsAndRefusalsAreRetriedWithBackoff() async throws {
        let (emulator, base) = try await Self.emulator()
        let job = try await Self.startJob(at: base, total: 3)
        emulator.failNextJobStreams(1, code: "SERVICE_BUSY")
        emulator.refuseNextEventStreams(1, status: 503, retryAfterSeconds: 0)
        let connection = try Self.connection(to: base, .apiKey(Self.key))
        let hub = ChannelEventHub(connection: connection, logger: SSEConnectionTests.quiet)
        await connection.start()
        let received = try await awaiting("the job to complete") {
            await hub.events(for: try EnrichmentSubscription(jobId: job)).reduce(into: [EnrichmentMessage]()) { $0.append($1) }
        }
        #expect(received.first == .error(StreamError(code: "SERVICE_BUSY", message: "injected by the emulator")))
        #expect(received.dropFirst().count == 4)
        // The refused open (503) never reached the job; the error and the good one did.
        #expect(emulator.jobStreamsOpened == 2)
        await connection.disconnect()
        await emulator.stop()
    }

    // MARK: job-demo

    static let binary = Bundle.main.bundleURL.appendingPathComponent("job-demo")

    @Test(arguments: [("completed", Int32(0)), ("failed", Int32(2))])
    func theDemoPrintsTheJobAndExitsByItsOutcome(_ outcome: String, _ status: Int32) async throws {
        let result = try await ChildProcess.run(Self.binary, ["--total", "3", "--outcome", outcome], mergingOutput: true)
        #expect(result.status == status, "\(result.stdout)")
        #expect(result.stdout.contains("progress  3/3"), "\(result.stdout)")
        #expect(result.stdout.contains(outcome == "completed" ? "completed /api/v2/enrichments/job-1/results" : "failed    the emulator"))
    }

    @Test func theDemoFollowsARealServersJobWithAQueryToken() async throws {
        let (emulator, base) = try await Self.emulator()
        let alice = try await emulator.token(forUser: "alice")
        let job = try await Self.startJob(at: base, total: 2, headers: ["Authorization": alice])
        let result = try await ChildProcess.run(
            Self.binary, ["--endpoint", base.absoluteString, "--job-id", job, "--token", alice, "--auth", "query"], mergingOutput: true)
        #expect(result.status == 0, "\(result.stdout)")
        #expect(result.stdout.contains("progress  2/2"))
        // Unknown job: refused (404), a failure at once.
        let unknown = try await ChildProcess.run(
            Self.binary, ["--endpoint", base.absoluteString, "--job-id", "job-404", "--api-key", Self.key], mergingOutput: true)
        #expect(unknown.status == 1, "\(unknown.stdout)")
        #expect(unknown.stdout.contains("the stream failed"), "\(unknown.stdout)")
        await emulator.stop()
    }

    /// Issue 59: a `completed` whose data does not decode left job-demo waiting out its time-out
    /// ("did not end", exit 1). It now exits at once, non-zero, saying which event did not decode.
    @Test func theDemoFailsAtOnceWhenTheFinalEventDoesNotDecode() async throws {
        let server = try await ScriptedServer.start(closing: false) { _, _ in
            Array((SSEHostileServerTests.eventStreamHead + "event: completed\ndata: {\"jobId\":42}\n\n").utf8)
        }
        let endpoint = "http://127.0.0.1:\(server.port)"
        // Its own time-out bounds the run: before, it waited all of it and said "did not end".
        let result = try await ChildProcess.run(
            Self.binary, ["--endpoint", endpoint, "--job-id", "j1", "--api-key", Self.key, "--timeout", "60"], mergingOutput: true)
        #expect(result.status == 1, "\(result.stdout)")
        #expect(result.stdout.contains("the final event 'completed' did not decode"), "\(result.stdout)")
        await server.stop()
    }
}
