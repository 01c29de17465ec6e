import AppSyncEmulator
import AppSyncRuntime
import ArgumentParser
import ChannelRuntime
import Foundation
import SSERuntime
import URLSessionChannelTransports
import VortexEvents

/// What the SLO benchmark needs of either transport's connection.
protocol BenchConnection: ChannelConnection {
    func start() async
    func disconnect() async
    func networkPathChanged(available: Bool) async
    var acknowledgedChannels: [String] { get async }
}

extension AppSyncConnection: BenchConnection {}
extension SSEConnection: BenchConnection {}

/// The four SLOs of the SSE migration plan (seed 004), measured over loopback for both transports
/// with their default settings: connect, time to first message, event → consumer, reconnect after
/// the network drops.
struct SLO: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "slo",
        abstract: "Connect, first message, event → consumer and reconnect times of the WebSocket and SSE transports (ms).")

    @Option(help: "Rounds per transport (each: a new connection, 200 events, one drop).")
    var rounds = 10

    @Option(help: "Events per round for the event → consumer latency.")
    var events = 200

    enum Transport: String, CaseIterable { case websocket, sse }

    func run() async throws {
        let emulator = AppSyncEmulator(
            configuration: EmulatorConfiguration(namespaces: ["vortex-app"], apiKeys: [Loopback.publisherKey], jwtSecret: "benchmark-jwt-secret-0123456789abcdef"),
            logger: quiet)
        let endpoint = try ChannelEndpoint(http: try await emulator.start())
        let token = try await emulator.token(forUser: "bench")
        let channel = try RoleChangeEventsSubscription(userId: "bench").channel
        let publisher = AppSyncHTTPPublisher(endpoint: endpoint, authorization: .apiKey(Loopback.publisherKey))

        var results: [Transport: [String: [Double]]] = [:]
        for round in 0..<rounds {
            for transport in Transport.allCases {  // interleaved, so drift hits both alike
                let connection: any BenchConnection = switch transport {
                case .websocket: AppSyncConnection(configuration: AppSyncConfiguration(endpoint: endpoint, authorization: .token { token }), logger: quiet)
                case .sse: SSEConnection(configuration: SSEConfiguration(endpoint: endpoint, authorization: .token { token }), logger: quiet)
                }
                let sample = try await measure(connection, emulator: emulator, channel: channel, publisher: publisher, tag: "\(transport)-\(round)")
                for (name, value) in sample { results[transport, default: [:]][name, default: []].append(contentsOf: value) }
            }
        }
        await emulator.stop()

        print("| measure (ms) | goal | WebSocket p50 | WebSocket p95 | SSE p50 | SSE p95 |")
        print("|---|---:|---:|---:|---:|---:|")
        for (name, goal) in [("connect", "< 100"), ("first message", "< 500"), ("event → consumer", "< 50"), ("reconnect", "< 5000"), ("path change", "< 5000")] {
            let ws = Stats(results[.websocket]?[name] ?? []), sse = Stats(results[.sse]?[name] ?? [])
            print(String(format: "| %@ | %@ | %.2f | %.2f | %.2f | %.2f |", name, goal, ws.median, ws.percentile(95), sse.median, sse.percentile(95)))
        }
    }

    /// One round: start → connected; start → first event; per-event latency; drop → first event again.
    private func measure(
        _ connection: any BenchConnection, emulator: AppSyncEmulator, channel: String, publisher: AppSyncHTTPPublisher, tag: String
    ) async throws -> [String: [Double]] {
        let notifier = BackendNotifier(source: ChannelEventHub(connection: connection, logger: quiet))
        try await notifier.setUserId("bench")
        let arrivals = Arrivals()
        let events = await notifier.roleValues()
        let consumer = Task {
            for await event in events { arrivals.record(event.reason ?? "") }
        }
        defer { consumer.cancel() }
        try await Task.sleep(for: .milliseconds(50))  // the hub registers its subscription before the start

        // A backend publishing every 10 ms, as a live feed would.
        let feeding = Flag()
        let feed = Task {
            var index = 0
            while feeding.isSet {
                index += 1
                _ = try? await publisher.publish([Self.event("\(tag)-feed-\(index)")], to: channel)
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
        let started = ContinuousClock.now
        await connection.start()
        try await waitUntil { await connection.acknowledgedChannels.count == 1 }
        let connected = ContinuousClock.now - started
        try await waitUntil { arrivals.count > 0 }
        let firstMessage = ContinuousClock.now - started
        feeding.clear()  // not cancel(): see URLSessionPostClient
        _ = await feed.value
        try await Task.sleep(for: .milliseconds(50))

        // Event → consumer, one at a time.
        var latencies: [Double] = []
        for index in 0..<self.events {
            let name = "\(tag)-latency-\(index)"
            let sent = ContinuousClock.now
            _ = try await publisher.publish([Self.event(name)], to: channel)
            try await waitUntil { arrivals.contains(name) }
            latencies.append(seconds(arrivals.time(of: name)! - sent) * 1000)
        }

        // The network drops: time until events flow again.
        let reconnect = try await timeUntilEventsFlow(tag: "\(tag)-drop", channel: channel, publisher: publisher, arrivals: arrivals) {
            await emulator.dropConnections()
        }
        // The path goes dead (the server frozen, the socket open) and the app's monitor reports a new
        // one: time from the report until events flow on the new connection.
        if connection is SSEConnection { emulator.stallEventStreams() } else { await emulator.freezeConnections() }
        let pathChange = try await timeUntilEventsFlow(tag: "\(tag)-path", channel: channel, publisher: publisher, arrivals: arrivals) {
            await connection.networkPathChanged(available: true)
        }
        await connection.disconnect()
        return [
            "connect": [seconds(connected) * 1000], "first message": [seconds(firstMessage) * 1000], "event → consumer": latencies,
            "reconnect": [reconnect], "path change": [pathChange],
        ]
    }

    /// Milliseconds from `disruption` until a freshly published event reaches the consumer.
    private func timeUntilEventsFlow(
        tag: String, channel: String, publisher: AppSyncHTTPPublisher, arrivals: Arrivals, after disruption: () async -> Void
    ) async throws -> Double {
        let start = ContinuousClock.now
        await disruption()
        var probe = 0
        while true {
            probe += 1
            let name = "\(tag)-probe-\(probe)"
            _ = try? await publisher.publish([Self.event(name)], to: channel)
            if (try? await waitUntil(.milliseconds(20), { arrivals.contains(name) })) != nil {
                return seconds(ContinuousClock.now - start) * 1000
            }
            guard ContinuousClock.now - start < .seconds(60) else { throw BenchFailure("no events within 60 s of \(tag)") }
        }
    }

    static func event(_ reason: String) -> String {
        #"{"eventType":"user/roleChanged","timestamp":"2025-01-26T12:00:00Z","reason":"\#(reason)"}"#
    }
}

/// Arrival times of events by name.
final class Arrivals: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var times: [String: ContinuousClock.Instant] = [:]
    func record(_ name: String) { lock.withLock { times[name] = ContinuousClock.now } }
    var count: Int { lock.withLock { times.count } }
    func contains(_ name: String) -> Bool { lock.withLock { times[name] != nil } }
    func time(of name: String) -> ContinuousClock.Instant? { lock.withLock { times[name] } }
}

/// A flag the feed checks.
final class Flag: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var value = true
    var isSet: Bool { lock.withLock { value } }
    func clear() { lock.withLock { value = false } }
}
