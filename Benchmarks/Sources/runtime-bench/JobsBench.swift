import AppSyncEmulator
import ArgumentParser
import ChannelRuntime
import EnrichmentJobs
import Foundation
import NIOChannelTransports
import SSERuntime

/// Seed 004's SLOs on job streams: one job's own SSE stream, followed by the generated client
/// with `SSEConfiguration`'s defaults, the emulator's job endpoints in the same process.
struct Jobs: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jobs",
        abstract: "Connect, first event, event → consumer and reconnect times of SSE job streams (ms).")

    @Option(help: "Rounds (each: a new connection and two new jobs).")
    var rounds = 10

    @Option(help: "Progress events of the job whose delivery is timed.")
    var events = 200

    func run() async throws {
        let key = "da2-bench-jobs"
        var configuration = EmulatorConfiguration(apiKeys: [key])
        configuration.jobStepInterval = .milliseconds(5)
        let emulator = AppSyncEmulator(configuration: configuration, logger: quiet)
        let base = try await emulator.start().deletingLastPathComponent()
        var results: [String: [Double]] = [:]
        for _ in 0..<rounds {
            for (name, values) in try await measure(emulator: emulator, base: base, key: key) { results[name, default: []] += values }
        }
        await emulator.stop()
        print("| measure (ms) | goal | p50 | p95 |")
        print("|---|---:|---:|---:|")
        for (name, goal) in [("connect", "< 100"), ("first event", "< 500"), ("event → consumer", "< 50"), ("reconnect", "< 5000")] {
            let stats = Stats(results[name] ?? [])
            print(String(format: "| %@ | %@ | %.2f | %.2f |", name, goal, stats.median, stats.percentile(95)))
        }
    }

    private func measure(emulator: AppSyncEmulator, base: URL, key: String) async throws -> [String: [Double]] {
        let connection = SSEConnection(
            configuration: SSEConfiguration(endpoint: try ChannelEndpoint(http: base.absoluteString), authorization: .apiKey(key)), logger: quiet)
        let hub = ChannelEventHub(connection: connection, logger: quiet)
        await connection.start()
        try await waitUntil { await connection.state == .connected }

        // Connect and first event: the stream of a running job that has emitted events already.
        let running = try await Self.startJob(at: base, key: key, total: 1000)
        let runningJob = try EnrichmentSubscription(jobId: running)
        try await waitUntil { emulator.jobEventEmissionTimes(running).count >= 3 }
        let opened = ContinuousClock.now
        var active: ContinuousClock.Instant?
        var firstEvent: ContinuousClock.Instant?
        for await update in await hub.updates(for: runningJob) {
            switch update {
            case .status(let status) where status.isActive: active = active ?? .now
            case .event: firstEvent = firstEvent ?? .now
            default: break
            }
            if active != nil, firstEvent != nil { break }
        }
        guard let active, let firstEvent else { throw BenchFailure("the job's stream ended early") }
        let connected = active - opened

        // Event → consumer, and the reconnect after a drop halfway.
        let job = try await Self.startJob(at: base, key: key, total: events)
        let arrivals = Task {
            var times: [Int: ContinuousClock.Instant] = [:]
            var dropped: ContinuousClock.Instant?
            var reconnect: Duration?
            for await event in await hub.events(for: try EnrichmentSubscription(jobId: job)) {
                guard case .progress(let progress) = event else { continue }
                let now = ContinuousClock.now
                times[progress.processed] = now
                if let at = dropped, reconnect == nil { reconnect = now - at }
                if progress.processed == events / 2 {
                    await emulator.dropConnections()
                    dropped = .now
                }
            }
            return (times, reconnect)
        }
        let (times, reconnect) = try await arrivals.value
        let emitted = emulator.jobEventEmissionTimes(job)
        // Events emitted during the drop arrive with the replay after the reconnect: the ones before
        // it measure delivery.
        let latencies = times.filter { $0.key <= events / 2 }.compactMap { processed, arrived in
            emitted[processed].map { seconds(arrived - $0) * 1000 }
        }
        await connection.disconnect()
        return [
            "connect": [seconds(connected) * 1000], "first event": [seconds(firstEvent - opened) * 1000],
            "event → consumer": latencies, "reconnect": reconnect.map { [seconds($0) * 1000] } ?? [],
        ]
    }

    static func startJob(at base: URL, key: String, total: Int) async throws -> String {
        let body = try JSONSerialization.data(withJSONObject: ["total": total])
        let answer = try await NIOHTTPPostClient(timeout: .seconds(10)).post(
            base.appendingPathComponent("api/v2/enrichments"), headers: ["x-api-key": key], body: body)
        guard let object = try JSONSerialization.jsonObject(with: answer.body) as? [String: Any], let id = object["jobId"] as? String else {
            throw BenchFailure("starting a job failed: HTTP \(answer.status)")
        }
        return id
    }
}
