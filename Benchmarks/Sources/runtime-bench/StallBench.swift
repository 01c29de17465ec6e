import AppSyncRuntime
import ArgumentParser
import ChannelRuntime
import Foundation
import VortexEvents

/// Resident memory while a consumer never reads and the server keeps sending: with the default
/// bounded buffer it stays flat; with a buffer that holds everything (the old `.unbounded`) it grows
/// with every event. Frames come from an in-memory server, fed as fast as the runtime takes them, so
/// the only thing that can grow is what the runtime holds for the stalled consumer.
struct Stall: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Resident memory with a consumer that never reads, during N events.")
    @Option var events = 1_000_000
    @Option(help: "Events a consumer may hold: 'default' (newest 1 000) or a number.") var buffer = "default"

    func run() async throws {
        let policy: StreamBufferPolicy = buffer == "default" ? .default : .bufferingNewest(Int(buffer) ?? 1_000)
        let transport = AutoServerTransport()
        let connection = AppSyncConnection(
            configuration: AppSyncConfiguration(endpoint: try ChannelEndpoint(http: "https://bench.appsync-api.us-east-1.amazonaws.com/event"), authorization: .apiKey("k")),
            transport: transport, logger: quiet)
        let hub = ChannelEventHub(connection: connection, parameters: ["userId": try ChannelSegment("bench")], bufferPolicy: policy, logger: quiet)
        let notifier = BackendNotifier(source: hub)
        let stalled = await notifier.devicePresenceValues()  // held, never read
        await connection.start()
        try await waitUntil { await connection.acknowledgedChannels.count == 1 }
        let channel = try DevicePresenceSubscription(userId: "bench").channel
        let id = try transport.subscriptionID(for: channel) ?? { throw BenchFailure("no subscription") }()
        try await Task.sleep(for: .milliseconds(200))
        let baseline = residentMemoryKB() ?? 0
        print("buffer=\(buffer) events=\(events)")
        print("| events sent | resident memory | growth since subscribing |")
        print("|---:|---:|---:|")
        print("| 0 | \(baseline / 1024) MB | 0 MB |")
        let batch = 10_000
        let start = ContinuousClock.now
        for sent in stride(from: batch, through: events, by: batch) {
            for n in (sent - batch)..<sent { transport.push(DecodeBench.frame(id: id, event: DecodeBench.presenceEvent(n))) }
            // Feed at the runtime's pace: the transport's own queue must not be what grows.
            try await waitUntil { connection.metrics.snapshot().channels[channel]?.decoded ?? 0 >= sent }
            if sent % (events / 10) == 0 {
                let rss = residentMemoryKB() ?? 0
                print("| \(sent) | \(rss / 1024) MB | \((rss - baseline) / 1024) MB |")
            }
        }
        let counts = connection.metrics.snapshot().channels[channel] ?? RuntimeMetrics.Channel()
        print("decoded=\(counts.decoded) overflowed=\(counts.overflowed) seconds=\(String(format: "%.1f", seconds(ContinuousClock.now - start)))")
        _ = stalled
        await connection.disconnect()
    }
}
