import AppSyncEmulator
import ArgumentParser
import EnrichmentJobs
import Foundation
import Logging
import NIOChannelTransports
import SSERuntime

/// A job's own event stream end to end: the generated `EnrichmentSubscription` and its messages
/// follow one enrichment job's own Server-Sent Events stream and prints its typed events until the job ends.
@main
struct JobDemo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "job-demo",
        abstract: "Follow one enrichment job's event stream with the generated EnrichmentJobs client.",
        discussion: """
            With no options it starts the embedded emulator, starts a job there and follows it. With --endpoint it follows a real server's job:

              job-demo --endpoint https://api.example.com --job-id <id> --token <token> [--auth query]

            The stream is GET <endpoint>/api/v2/enrichments/<job-id>/stream. The token goes in `Authorization: Bearer <token>` (--auth header) or in `?token=<token>` (--auth query).

            Retries: a dropped stream is reopened with Last-Event-ID, the first time after 1 s, then after 2, 4 and 8 s; after \(Self.failedOpensAllowed) failed attempts in a row it gives up: a refusal, or a stream that ended without its final event before it had lasted 30 s, whether or not it delivered events. Never more than one open per second, also when the server refuses the credentials (asked again once, then it gives up).

            Exit status: 0 after `completed`, 2 after `failed`, 1 on an error, a time-out, a refused or failing connection.
            """)

    /// Failed attempts in a row (refusals, streams that ended before lasting 30 s) before giving up.
    static let failedOpensAllowed = 5
    static let reconnectPolicy = ReconnectPolicy.exponential(initial: .seconds(1), maximum: .seconds(8)).limited(to: failedOpensAllowed)

    enum Placement: String, ExpressibleByArgument, CaseIterable {
        case header, query
    }

    enum Outcome: String, ExpressibleByArgument, CaseIterable {
        case completed, failed
    }

    @Option(help: "Base URL of a real API (https://…). Omit to use the embedded emulator.")
    var endpoint: String?

    @Option(help: "The job to follow (with --endpoint).")
    var jobId: String?

    @Option(help: "A bearer token for the stream.")
    var token: String?

    @Option(help: "An API key for the stream (x-api-key).")
    var apiKey: String?

    @Option(help: "Where the token goes: header (Authorization: Bearer) or query (?token=).")
    var auth: Placement = .header

    @Option(help: "Seconds to wait for the job to end.")
    var timeout: Double = 60

    @Option(help: "With the embedded emulator: how many progress events the job sends.")
    var total: Int = 5

    @Option(help: "With the embedded emulator: how the job ends (completed or failed).")
    var outcome: Outcome = .completed

    @Flag(help: "Log the connection's diagnostics to standard error.")
    var verbose = false

    mutating func validate() throws {
        if endpoint != nil {
            guard jobId != nil else { throw ValidationError("--endpoint needs --job-id") }
            guard (token == nil) != (apiKey == nil) else { throw ValidationError("with --endpoint, pass exactly one of --token or --api-key") }
            if apiKey != nil, auth == .query { throw ValidationError("--auth query carries a token; pass --token") }
        } else if jobId != nil || token != nil || apiKey != nil {
            throw ValidationError("--job-id, --token and --api-key need --endpoint")
        }
        guard timeout > 0 else { throw ValidationError("--timeout must be positive") }
        guard (0...1000).contains(total) else { throw ValidationError("--total must be 0…1000") }
    }

    func run() async throws {
        var logger = Logger(label: "job-demo")
        logger.logLevel = verbose ? .debug : .critical
        let status: Int32
        if let endpoint, let jobId {
            let authorization: ChannelAuthorization = if let apiKey {
                .apiKey(apiKey)
            } else if auth == .query {
                .queryToken { [token] in token ?? "" }
            } else {
                .bearerToken { [token] in token ?? "" }
            }
            status = try await follow(jobId, at: endpoint, authorization: authorization, logger: logger)
        } else {
            #if Emulator
            let key = "da2-job-demo"
            var configuration = EmulatorConfiguration(apiKeys: [key])
            configuration.jobStepInterval = .milliseconds(150)
            let emulator = AppSyncEmulator(configuration: configuration, logger: logger)
            let base = try await emulator.start().deletingLastPathComponent()
            say("Embedded emulator at \(base.absoluteString)")
            do {
                let jobId = try await startJob(at: base, key: key)
                say("Started job \(jobId) (\(total) progress events, then \(outcome.rawValue))")
                status = try await follow(jobId, at: base.absoluteString, authorization: .apiKey(key), logger: logger)
            } catch {
                await emulator.stop()
                throw error
            }
            await emulator.stop()
            #else
            throw ValidationError(EmulatorTrait.missingMessage + ", or pass --endpoint")
            #endif
        }
        if status != 0 { throw ExitCode(status) }
    }

    /// Starts a job on the emulator: `POST /api/v2/enrichments`.
    private func startJob(at base: URL, key: String) async throws -> String {
        let body = try JSONSerialization.data(withJSONObject: ["total": total, "outcome": outcome.rawValue])
        let answer = try await NIOHTTPPostClient(timeout: .seconds(10)).post(
            base.appendingPathComponent("api/v2/enrichments"), headers: ["x-api-key": key, "content-type": "application/json"], body: body)
        guard answer.status == 202, let object = try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any],
              let jobId = object["jobId"] as? String else {
            throw JobDemoFailure("starting a job failed: HTTP \(answer.status)")
        }
        return jobId
    }

    /// Follows the job's stream; the exit status by how it ended.
    private func follow(_ jobId: String, at base: String, authorization: ChannelAuthorization, logger: Logger) async throws -> Int32 {
        let subscription: EnrichmentSubscription
        do {
            subscription = try EnrichmentSubscription(jobId: jobId)
        } catch {
            throw ValidationError("\(error)")
        }
        var configuration = SSEConfiguration(endpoint: try ChannelEndpoint(http: base), authorization: authorization)
        configuration.reconnectPolicy = Self.reconnectPolicy
        let connection = SSEConnection(configuration: configuration, logger: logger)
        let hub = ChannelEventHub(connection: connection, logger: logger)
        await connection.start()

        let ending = Ending()
        let reader = Task {
            // Events and status changes in order; the stream finishes after the final event.
            for await update in await hub.updates(for: subscription) {
                switch update {
                case .event(let event):
                    say(Self.describe(event))
                    if case .completed = event { await ending.set(.completed) }
                    if case .failed = event { await ending.set(.failed) }
                case .status(.failed(let errors)):
                    // A stream that gives up (refused, failing opens) or whose final event did not
                    // decode fails its subscription.
                    await ending.set(.gaveUp(errors.map(\.description).joined(separator: "; ")))
                case .status(let status):
                    if verbose { sayError("status: \(status)") }
                case .gap(let missed):
                    say("(\(missed) events missed)")
                case .resumed(let after):
                    if verbose { sayError("resumed after \(after)") }
                }
            }
            // The stream ended: after its final event that was said above; otherwise say so now.
            await ending.set(.gaveUp("the stream ended without a final event"))
        }
        let result = await ending.wait(timeout: .milliseconds(Int(timeout * 1000)))
        reader.cancel()
        await connection.disconnect()
        switch result {
        case .completed: return 0
        case .failed: return 2
        case .gaveUp(let reason):
            sayError("job-demo: the stream failed: \(reason)")
            return 1
        case .timedOut:
            sayError("job-demo: the job did not end within \(timeout) s (connection: \(await connection.state))")
            return 1
        }
    }

    static func describe(_ event: EnrichmentMessage) -> String {
        switch event {
        case .progress(let progress): "progress  \(progress.processed)/\(progress.total)" + (progress.message.map { " \($0)" } ?? "")
        case .completed(let completed): "completed " + (completed.resultsUrl ?? "")
        case .failed(let failed): "failed    \(failed.reason)"
        case .error(let error): "error     \(error.code)" + (error.message.map { ": \($0)" } ?? "")
        case .unknown(let value): "unknown   \(value)"
        }
    }
}

/// How following a job ended; the first word counts.
actor Ending {
    enum Result: Sendable {
        case completed, failed, gaveUp(String), timedOut
    }

    private var result: Result?
    private var waiter: CheckedContinuation<Result, Never>?

    func set(_ result: Result) {
        guard self.result == nil else { return }
        self.result = result
        waiter?.resume(returning: result)
        waiter = nil
    }

    func wait(timeout: Duration) async -> Result {
        let timer = Task {
            try? await Task.sleep(for: timeout)
            self.set(.timedOut)
        }
        defer { timer.cancel() }
        if let result { return result }
        return await withCheckedContinuation { waiter = $0 }
    }
}

struct JobDemoFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

func say(_ line: String) {
    print(line)
    fflush(nil)
}

func sayError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
