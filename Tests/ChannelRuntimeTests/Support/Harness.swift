import AppSyncRuntime
import ChannelRuntime
import ChannelRuntimeTesting
import Foundation
import Logging
import NIOConcurrencyHelpers

/// A connection wired to a manual clock and an in-memory transport.
struct Harness {
    static let endpoint = try! ChannelEndpoint(http: "https://abc123.appsync-api.eu-west-1.amazonaws.com/event")

    let clock = ManualClock()
    let transport: InMemoryTransport
    let connection: AppSyncConnection

    init(
        authorization: ChannelAuthorization = .apiKey("da2-test-key"), offersInboundReader: Bool = true,
        configure: (inout AppSyncConfiguration) -> Void = { _ in }
    ) {
        transport = InMemoryTransport(offersInboundReader: offersInboundReader)
        var configuration = AppSyncConfiguration(endpoint: Self.endpoint, authorization: authorization)
        // The in-memory server answers a ping only when a test says so (`answerPings()`): idle
        // pings are off unless a test is about them, or every silent minute would replace the socket.
        configuration.pingInterval = nil
        configure(&configuration)
        connection = AppSyncConnection(configuration: configuration, transport: transport, clock: clock, logger: Logger(label: "test"))
    }

    /// Returns once the connection's state is `expected`, read from its state updates as they come.
    func waitForState(_ expected: ConnectionState) async throws {
        let connection = self.connection
        guard try await awaiting("state \(expected)", {
            for await state in await connection.stateUpdates() where state == expected { return true }
            return false
        }) else { throw WaitTimedOut(description: "the state updates ended before \(expected)") }
    }

    /// Starts the connection and completes the handshake; returns the server side.
    func connect(timeoutMs: Int = 300_000) async throws -> FakeServer {
        await connection.start()
        let server = try await transport.nextConnection()
        try await server.acceptConnection(timeoutMs: timeoutMs)
        try await waitForState(.connected)
        return server
    }

    /// Lets every task that can run, run.
    func settle() async {
        for _ in 0..<1_000 { await Task.yield() }
    }
}

/// A counter the tests can flip from outside (signed in, token numbers).
final class Flag: Sendable {
    private let box: NIOLockedValueBox<Bool>
    init(_ value: Bool) { box = NIOLockedValueBox(value) }
    var value: Bool {
        get { box.withLockedValue { $0 } }
        set { box.withLockedValue { $0 = newValue } }
    }
}

final class Counter: Sendable {
    private let box = NIOLockedValueBox(0)
    func next() -> Int { box.withLockedValue { $0 += 1; return $0 } }
}

let vortexChannels = [
    "device/presenceChanged", "device/recordingStateChanged", "device/firmwareUpdated", "archive/stateChanged",
    "organization/licensePhaseChanged", "organization/planChanged", "organization/aiSettingsChanged", "roleChanged", "tokenRevoked",
].map { "vortex-app/user/u1/" + $0 }

/// Collects a raw stream's elements in the background.
final class Collector: Sendable {
    private let collected = Watched<[String]>([])
    private let task: NIOLockedValueBox<Task<Void, Never>?> = NIOLockedValueBox(nil)

    init(_ stream: AsyncStream<RawChannelEvent>) {
        let collected = self.collected
        task.withLockedValue { $0 = Task { for await element in stream { collected.update { $0.append(element.text) } } } }
    }

    var elements: [String] { collected.value }

    func cancel() { task.withLockedValue { $0?.cancel() } }

    /// Returns once `count` elements arrived.
    func waitFor(count: Int) async throws {
        try await collected.wait("\(count) elements") { $0.count >= count }
    }
}

extension SubscriptionStatus {
    /// The service's errors of a rejected or failed status.
    var errors: [ServiceError] {
        switch self {
        case .rejected(let errors), .failed(let errors): errors
        case .waitingForParameter, .subscribing, .active, .degraded: []
        }
    }
}
