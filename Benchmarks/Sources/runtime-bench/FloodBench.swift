import AppSyncRuntime
import ArgumentParser
import ChannelRuntime
import Foundation
import SSERuntime
import VortexEvents

/// Peak resident memory while a hostile server (`scripts/flood_server.py`, another process) sends
/// events as fast as the socket takes them, for `--seconds`: to a consumer that never reads
/// (`stalled`) or for a channel nobody subscribed to (`unsubscribed`). The client must hold no
/// more than its bounds, whatever the server sends.
struct Flood: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Peak resident memory under a flood from a hostile server.")
    @Option(help: "websocket or sse") var transport = "sse"
    @Option(help: "stalled (a consumer that never reads) or unsubscribed (events for no subscription)") var mode = "stalled"
    @Option var seconds = 30
    @Option(help: "The flood server script.") var server = "scripts/flood_server.py"

    func run() async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", server, "--transport", transport, "--mode", mode, "--seconds", String(seconds)]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        guard let first = String(data: output.fileHandleForReading.availableData, encoding: .utf8),
              let port = first.split(separator: "\n").first?.split(separator: " ").last.flatMap({ Int($0) })
        else { throw BenchFailure("the flood server printed no port") }

        let endpoint = try AppSyncEndpoint(http: "http://127.0.0.1:\(port)/event")
        let connection: any ChannelConnection & Sendable
        let start: @Sendable () async -> Void
        let stop: @Sendable () async -> Void
        let metrics: RuntimeMetrics
        switch transport {
        case "websocket":
            let appSync = AppSyncConnection(configuration: AppSyncConfiguration(endpoint: endpoint, authorization: .apiKey("k")), logger: quiet)
            (connection, metrics, start, stop) = (appSync, appSync.metrics, { await appSync.start() }, { await appSync.disconnect() })
        case "sse":
            let sse = SSEConnection(configuration: SSEConfiguration(endpoint: endpoint, authorization: .apiKey("k")), logger: quiet)
            (connection, metrics, start, stop) = (sse, sse.metrics, { await sse.start() }, { await sse.disconnect() })
        default:
            throw BenchFailure("--transport is websocket or sse")
        }
        let hub = ChannelEventHub(connection: connection, parameters: ["userId": try ChannelSegment("bench")], logger: quiet)
        let notifier = BackendNotifier(source: hub)
        let stalled = await notifier.devicePresenceValues()  // held, never read
        let baseline = residentMemoryKB() ?? 0
        await start()

        var peak = baseline
        let began = ContinuousClock.now
        print("transport=\(transport) mode=\(mode) seconds=\(seconds)")
        print("| second | resident memory | frames received | overflowed |")
        print("|---:|---:|---:|---:|")
        for second in 1...seconds {
            try await Task.sleep(until: began + .seconds(second), clock: .continuous)
            let rss = residentMemoryKB() ?? 0
            peak = max(peak, rss)
            let snapshot = metrics.snapshot()
            let overflowed = snapshot.channels.values.map(\.overflowed).reduce(0, +)
            if second % max(1, seconds / 10) == 0 || second == seconds {
                print("| \(second) | \(rss / 1024) MB | \(snapshot.framesReceived) | \(overflowed) |")
            }
        }
        await stop()
        _ = stalled
        peak = max(peak, peakResidentMemoryKB() ?? 0)
        print("baseline=\(baseline / 1024) MB peak=\(peak / 1024) MB")
    }
}
