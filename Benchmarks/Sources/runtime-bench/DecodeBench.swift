import AppSyncRuntime
@_spi(Generated) import ChannelRuntime
import Foundation
import VortexEvents

/// Raw `data` frames → typed values delivered to an `AsyncStream` consumer, for each of the nine
/// Vortex models. Ours: one connection, nine subscriptions, the generated notifier. Baseline:
/// JSONSerialization for the envelope + JSONDecoder for the payload, one stream per channel.
enum DecodeBench {
    /// One model: a payload as the backend sends it, its subscription's channel and how to count it.
    struct Model: Sendable {
        let name: String
        let payload: @Sendable (Int) -> String
        let channel: @Sendable () throws -> String
        let decodeNaively: @Sendable (Data) throws -> any Sendable
        /// The runtime's fast path alone (`ScannerDecoding`: the model's own `Codable` read
        /// straight from the bytes), no fallback.
        let readFast: @Sendable (ScannerDecoding, String) throws -> any Sendable
    }

    static let device = #""orgId":"org-1","siteId":"site-7","derivant":"FD9387-HV","mac":"00:02:D1:AA:BB:01""#

    static func model<Event: Decodable & Sendable>(
        _ type: Event.Type, channel: @escaping @Sendable () throws -> String, payload: @escaping @Sendable (Int) -> String
    ) -> Model {
        Model(
            name: "\(Event.self)", payload: payload, channel: channel,
            decodeNaively: { try JSONDecoder().decode(Event.self, from: $0) },
            readFast: { reader, text in
                guard let value = reader.read(Event.self, from: text) else { throw CancellationError() }
                return value
            })
    }

    static let models: [Model] = [
        model(DevicePresenceOutput.self, channel: { try DevicePresenceSubscription(userId: "bench").channel }) {
            #"{"eventType":"device/presenceChanged","timestamp":"2025-01-26T12:00:00.123Z",\#(device),"thingName":"cam-\#($0)","online":true}"#
        },
        model(DeviceRecordingOutput.self, channel: { try DeviceRecordingSubscription(userId: "bench").channel }) {
            #"{"eventType":"device/recordingStateChanged","timestamp":"2025-01-26T12:00:00Z",\#(device),"thingName":"cam-\#($0)","recording":false}"#
        },
        model(DeviceFirmwareOutput.self, channel: { try DeviceFirmwareSubscription(userId: "bench").channel }) {
            #"{"eventType":"device/firmwareUpdated","timestamp":"2025-01-26T12:00:00.5+01:00",\#(device),"thingName":"cam-\#($0)","fwUpdateState":3}"#
        },
        model(ArchiveStateOutput.self, channel: { try ArchiveStateEventsSubscription(userId: "bench").channel }) {
            #"{"eventType":"archive/stateChanged","timestamp":"2025-01-26T12:00:00Z",\#(device),"thingName":"cam-\#($0)","status":"Completed","videoLength":42.5,"videoSize":18874368,"cloudSize":18874368,"hasH265":true,"createdAt":"2025-01-26T11:59:00+08:00"}"#
        },
        model(LicenseStateOutput.self, channel: { try LicensePhaseSubscription(userId: "bench").channel }) {
            #"{"eventType":"organization/licensePhaseChanged","timestamp":"2025-01-26T12:00:00Z","orgId":"org-\#($0)","licensePhase":"GracePeriod"}"#
        },
        model(PlanStateOutput.self, channel: { try PlanTypeSubscription(userId: "bench").channel }) {
            #"{"eventType":"organization/planChanged","timestamp":"2025-01-26T12:00:00Z","orgId":"org-\#($0)","isFreePlan":false}"#
        },
        model(AISettingsOutput.self, channel: { try AISettingsSubscription(userId: "bench").channel }) {
            #"{"eventType":"organization/aiSettingsChanged","timestamp":"2025-01-26T12:00:00Z","orgId":"org-\#($0)","aiControlSetting":{"uuid":"5f0c2a7e-1b9d-4c3e-8f21-6a7b9c0d1e2f","termsAgreement":true,"options":{"faceDetection":true,"licensePlates":false,"audioEvents":true}}}"#
        },
        model(RoleChangeOutput.self, channel: { try RoleChangeEventsSubscription(userId: "bench").channel }) {
            #"{"eventType":"user/roleChanged","timestamp":"2025-01-26T12:00:00Z","orgId":"org-\#($0)","reason":"promoted to administrator"}"#
        },
        model(UserTokenRevokeOutput.self, channel: { try UserTokenRevokeEventsSubscription(userId: "bench").channel }) {
            #"{"eventType":"user/tokenRevoked","timestamp":"2025-01-26T12:00:00Z","userId":"bench","revokedAt":"2025-01-26T12:00:00.250Z","reason":"PASSWORD_CHANGED","requestId":"req-\#($0)"}"#
        },
    ]

    /// Payloads other benchmarks share.
    static func presenceEvent(_ n: Int) -> String { models[0].payload(n) }
    static func archiveEvent(_ n: Int) -> String { models[3].payload(n) }

    /// A `data` frame as AppSync sends it: the event as an escaped JSON string. (The payloads hold
    /// no control characters, so quotes and backslashes are all there is to escape.)
    static func frame(id: String, event: String) -> String {
        var bytes = Array(#"{"type":"data","id":""#.utf8) + Array(id.utf8) + Array(#"","event":""#.utf8)
        for byte in event.utf8 {
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { bytes.append(UInt8(ascii: "\\")) }
            bytes.append(byte)
        }
        bytes += Array(#""}"#.utf8)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Events per second through the runtime and the generated notifier.
    static func ours(_ model: Model, count: Int) async throws -> Throughput {
        let transport = AutoServerTransport()
        let connection = AppSyncConnection(
            configuration: AppSyncConfiguration(endpoint: try ChannelEndpoint(http: "https://bench.appsync-api.us-east-1.amazonaws.com/event"), authorization: .apiKey("k")),
            transport: transport, logger: quiet)
        // A buffer that holds every frame: throughput is measured, not what a slow consumer loses.
        let notifier = BackendNotifier(source: ChannelEventHub(
            connection: connection, parameters: ["userId": try ChannelSegment("bench")], bufferPolicy: .bufferingNewest(count), logger: quiet))
        let counter = Counter()
        var consumers: [Task<Void, Never>] = []
        // Every stream has a consumer; only the measured model's frames are sent, so only it counts.
        func consume<E: Sendable>(_ stream: AsyncStream<E>) {
            consumers.append(Task { for await _ in stream { counter.increment() } })
        }
        consume(await notifier.devicePresenceValues())
        consume(await notifier.deviceRecordingValues())
        consume(await notifier.deviceFirmwareValues())
        consume(await notifier.archiveValues())
        consume(await notifier.licenseValues())
        consume(await notifier.planValues())
        consume(await notifier.aiSettingsValues())
        consume(await notifier.roleValues())
        consume(await notifier.revokeValues())
        await connection.start()
        try await waitUntil { await connection.acknowledgedChannels.count == 9 }
        let id = try transport.subscriptionID(for: try model.channel()) ?? { throw BenchFailure("no subscription") }()
        let frames = (0..<count).map { frame(id: id, event: model.payload($0)) }

        let result = try await Throughput.measure(count: count) {
            // At most 8 000 frames wait to be decoded: the runtime bounds that queue at 10 000
            // (`ConnectionDriver.undecodedLimit`), and a frame it drops would never be counted.
            var sent = 0
            while sent < count {
                let end = min(count, sent + 4_000)
                while sent < end {
                    transport.push(frames[sent])
                    sent += 1
                }
                let behind = sent - 4_000
                try await waitUntil { counter.count >= behind }
            }
            try await waitUntil { counter.count >= count }
        }
        consumers.forEach { $0.cancel() }
        await connection.disconnect()
        guard counter.count == count else { throw BenchFailure("\(model.name): \(counter.count) events for \(count) frames") }
        return result
    }

    /// The naive baseline in the same process: one stream per channel, the envelope through
    /// JSONSerialization, the payload through a JSONDecoder.
    static func baseline(_ model: Model, count: Int) async throws -> Throughput {
        let counter = Counter()
        var continuations: [String: AsyncStream<any Sendable>.Continuation] = [:]
        var consumers: [Task<Void, Never>] = []
        for other in models {
            let (stream, continuation) = AsyncStream.makeStream(of: (any Sendable).self, bufferingPolicy: .unbounded)
            consumers.append(Task { for await _ in stream { counter.increment() } })
            continuations[other.name] = continuation
        }
        let frames = (0..<count).map { frame(id: model.name, event: model.payload($0)) }

        let result = try await Throughput.measure(count: count) {
            for frame in frames {
                let envelope = try JSONSerialization.jsonObject(with: Data(frame.utf8)) as? [String: Any] ?? [:]
                guard let id = envelope["id"] as? String, let event = envelope["event"] as? String else { continue }
                continuations[id]?.yield(try model.decodeNaively(Data(event.utf8)))
            }
            try await waitUntil { counter.count >= count }
        }
        consumers.forEach { $0.cancel() }
        return result
    }
}
