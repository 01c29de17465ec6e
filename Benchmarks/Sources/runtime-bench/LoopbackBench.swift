import AppSyncEmulator
import AppSyncRuntime
import ChannelRuntime
import Foundation
import VortexEvents

/// The generated notifier, the runtime and the emulator in one process, over loopback sockets.
struct Loopback {
    static let publisherKey = "da2-bench"
    let emulator: AppSyncEmulator
    let endpoint: ChannelEndpoint
    let connection: AppSyncConnection
    let notifier: BackendNotifier

    static func start(reconnectDelay: Duration = .seconds(10)) async throws -> Loopback {
        let emulator = AppSyncEmulator(configuration: EmulatorConfiguration(namespaces: ["vortex-app"], apiKeys: [publisherKey], jwtSecret: "benchmark-jwt-secret-0123456789abcdef"), logger: quiet)
        let endpoint = try ChannelEndpoint(http: try await emulator.start())
        let token = try await emulator.token(forUser: "bench")
        var configuration = AppSyncConfiguration(endpoint: endpoint, authorization: .token { token })
        configuration.reconnectPolicy = .fixed(reconnectDelay)
        let connection = AppSyncConnection(configuration: configuration, logger: quiet)
        let notifier = BackendNotifier(source: ChannelEventHub(connection: connection, logger: quiet))
        try await notifier.setUserId("bench")
        return Loopback(emulator: emulator, endpoint: endpoint, connection: connection, notifier: notifier)
    }

    func stop() async {
        await connection.disconnect()
        await emulator.stop()
    }

    func subscribeNine(_ counter: Counter) async throws -> [Task<Void, Never>] {
        func consume<E: Sendable>(_ stream: AsyncStream<E>, counting: Bool) -> Task<Void, Never> {
            Task { for await _ in stream { if counting { counter.increment() } } }
        }
        let tasks = [
            consume(await notifier.roleValues(), counting: true),
            consume(await notifier.devicePresenceValues(), counting: false),
            consume(await notifier.deviceRecordingValues(), counting: false),
            consume(await notifier.deviceFirmwareValues(), counting: false),
            consume(await notifier.archiveValues(), counting: false),
            consume(await notifier.licenseValues(), counting: false),
            consume(await notifier.planValues(), counting: false),
            consume(await notifier.aiSettingsValues(), counting: false),
            consume(await notifier.revokeValues(), counting: false),
        ]
        await connection.start()
        try await waitUntil { await connection.acknowledgedChannels.count == 9 }
        return tasks
    }

    static let roleEvent = #"{"eventType":"user/roleChanged","timestamp":"2025-01-26T12:00:00Z","reason":"bench"}"#

    /// Publish → consumer latency, one event at a time; milliseconds (p50, p99).
    static func latency(overWebSocket: Bool, count: Int) async throws -> (p50: Double, p99: Double) {
        let stack = try await start()
        let counter = Counter(recordTimes: true)
        let consumers = try await stack.subscribeNine(counter)
        let channel = try RoleChangeEventsSubscription(userId: "bench").channel
        let http = AppSyncHTTPPublisher(endpoint: stack.endpoint, authorization: .apiKey(publisherKey))
        let ws = AppSyncConnection(configuration: AppSyncConfiguration(endpoint: stack.endpoint, authorization: .apiKey(publisherKey)), logger: quiet)
        if overWebSocket {
            await ws.start()
            try await waitUntil { await ws.state == .connected }
        }
        var sent: [ContinuousClock.Instant] = []
        for index in 0..<count {
            sent.append(.now)
            if overWebSocket { _ = try await ws.publish([roleEvent], to: channel) } else { _ = try await http.publish([roleEvent], to: channel) }
            try await waitUntil { counter.count > index }
        }
        let latencies = zip(sent, counter.arrivals).map { seconds($1 - $0) * 1000 }
        consumers.forEach { $0.cancel() }
        await ws.disconnect()
        await stack.stop()
        let stats = Stats(latencies)
        return (stats.median, stats.percentile(99))
    }

    /// Sustained events/s into one connection: four WebSocket publishers, five events per publish.
    static func throughput(count: Int) async throws -> Double {
        let stack = try await start()
        let counter = Counter()
        let consumers = try await stack.subscribeNine(counter)
        let channel = try RoleChangeEventsSubscription(userId: "bench").channel
        var publishers: [AppSyncConnection] = []
        for _ in 0..<4 {
            let publisher = AppSyncConnection(configuration: AppSyncConfiguration(endpoint: stack.endpoint, authorization: .apiKey(publisherKey)), logger: quiet)
            await publisher.start()
            try await waitUntil { await publisher.state == .connected }
            publishers.append(publisher)
        }
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for publisher in publishers {
                group.addTask {
                    for _ in 0..<(count / 4 / 5) {
                        _ = try await publisher.publish(Array(repeating: roleEvent, count: 5), to: channel)
                    }
                }
            }
            try await group.waitForAll()
        }
        try await waitUntil { counter.count >= count / 20 * 20 }
        let rate = Double(counter.count) / seconds(ContinuousClock.now - start)
        consumers.forEach { $0.cancel() }
        for publisher in publishers { await publisher.disconnect() }
        await stack.stop()
        return rate
    }

    /// Time from an abnormal drop (zero reconnect delay) until all nine subscriptions are acknowledged again; ms.
    static func reconnect(iterations: Int) async throws -> [Double] {
        let stack = try await start(reconnectDelay: .zero)
        let consumers = try await stack.subscribeNine(Counter())
        var samples: [Double] = []
        for iteration in 1...iterations {
            let start = ContinuousClock.now
            await stack.emulator.dropConnections()
            try await waitUntil {
                guard stack.connection.metrics.snapshot().reconnects == iteration else { return false }
                return await stack.connection.acknowledgedChannels.count == 9
            }
            samples.append(seconds(ContinuousClock.now - start) * 1000)
        }
        consumers.forEach { $0.cancel() }
        await stack.stop()
        return samples
    }
}
