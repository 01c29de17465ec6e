import AppSyncEmulator
import AppSyncRuntime
import ArgumentParser
import ChannelRuntime
import Foundation
import RoutingEvents
import VortexEvents

@main
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "runtime-bench",
        abstract: "Runtime benchmarks of swift-channelgen (build with -c release).",
        subcommands: [Decode.self, Route.self, Codec.self, Loop.self, Memory.self, Stall.self, Flood.self, Serve.self, SLO.self, Jobs.self, Idle.self, Liveness.self])
}

struct Decode: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Raw data frames → typed AsyncStream values for the nine models: ours vs a naive baseline.",
        discussion: "The last line is `ratio: <ours/baseline>` for the model with the lowest ratio.")
    @Option var events = 100_000
    @Option var runs = 5
    @Option(help: "Untimed runs of each side first, per model: both measured warm (buffers grown, pages mapped).")
    var warmup = 1
    @Option(help: "Only the models whose name contains this text.") var model: String?
    @ArgumentParser.Flag(help: "Run only our path (for a profiler); prints no ratio.") var oursOnly = false
    @ArgumentParser.Flag(help: "Also print every run's figures (events/s), to see the spread.") var samples = false

    func run() async throws {
        let counting = heapAllocations() != nil
        print("| model | ours (events/s) | naive baseline (events/s) | ours / baseline |" + (counting ? " allocations per event, ours / baseline |" : ""))
        print("|---|---:|---:|---:|" + (counting ? "---:|" : ""))
        var slowest: (name: String, ratio: Double)?
        for model in DecodeBench.models where self.model.map(model.name.contains) ?? true {
            var ours: [Throughput] = [], baseline: [Throughput] = []
            for _ in 0..<warmup {
                _ = try await DecodeBench.ours(model, count: events)
                if !oursOnly { _ = try await DecodeBench.baseline(model, count: events) }
            }
            for _ in 0..<runs {  // interleaved, so both see the same machine state
                ours.append(try await DecodeBench.ours(model, count: events))
                if !oursOnly { baseline.append(try await DecodeBench.baseline(model, count: events)) }
            }
            if samples {
                print("samples \(model.name): ours \(ours.map { Int($0.perSecond) }), baseline \(baseline.map { Int($0.perSecond) })")
            }
            let o = Stats(ours.map(\.perSecond)).median
            let b = oursOnly ? .nan : Stats(baseline.map(\.perSecond)).median
            var row = "| \(model.name) | \(Int(o)) | \(oursOnly ? "-" : String(Int(b))) | \(oursOnly ? "-" : String(format: "%.2f", o / b)) |"
            if counting {
                func allocations(_ runs: [Throughput]) -> String {
                    runs.isEmpty ? "-" : String(format: "%.1f", Stats(runs.compactMap(\.allocationsPerEvent)).median)
                }
                row += " \(allocations(ours)) / \(allocations(baseline)) |"
            }
            print(row)
            if !oursOnly, o / b < slowest?.ratio ?? .infinity { slowest = (model.name, o / b) }
        }
        if oursOnly { return }
        guard let slowest else { throw BenchFailure("no model matches '\(model ?? "")'") }
        print("slowest: \(slowest.name)")
        print("ratio: \(String(format: "%.2f", slowest.ratio))")
    }
}

struct Route: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "A channel of 20 messages: decoding through the union of its messages vs each straight into its own type.",
        discussion: "Every event must land in its own case. The last line is `ratio: <union/direct>` for the tagged channel.")
    @Option var events = 200_000
    @Option var runs = 5

    func run() throws {
        print("| channel | through the union (ns/event) | directly into its type (ns/event) | union / direct |")
        print("|---|---:|---:|---:|")
        var taggedRatio = Double.nan
        for name in ["moves (a `const` type)", "untagged (keys only)"] {
            let tagged = name.hasPrefix("moves")
            let events = (0..<events).map { tagged ? RoutingBench.movesEvent($0) : RoutingBench.untaggedEvent($0) }
            var union: [Double] = [], direct: [Double] = []
            for run in 0...runs {  // interleaved; the first pair warms up
                let u = tagged ? try RoutingBench.throughUnion(MovesMessage.self, RoutingBench.moves, events)
                    : try RoutingBench.throughUnion(UntaggedMessage.self, RoutingBench.untagged, events)
                let d = tagged ? try RoutingBench.directly(RoutingBench.moves, events) : try RoutingBench.directly(RoutingBench.untagged, events)
                if run > 0 { union.append(u); direct.append(d) }
            }
            let u = Stats(union).median / Double(events.count) * 1e9, d = Stats(direct).median / Double(events.count) * 1e9
            if tagged { taggedRatio = u / d }
            print("| \(name) | \(String(format: "%.0f", u)) | \(String(format: "%.0f", d)) | \(String(format: "%.2f", u / d)) |")
        }
        print("ratio: \(String(format: "%.2f", taggedRatio))")
    }
}

struct Loop: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "loopback", abstract: "Latency, throughput and reconnect through the emulator over loopback.")
    @Option var latencyEvents = 1000
    @Option var throughputEvents = 40_000
    @Option var runs = 3

    func run() async throws {
        for (name, websocket) in [("HTTP publish", false), ("WebSocket publish", true)] {
            var p50: [Double] = [], p99: [Double] = []
            for _ in 0..<runs {
                let result = try await Loopback.latency(overWebSocket: websocket, count: latencyEvents)
                p50.append(result.p50)
                p99.append(result.p99)
            }
            print("latency \(name): p50 \(String(format: "%.3f", Stats(p50).median)) ms, p99 \(String(format: "%.3f", Stats(p99).median)) ms (median of \(runs) runs × \(latencyEvents) events)")
        }
        var rates: [Double] = []
        for _ in 0..<runs { rates.append(try await Loopback.throughput(count: throughputEvents)) }
        print("sustained: \(Int(Stats(rates).median)) events/s into one connection (median of \(runs) runs × \(throughputEvents) events)")
        let reconnects = try await Loopback.reconnect(iterations: 21)
        let stats = Stats(reconnects)
        print("reconnect: drop → nine subscriptions acknowledged again: p50 \(String(format: "%.2f", stats.median)) ms, p90 \(String(format: "%.2f", stats.percentile(90))) ms (21 drops, zero delay)")
    }
}

struct Memory: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Resident memory with one connection and N subscriptions (the emulator runs in a child process).")
    @Option var subscriptions = 9

    func run() async throws {
        let (child, endpoint) = try startEmulatorProcess()
        defer { child.terminate() }
        let before = residentMemoryKB() ?? 0

        let connection = AppSyncConnection(configuration: AppSyncConfiguration(endpoint: endpoint, authorization: .apiKey(Loopback.publisherKey)), logger: quiet)
        let notifier = BackendNotifier(source: ChannelEventHub(connection: connection, parameters: ["userId": try ChannelSegment("bench")], logger: quiet))
        let counter = Counter()
        var keep: [Task<Void, Never>] = []
        func consume<E: Sendable>(_ stream: AsyncStream<E>) { keep.append(Task { for await _ in stream { counter.increment() } }) }
        consume(await notifier.devicePresenceValues()); consume(await notifier.deviceRecordingValues())
        consume(await notifier.deviceFirmwareValues()); consume(await notifier.archiveValues())
        consume(await notifier.licenseValues()); consume(await notifier.planValues())
        consume(await notifier.aiSettingsValues()); consume(await notifier.roleValues()); consume(await notifier.revokeValues())
        var raw: [RawChannelSubscription] = []
        for index in 0..<max(0, subscriptions - 9) {
            raw.append(try await connection.subscribe(to: "vortex-app/bench/extra\(index)"))
        }
        await connection.start()
        try await waitUntil { await connection.acknowledgedChannels.count == subscriptions }
        try await Task.sleep(for: .milliseconds(500))
        let after = residentMemoryKB() ?? 0
        print("subscriptions=\(subscriptions) rss_before_kb=\(before) rss_connected_kb=\(after)")
        keep.forEach { $0.cancel() }
        _ = raw
        await connection.disconnect()
    }
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the emulator and print its endpoint (used by `memory`).")

    func run() async throws {
        let emulator = AppSyncEmulator(configuration: EmulatorConfiguration(namespaces: ["vortex-app"], apiKeys: [Loopback.publisherKey]), logger: quiet)
        print(try await emulator.start().absoluteString)
        fflush(nil)
        while true { try await Task.sleep(for: .seconds(3600)) }
    }
}
