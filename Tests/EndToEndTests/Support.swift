import AppSyncEmulator
import AppSyncRuntime
import ChannelRuntime
import ChannelRuntimeTesting
import Foundation
import Logging
import NIOChannelTransports
import VortexEvents

/// Connect and operation bound for loopback clients in tests that count connections, streams or
/// dropped frames: a CI machine busy compiling can take longer than the production bounds (15 s)
/// to finish a handshake, and the reconnect that follows would be counted. Tests of the bounds set
/// their own.
let boundForLoadedMachines: Duration = .seconds(120)

extension AppSyncHTTPPublisher {
    /// A publisher for loopback tests whose publishes are not about time: it waits
    /// `boundForLoadedMachines` for an answer instead of the production 30 s. A clean-clone CI run
    /// saw seven such publishes, in seven tests at once, time out while the machine stalled.
    static func forLoadedMachines(endpoint: ChannelEndpoint, authorization: ChannelAuthorization) -> AppSyncHTTPPublisher {
        AppSyncHTTPPublisher(endpoint: endpoint, authorization: authorization, client: NIOHTTPPostClient(timeout: boundForLoadedMachines))
    }
}

extension AppSyncConfiguration {
    /// Connect, operation, idle-ping and keep-alive bounds for a stalled machine: a test not about
    /// liveness keeps its connection while the machine stalls (scripted servers answer no ping, and
    /// the emulator, in the test's process, sends no `ka` while its tasks wait for a thread). The
    /// keep-alive interval is the bound, so a session is taken for dead after twice that of silence.
    mutating func allowForLoadedMachines() {
        connectTimeout = boundForLoadedMachines
        operationTimeout = boundForLoadedMachines
        pingTimeout = boundForLoadedMachines
        keepAliveInterval = boundForLoadedMachines
    }
}

/// Waits (polling) until `condition` holds; the bound turns a hang into a failure and is not a
/// timing assertion. It is generous because the whole test run shares two cores: conditions that
/// hold within milliseconds alone have taken over twenty seconds there while compilers ran.
func waitFor(_ what: String, within seconds: Double = 120, _ condition: @Sendable () async -> Bool) async throws {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if await condition() { return }
        try await Task.sleep(for: .milliseconds(5))
    }
    if await condition() { return }
    throw WaitTimedOut(description: "gave up waiting for \(what)")
}

extension AppSyncEmulator {
    /// Returns once the emulator's activity (its WebSocket counts) satisfies `condition`, read from
    /// its updates as they come: an await, not a poll. The bound turns a hang into a failure.
    func untilActivity(_ what: String, _ condition: @escaping @Sendable (EmulatorActivity) -> Bool) async throws {
        let updates = activityUpdates()
        try await lastLook({ await self.latestActivity.map(condition) ?? false }) {
            let held = try await awaiting(what) {
                for await activity in updates where condition(activity) { return true }
                return false
            }
            if !held { throw WaitTimedOut(description: "the emulator stopped before \(what)") }
        }
    }

    /// The activity now: a new updates stream starts with the latest counts, even after `stop()`
    /// (the `nil` is only for the compiler; the first element always comes).
    private var latestActivity: EmulatorActivity? {
        get async {
            for await activity in activityUpdates() { return activity }
            return nil
        }
    }
}

/// The generated notifier, the runtime and the emulator, over real sockets on 127.0.0.1.
struct Stack {
    static let secret = "end-to-end-test-jwt-secret-0123456789"
    static let publisherKey = "da2-publisher"

    let emulator: AppSyncEmulator
    let endpoint: ChannelEndpoint
    let connection: AppSyncConnection
    let notifier: BackendNotifier

    static func start(
        user: String = "alice",
        emulatorConfiguration: (inout EmulatorConfiguration) -> Void = { _ in },
        authorization: ((AppSyncEmulator) -> ChannelAuthorization)? = nil,
        configure: (inout AppSyncConfiguration) -> Void = { _ in }
    ) async throws -> Stack {
        var emulatorSettings = EmulatorConfiguration(namespaces: ["vortex-app"], apiKeys: [publisherKey], jwtSecret: secret)
        emulatorConfiguration(&emulatorSettings)
        let emulator = AppSyncEmulator(configuration: emulatorSettings, logger: Logger(label: "emulator") { _ in SwiftLogNoOpLogHandler() })
        let endpoint = try ChannelEndpoint(http: try await emulator.start())
        let token = try await emulator.token(forUser: user)
        var configuration = AppSyncConfiguration(endpoint: endpoint, authorization: authorization?(emulator) ?? .token { token })
        configuration.reconnectPolicy = .fixed(.milliseconds(100))
        configuration.allowForLoadedMachines()
        configure(&configuration)
        let connection = AppSyncConnection(configuration: configuration, logger: Logger(label: "client") { _ in SwiftLogNoOpLogHandler() })
        let notifier = BackendNotifier(source: ChannelEventHub(connection: connection, logger: Logger(label: "hub") { _ in SwiftLogNoOpLogHandler() }))
        try await notifier.setUserId(user)
        return Stack(emulator: emulator, endpoint: endpoint, connection: connection, notifier: notifier)
    }

    var publisher: AppSyncHTTPPublisher { .forLoadedMachines(endpoint: endpoint, authorization: .apiKey(Self.publisherKey)) }

    func stop() async {
        await connection.disconnect()
        await emulator.stop()
    }
}

func json(_ value: some Encodable) throws -> String {
    String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
}
