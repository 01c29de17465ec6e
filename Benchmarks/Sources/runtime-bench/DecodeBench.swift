import AppSyncRuntime
import ChannelRuntime
import Foundation
import VortexEvents

/// Raw `data` frames → typed values delivered to an `AsyncStream` consumer.
/// Ours: one connection, nine subscriptions, the generated notifier. Baseline: JSONSerialization for
/// the envelope + JSONDecoder for the payload, one stream per channel.
enum DecodeBench {
    static let timestamp = Date(timeIntervalSince1970: 1_737_892_800)

    static func presenceEvent(_ n: Int) -> String {
        #"{"eventType":"device/presenceChanged","timestamp":"2025-01-26T12:00:00.123Z","orgId":"org-1","siteId":"site-7","thingName":"cam-\#(n)","derivant":"FD9387-HV","mac":"00:02:D1:AA:BB:01","online":true}"#
    }

    static func archiveEvent(_ n: Int) -> String {
        #"{"eventType":"archive/stateChanged","timestamp":"2025-01-26T12:00:00Z","orgId":"org-1","siteId":"site-7","thingName":"cam-\#(n)","derivant":"FD9387-HV","mac":"00:02:D1:AA:BB:01","status":"Completed","videoLength":42.5,"videoSize":18874368,"cloudSize":18874368,"hasH265":true,"createdAt":"2025-01-26T11:59:00+08:00"}"#
    }

    static func frame(id: String, event: String) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: ["type": "data", "id": id, "event": event], options: [.withoutEscapingSlashes]), as: UTF8.self)
    }

    enum Model: String, CaseIterable { case presence = "DevicePresenceOutput", archive = "ArchiveStateOutput" }

    /// Events per second through the runtime and the generated notifier.
    static func ours(_ model: Model, count: Int) async throws -> Double {
        let transport = AutoServerTransport()
        let connection = AppSyncConnection(
            configuration: AppSyncConfiguration(endpoint: try AppSyncEndpoint(http: "https://bench.appsync-api.us-east-1.amazonaws.com/event"), authorization: .apiKey("k")),
            transport: transport, logger: quiet)
        // A buffer that holds every frame: throughput is measured, not what a slow consumer loses.
        let notifier = BackendNotifier(source: ChannelEventHub(
            connection: connection, parameters: ["userId": try ChannelSegment("bench")], bufferPolicy: .bufferingNewest(count), logger: quiet))
        let counter = Counter()
        var consumers: [Task<Void, Never>] = []
        func consume<E: Sendable>(_ stream: AsyncStream<E>, counting: Bool) -> Task<Void, Never> {
            Task { for await _ in stream { if counting { counter.increment() } } }
        }
        consumers.append(consume(await notifier.devicePresenceValues(), counting: model == .presence))
        consumers.append(consume(await notifier.archiveValues(), counting: model == .archive))
        consumers.append(consume(await notifier.deviceRecordingValues(), counting: false))
        consumers.append(consume(await notifier.deviceFirmwareValues(), counting: false))
        consumers.append(consume(await notifier.licenseValues(), counting: false))
        consumers.append(consume(await notifier.planValues(), counting: false))
        consumers.append(consume(await notifier.aiSettingsValues(), counting: false))
        consumers.append(consume(await notifier.roleValues(), counting: false))
        consumers.append(consume(await notifier.revokeValues(), counting: false))
        await connection.start()
        try await waitUntil { await connection.acknowledgedChannels.count == 9 }
        let channel = model == .presence
            ? try DevicePresenceSubscription(userId: "bench").channel
            : try ArchiveStateEventsSubscription(userId: "bench").channel
        let id = try transport.subscriptionID(for: channel) ?? { throw BenchFailure("no subscription") }()
        let frames = (0..<count).map { frame(id: id, event: model == .presence ? presenceEvent($0) : archiveEvent($0)) }

        let start = ContinuousClock.now
        for frame in frames { transport.push(frame) }
        try await waitUntil { counter.count >= count }
        let elapsed = seconds(ContinuousClock.now - start)
        consumers.forEach { $0.cancel() }
        await connection.disconnect()
        return Double(count) / elapsed
    }

    /// The naive baseline in the same process.
    static func baseline(_ model: Model, count: Int) async throws -> Double {
        let counter = Counter()
        var continuations: [String: (String) throws -> Void] = [:]
        var consumers: [Task<Void, Never>] = []
        func channel<E: Decodable & Sendable>(_ id: String, _ type: E.Type, counting: Bool) {
            let (stream, continuation) = AsyncStream.makeStream(of: E.self, bufferingPolicy: .unbounded)
            consumers.append(Task { for await _ in stream { if counting { counter.increment() } } })
            continuations[id] = { event in continuation.yield(try JSONDecoder().decode(E.self, from: Data(event.utf8))) }
        }
        channel("presence", DevicePresenceOutput.self, counting: model == .presence)
        channel("archive", ArchiveStateOutput.self, counting: model == .archive)
        channel("recording", DeviceRecordingOutput.self, counting: false)
        channel("firmware", DeviceFirmwareOutput.self, counting: false)
        channel("license", LicenseStateOutput.self, counting: false)
        channel("plan", PlanStateOutput.self, counting: false)
        channel("ai", AISettingsOutput.self, counting: false)
        channel("role", RoleChangeOutput.self, counting: false)
        channel("revoke", UserTokenRevokeOutput.self, counting: false)
        let id = model == .presence ? "presence" : "archive"
        let frames = (0..<count).map { frame(id: id, event: model == .presence ? presenceEvent($0) : archiveEvent($0)) }

        let start = ContinuousClock.now
        for frame in frames {
            let envelope = try JSONSerialization.jsonObject(with: Data(frame.utf8)) as? [String: Any] ?? [:]
            guard let id = envelope["id"] as? String, let event = envelope["event"] as? String else { continue }
            try continuations[id]?(event)
        }
        try await waitUntil { counter.count >= count }
        let elapsed = seconds(ContinuousClock.now - start)
        consumers.forEach { $0.cancel() }
        return Double(count) / elapsed
    }
}
