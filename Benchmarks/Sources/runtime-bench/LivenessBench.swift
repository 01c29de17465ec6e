import AppSyncEmulator
import AppSyncRuntime
import ArgumentParser
import ChannelRuntime
import Foundation
import SSERuntime

/// How long a dead connection with no network path signal lasts: the server freezes (the socket
/// open, nothing sent, pings unanswered) right after the client subscribed, and no path change is
/// reported; measured from the freeze to the client's next connection (WebSocket) or stream (SSE),
/// in real time with the default settings unless an option changes them.
struct Liveness: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Seconds from a server freezing (no path signal) to the client's next connection.")

    enum Transport: String, ExpressibleByArgument, CaseIterable { case websocket, sse }

    @Option(help: "websocket or sse.")
    var transport: Transport = .websocket

    @ArgumentParser.Flag(help: "No idle pings (WebSocket): the keep-alive bound alone.")
    var noPing = false

    @Option(help: "The keep-alive interval the WebSocket client assumes, seconds; 300 gives the rule before idle pings (the announced 300 s alone).")
    var keepAliveInterval = 60

    func run() async throws {
        let emulator = AppSyncEmulator(configuration: EmulatorConfiguration(apiKeys: [Loopback.publisherKey]), logger: quiet)
        let endpoint = try ChannelEndpoint(http: try await emulator.start())
        let authorization = ChannelAuthorization.apiKey(Loopback.publisherKey)
        let channel = "default/liveness"
        let connection: any BenchConnection
        let subscription: RawChannelSubscription
        switch transport {
        case .websocket:
            var configuration = AppSyncConfiguration(endpoint: endpoint, authorization: authorization)
            if noPing { configuration.pingInterval = nil }
            configuration.keepAliveInterval = .seconds(keepAliveInterval)
            let appSync = AppSyncConnection(configuration: configuration, logger: quiet)
            (connection, subscription) = (appSync, try await appSync.subscribe(to: channel))
        case .sse:
            let sse = SSEConnection(configuration: SSEConfiguration(endpoint: endpoint, authorization: authorization), logger: quiet)
            (connection, subscription) = (sse, try await sse.subscribe(to: channel))
        }
        let consumer = Task { for await _ in subscription.events {} }
        defer { consumer.cancel() }
        await connection.start()
        try await waitUntil { await connection.acknowledgedChannels.count == 1 }

        let sse = transport == .sse
        func opened() async -> Int { sse ? emulator.eventStreamsOpened : await emulator.connectionsAccepted }
        let before = await opened()
        let frozen = ContinuousClock.now
        if sse { emulator.stallEventStreams() } else { await emulator.freezeConnections() }
        while await opened() == before { try await Task.sleep(for: .milliseconds(100)) }
        let replaced = seconds(ContinuousClock.now - frozen)
        print(String(format: "transport=%@ pings=%@ keep_alive_interval=%d replaced_after_s=%.1f", transport.rawValue,
                     transport == .sse ? "n/a" : (noPing ? "off" : "on"), keepAliveInterval, replaced))
        await connection.disconnect()
        await emulator.stop()
    }
}
