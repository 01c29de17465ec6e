import AppSyncEmulator
import AppSyncRuntime
import ArgumentParser
import ChannelTransports
import Foundation
import Logging
import NIOChannelTransports
import SSERuntime
import URLSessionChannelTransports
import VortexEvents

/// The generated Vortex client end to end: subscribe to the user's nine channels, publish one
/// sample event per channel over HTTP, print the nine typed events as they arrive.
@main
struct VortexDemo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vortex-demo",
        abstract: "Run the generated BackendNotifier against the embedded AppSync Events emulator, or a real API.",
        discussion: """
            With no options it starts the emulator in this process. With --endpoint it uses that Event API:
              vortex-demo --endpoint https://<id>.appsync-api.<region>.amazonaws.com/event --api-key da2-… --user-id <id>
            (or --token <jwt> instead of --api-key).
            With --transport sse the same generated notifier runs on Server-Sent Events from the
            Mercure hub at /.well-known/mercure (the embedded emulator serves one).
            websocket and sse use the platform's default clients (URLSession on Apple platforms,
            SwiftNIO elsewhere); the -nio and -urlsession choices name the client (and the HTTP
            publisher's) explicitly. The -urlsession choices need an Apple platform: URLSession's
            adapters are not offered on Linux, where FoundationNetworking's WebSocket does not connect
            and its HTTP can trap under a flood.
            With --stay the streams stay open after the nine events until interrupted (Ctrl-C),
            printing events and connection states (with close codes) as they come; with the
            embedded emulator it prints the address of its console (a page to watch and publish). In every mode,
            SIGUSR1 tells the connection that the network path changed, as a path monitor would:
              kill -USR1 <pid>
            """)

    enum Transport: String, ExpressibleByArgument, CaseIterable {
        case websocket, sse
        case websocketNIO = "websocket-nio", websocketURLSession = "websocket-urlsession"
        case sseNIO = "sse-nio", sseURLSession = "sse-urlsession"

        var isSSE: Bool { [.sse, .sseNIO, .sseURLSession].contains(self) }

        /// Whether the clients are named (`nil`: the platform's defaults) and which.
        var usesURLSession: Bool? {
            switch self {
            case .websocket, .sse: nil
            case .websocketNIO, .sseNIO: false
            case .websocketURLSession, .sseURLSession: true
            }
        }
    }

    @Option(help: "How events arrive: websocket (AppSync Events) or sse (a Mercure hub), optionally with the client named: websocket-nio, websocket-urlsession, sse-nio, sse-urlsession.")
    var transport: Transport = .websocket

    @Option(help: "HTTP endpoint of a real Event API (…/event). Omit to use the embedded emulator.")
    var endpoint: String?

    @Option(help: "API key for the real API.")
    var apiKey: String?

    @Option(help: "JWT (Cognito/OIDC) or Lambda token for the real API.")
    var token: String?

    @Option(help: "The user whose nine channels are used.")
    var userId = "demo-user-1"

    @Option(help: "Seconds to wait for the nine events.")
    var timeout: Double = 10

    @Flag(help: "Log the runtime's debug messages (--log-level debug).")
    var verbose = false

    @Option(help: "The runtime's log level: trace (also one line per frame and per event: channel, type, size, sequence, id; never a payload or a credential), debug, info, notice, warning, error or critical. Default: debug with --verbose, else critical.")
    var logLevel: Logger.Level?

    @Flag(help: "Keep the streams open after the nine events until interrupted, printing events and connection states.")
    var stay = false

    mutating func validate() throws {
        #if !canImport(Darwin)
        if transport == .websocketURLSession {
            throw ValidationError("websocket-urlsession needs an Apple platform: FoundationNetworking's WebSocket does not connect on Linux; use websocket or websocket-nio")
        }
        if transport == .sseURLSession {
            throw ValidationError("sse-urlsession needs an Apple platform: URLSession's adapters are not offered on Linux (FoundationNetworking can trap under a flood); use sse or sse-nio")
        }
        #endif
        if endpoint != nil && (apiKey == nil) == (token == nil) {
            throw ValidationError("with --endpoint, pass exactly one of --api-key or --token")
        }
        if endpoint == nil && (apiKey != nil || token != nil) {
            throw ValidationError("--api-key and --token need --endpoint")
        }
    }

    func run() async throws {
        var logger = Logger(label: "vortex-demo")
        logger.logLevel = logLevel ?? (verbose ? .debug : .critical)

        // 1. Where to connect, and as whom.
        var stopEmulator: () async -> Void = {}
        let httpEndpoint: String
        let subscriberAuthorization: ChannelAuthorization
        let publisherAuthorization: ChannelAuthorization
        if let endpoint {
            httpEndpoint = endpoint
            subscriberAuthorization = apiKey.map { .apiKey($0) } ?? .token { [token] in token ?? "" }
            publisherAuthorization = subscriberAuthorization
        } else {
            #if Emulator
            let secret = "vortex-demo-jwt-secret-0123456789abcdef"
            let publisherKey = "da2-vortex-demo-publisher"
            let local = AppSyncEmulator(
                configuration: EmulatorConfiguration(namespaces: ["vortex-app"], apiKeys: [publisherKey], jwtSecret: secret),
                logger: logger)
            httpEndpoint = try await local.start().absoluteString
            let userToken = try await local.token(forUser: userId)
            subscriberAuthorization = .token { userToken }  // a user may read only their own channels
            publisherAuthorization = .apiKey(publisherKey)   // the backend publishes
            stopEmulator = { await local.stop() }
            say("Embedded AppSync Events emulator at \(httpEndpoint)")
            if stay, let console = local.console {
                say("Console: \(console) (publish there with API key \(publisherKey))")
            }
            #else
            throw ValidationError(EmulatorTrait.missingMessage + ", or pass --endpoint")
            #endif
        }
        do {
            try await demo(httpEndpoint: httpEndpoint, subscriber: subscriberAuthorization, publisher: publisherAuthorization, logger: logger)
        } catch {
            await stopEmulator()
            throw error
        }
        await stopEmulator()
    }

    private func demo(httpEndpoint: String, subscriber subscriberAuthorization: ChannelAuthorization, publisher publisherAuthorization: ChannelAuthorization, logger: Logger) async throws {
        // 2. The generated notifier on one connection; the transport is configuration, not a regenerate.
        let appSync = try ChannelEndpoint(http: httpEndpoint)
        let connection: any DemoConnection
        switch (transport.isSSE, transport.usesURLSession) {
        case (false, let urlSession):
            let configuration = AppSyncConfiguration(endpoint: appSync, authorization: subscriberAuthorization)
            connection = switch urlSession {
            case nil: AppSyncConnection(configuration: configuration, logger: logger)
            case true?: AppSyncConnection(configuration: configuration, transport: URLSessionWebSocketTransport(evenOnLinux: 1 << 21), logger: logger)
            case false?: AppSyncConnection(configuration: configuration, transport: WSClientTransport(logger: logger), logger: logger)
            }
        case (true, let urlSession):
            let configuration = SSEConfiguration(endpoint: appSync, authorization: subscriberAuthorization)
            connection = switch urlSession {
            case nil: SSEConnection(configuration: configuration, logger: logger)
            case true?: SSEConnection(configuration: configuration, transport: URLSessionEventStreamTransport(evenOnLinux: 256 * 1024), logger: logger)
            case false?: SSEConnection(configuration: configuration, transport: NIOEventStreamTransport(), logger: logger)
            }
        }
        let notifier = BackendNotifier(source: ChannelEventHub(connection: connection, logger: logger))
        try await notifier.setUserId(userId)
        let pathChanges = Signals.networkPathChanges(to: connection)
        defer { pathChanges.cancel() }
        let states = stay ? Task { for await state in await connection.stateUpdates() { say("connection: \(Self.describe(state))") } } : nil
        defer { states?.cancel() }
        await connection.start()

        let received = Received()
        let consumers = startConsumers(notifier, received)
        defer { consumers.forEach { $0.cancel() } }

        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        guard await waitUntil(deadline, { await connection.acknowledgedChannels.count == 9 }) else {
            let state = await connection.state
            await connection.disconnect()
            throw DemoFailure("the nine subscriptions were not acknowledged within \(timeout) s (connection: \(state))")
        }
        print("Subscribed to 9 channels of user \(userId) on one \(transport.isSSE ? "Server-Sent Events stream" : "WebSocket")")

        // 3. One sample event per channel, over HTTP, as the backend would publish them.
        for (channel, event) in try Samples.events(userId: userId) {
            // `--timeout` bounds the publishes too, however slowly a server answers.
            let remaining = max(deadline - ContinuousClock.now, .milliseconds(1))
            let client: any HTTPPostClient = switch transport.usesURLSession {
            case true?: URLSessionPostClient(evenOnLinux: 64 * 1024, timeout: remaining)
            case false?: NIOHTTPPostClient(timeout: remaining)
            case nil:
                #if canImport(Darwin)
                URLSessionPostClient(timeout: remaining)
                #else
                NIOHTTPPostClient(timeout: remaining)
                #endif
            }
            let publisher = AppSyncHTTPPublisher(endpoint: appSync, authorization: publisherAuthorization, client: client)
            let result = try await publisher.publish([event], to: channel)
            guard result.failed.isEmpty else { throw DemoFailure("publishing to \(channel) failed: \(result.failed)") }
        }

        // 4. Wait for the nine typed events.
        let complete = await waitUntil(deadline) { await received.count >= 9 }
        guard complete else {
            await connection.disconnect()
            throw DemoFailure("only \(await received.count) of 9 events arrived within \(timeout) s")
        }
        print("All 9 events arrived, typed and decoded.")
        if stay {
            say("Staying connected (pid \(ProcessInfo.processInfo.processIdentifier)): Ctrl-C stops, kill -USR1 tells it the network path changed.")
            await Signals.interrupt()
        }
        await connection.disconnect()
    }

    private func startConsumers(_ notifier: BackendNotifier, _ received: Received) -> [Task<Void, Never>] {
        func consume<Event: Sendable>(_ stream: @escaping @Sendable () async -> AsyncStream<Event>) -> Task<Void, Never> {
            Task {
                for await event in await stream() { await received.record(Samples.describe(event)) }
            }
        }
        return [
            consume(notifier.devicePresenceValues), consume(notifier.deviceRecordingValues),
            consume(notifier.deviceFirmwareValues), consume(notifier.archiveValues), consume(notifier.licenseValues),
            consume(notifier.planValues), consume(notifier.aiSettingsValues), consume(notifier.roleValues),
            consume(notifier.revokeValues),
        ]
    }

    /// A connection state as the demo prints it: why it ended, in words.
    static func describe(_ state: ConnectionState) -> String {
        switch state {
        case .reconnecting(let after, let end): "reconnecting in \(after) (\(end))"
        case .closed(let end): "closed for good (\(end)); start() would connect again"
        case .failed(let failure): "failed (\(failure))"
        case .idle, .connecting, .connected, .waitingForNetwork, .suspended, .disconnected: "\(state)"
        }
    }

    private func waitUntil(_ deadline: ContinuousClock.Instant, _ condition: @Sendable () async -> Bool) async -> Bool {
        while ContinuousClock.now < deadline {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return await condition()
    }
}

/// What the demo needs of either transport's connection.
protocol DemoConnection: ChannelConnection {
    func start() async
    func disconnect() async
    func networkPathChanged(available: Bool) async
    var acknowledgedChannels: [String] { get async }
}

extension AppSyncConnection: DemoConnection {}
extension SSEConnection: DemoConnection {}

/// Prints each typed event as it arrives and counts them.
actor Received {
    private(set) var count = 0

    func record(_ line: String) {
        count += 1
        say("  \(count). \(line)")
    }
}

/// Prints a line at once, also into a pipe (`--stay` runs until interrupted).
func say(_ line: String) {
    print(line)
    fflush(nil)
}

struct DemoFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = "vortex-demo: " + description }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
