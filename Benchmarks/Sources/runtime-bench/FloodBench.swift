import AppSyncRuntime
import ArgumentParser
import ChannelRuntime
import Foundation
import SSERuntime
import VortexEvents

/// Peak resident memory while a hostile server (`scripts/flood_server.py`, another process) sends
/// events as fast as the socket takes them, for `--seconds`: to a consumer that never reads
/// (`stalled`), for a channel nobody subscribed to (`unsubscribed`), or as `data` frames carrying
/// arrays of events (`array`, WebSocket); or the server stops reading while the client publishes
/// a 100 KB event every millisecond without waiting for answers (`unread`, WebSocket). The client must hold no more than its
/// bounds, whatever the server does.
struct Flood: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Peak resident memory under a flood from a hostile server.")
    @Option(help: "websocket or sse") var transport = "sse"
    @Option(help: "stalled (events for the consumer), unsubscribed (events for no subscription), array (1 000 tiny events in each frame), valid-array (13 000 valid events in each frame), large (one valid event of 1 MB in each frame), unread (publishes to a server that stopped reading)")
    var mode = "stalled"
    @Option(help: "stalled (holds its stream and never reads) or slow (reads an event every millisecond)")
    var consumer = "stalled"
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

        let endpoint = try ChannelEndpoint(http: "http://127.0.0.1:\(port)/event")
        let connection: any ChannelConnection & Sendable
        let start: @Sendable () async -> Void
        let stop: @Sendable () async -> Void
        let metrics: RuntimeMetrics
        var publishers: [Task<Void, Never>] = []
        let publishOutcomes = Tally()
        switch transport {
        case "websocket":
            let appSync = AppSyncConnection(configuration: AppSyncConfiguration(endpoint: endpoint, authorization: .apiKey("k")), logger: quiet)
            (connection, metrics, start, stop) = (appSync, appSync.metrics, { await appSync.start() }, { await appSync.disconnect() })
            if mode == "unread" {
                // An app publishing at its own pace (one publish every millisecond, not waiting for
                // the answers) into a socket the server stopped reading.
                let event = "{\"text\":\"" + String(repeating: "x", count: 100_000) + "\"}"
                publishers = [
                    Task {
                        while !Task.isCancelled {
                            try? await Task.sleep(for: .milliseconds(1))
                            guard await appSync.state == .connected else { continue }
                            Task {
                                do {
                                    _ = try await appSync.publish([event], to: "bench/unread")
                                    publishOutcomes.add("answered")
                                } catch {
                                    publishOutcomes.add(String("\(error)".prefix(40)))
                                }
                            }
                        }
                    }
                ]
            }
        case "sse":
            let sse = SSEConnection(configuration: SSEConfiguration(endpoint: endpoint, authorization: .apiKey("k")), logger: quiet)
            (connection, metrics, start, stop) = (sse, sse.metrics, { await sse.start() }, { await sse.disconnect() })
        default:
            throw BenchFailure("--transport is websocket or sse")
        }
        let hub = ChannelEventHub(connection: connection, parameters: ["userId": try ChannelSegment("bench")], logger: quiet)
        let notifier = BackendNotifier(source: hub)
        let events = await notifier.devicePresenceValues()
        let read = Tally()
        let reader: Task<Void, Never>? = switch consumer {
        case "stalled": nil  // holds `events`, never reads
        case "slow":
            Task {
                for await _ in events {
                    read.add("read")
                    try? await Task.sleep(for: .milliseconds(1))
                }
            }
        default: throw BenchFailure("--consumer is stalled or slow")
        }
        let baseline = residentMemoryKB() ?? 0
        await start()

        var peak = baseline
        let began = ContinuousClock.now
        print("transport=\(transport) mode=\(mode) consumer=\(consumer) seconds=\(seconds)")
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
        for publisher in publishers { publisher.cancel() }
        reader?.cancel()
        await stop()
        _ = events
        if reader != nil { print("events read: \(read.summary)") }
        peak = max(peak, peakResidentMemoryKB() ?? 0)
        print("baseline=\(baseline / 1024) MB peak=\(peak / 1024) MB")
        if !publishers.isEmpty { print("publishes: \(publishOutcomes.summary)") }
    }
}

/// Counts by outcome: how the publishes of `--mode unread` ended; the events a slow consumer read.
final class Tally: @unchecked Sendable {
    // @unchecked: `counts` is guarded by `lock`.
    private let lock = NSLock()
    private var counts: [String: Int] = [:]
    func add(_ outcome: String) { lock.withLock { counts[outcome, default: 0] += 1 } }
    var summary: String { lock.withLock { counts.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ") } }
}
