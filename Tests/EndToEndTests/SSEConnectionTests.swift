import AppSyncEmulator
import AppSyncRuntime
import ChannelRuntime
import ChannelTransports
import Foundation
import Logging
import NIOChannelTransports
import NIOConcurrencyHelpers
import SSERuntime
import Testing
import VortexEvents
import ChannelRuntimeTesting

/// The SSE transport against the emulator's Mercure hub over real sockets: resume across drops,
/// the server's delays and refusals, the heartbeat watchdog, channel set changes.
@Suite("SSE connection against the emulator")
struct SSEConnectionTests {
    static let publisherKey = "da2-publisher"
    /// Silent; `SSE_TEST_LOG=1` prints the runtime's debug log.
    static let quiet: Logger = {
        guard ProcessInfo.processInfo.environment["SSE_TEST_LOG"] != nil else { return Logger(label: "sse-test") { _ in SwiftLogNoOpLogHandler() } }
        var logger = Logger(label: "sse-test") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = .debug
        return logger
    }()

    struct Setup {
        let emulator: AppSyncEmulator
        let endpoint: ChannelEndpoint
        let connection: SSEConnection

        var publisher: AppSyncHTTPPublisher { .forLoadedMachines(endpoint: endpoint, authorization: .apiKey(SSEConnectionTests.publisherKey)) }

        func stop() async {
            await connection.disconnect()
            await emulator.stop()
        }
    }

    static func start(
        emulator configureEmulator: (inout EmulatorConfiguration) -> Void = { _ in },
        authorization: ChannelAuthorization = .apiKey(publisherKey),
        _ configure: (inout SSEConfiguration) -> Void = { _ in }
    ) async throws -> Setup {
        var emulatorSettings = EmulatorConfiguration(namespaces: ["app", "vortex-app"], apiKeys: [publisherKey], jwtSecret: "sse-test-jwt-secret-0123456789abcdef")
        emulatorSettings.eventStreamRetry = .milliseconds(50)
        configureEmulator(&emulatorSettings)
        let emulator = AppSyncEmulator(configuration: emulatorSettings, logger: quiet)
        let endpoint = try ChannelEndpoint(http: try await emulator.start())
        var configuration = SSEConfiguration(endpoint: endpoint, authorization: authorization)
        configuration.reconnectPolicy = .fixed(.milliseconds(50))
        configuration.connectTimeout = boundForLoadedMachines
        configure(&configuration)
        return Setup(emulator: emulator, endpoint: endpoint, connection: SSEConnection(configuration: configuration, logger: quiet))
    }

    static func event(_ index: Int) -> String { "{\"n\":\(index)}" }
    static func index(_ event: RawChannelEvent) -> Int? {
        (try? JSONSerialization.jsonObject(with: Data(event.text.utf8)) as? [String: Int])?["n"]
    }

    @Test func aDropWhile1000EventsArePublishedLosesAndRepeatsNone() async throws {
        let setup = try await Self.start()
        let subscription = try await setup.connection.subscribe(to: "/app/orders/eu")
        let received = Collected { subscription.events }
        await setup.connection.start()
        try await untilPublished(by: setup.connection, "the stream") { await setup.connection.acknowledgedChannels == ["/app/orders/eu"] }

        // 1 000 events, five per publish; the stream is dropped after the first 300 are published.
        for batch in stride(from: 0, to: 1000, by: 5) {
            if batch == 300 {
                try await received.wait("some events before the drop") { $0.count > 0 }
                await setup.emulator.dropConnections()
            }
            let result = try await setup.publisher.publish((batch..<batch + 5).map(Self.event), to: "/app/orders/eu")
            #expect(result.failed.isEmpty)
        }
        // A last event after everything: once it is in, anything repeated would be in too.
        _ = try await setup.publisher.publish([Self.event(1000)], to: "/app/orders/eu")
        try await received.wait("all events") { $0.last.flatMap(Self.index) == 1000 }

        #expect(received.elements.compactMap(Self.index) == Array(0...1000))
        #expect(setup.emulator.eventStreamsOpened >= 2)  // the drop really happened
        #expect(setup.connection.metrics.snapshot().reconnects >= 1)
        await setup.stop()
        received.cancel()
    }

    @Test func theStreamIsReopenedWithANewChannelAndNothingIsLostMeanwhile() async throws {
        let setup = try await Self.start()
        let first = try await setup.connection.subscribe(to: "/app/a")
        let firstEvents = Collected { first.events }
        await setup.connection.start()
        try await untilPublished(by: setup.connection, "the first channel") { await setup.connection.acknowledgedChannels == ["/app/a"] }

        let second = try await setup.connection.subscribe(to: "/app/b")
        let secondEvents = Collected { second.events }
        // Published while the stream is being reopened: Last-Event-ID brings these back.
        for index in 0..<20 { _ = try await setup.publisher.publish([Self.event(index)], to: "/app/a") }
        try await untilPublished(by: setup.connection, "both channels") { await setup.connection.acknowledgedChannels == ["/app/a", "/app/b"] }
        _ = try await setup.publisher.publish([Self.event(0)], to: "/app/b")
        _ = try await setup.publisher.publish([Self.event(20)], to: "/app/a")

        try await firstEvents.wait("the events") { $0.count >= 21 }
        try await secondEvents.wait("the second's event") { $0.count >= 1 }
        #expect(firstEvents.elements.compactMap(Self.index) == Array(0...20))
        #expect(secondEvents.elements.compactMap(Self.index) == [0])
        #expect(setup.emulator.eventStreamsOpened == 2)  // one reopen for the new channel
        await setup.stop()
        firstEvents.cancel()
        secondEvents.cancel()
    }

    /// A new channel reopens the stream (its channels are in the request), and that is no drop: the
    /// app sees `.connected` and the first subscription `.active` throughout, and the log says the
    /// channel set changed, not that the connection ended. On a manual clock: a reopen that takes
    /// longer than 2 s is told as a reconnect (`RenewalTests`), so on the real clock a busy machine
    /// would decide this test's verdict.
    @Test func aNewChannelReopensTheStreamWithoutAStatusFlashAndIsLoggedAsWhatItIs() async throws {
        let lines = NIOLockedValueBox<[String]>([])
        let logger = Logger(label: "sse") { _ in LineCapture(lines: lines) }
        let setup = try await Self.start()
        let configuration = SSEConfiguration(endpoint: setup.endpoint, authorization: .apiKey(Self.publisherKey))
        let clock = ManualClock()
        let connection = SSEConnection(configuration: configuration, clock: clock, logger: logger)
        let first = try await connection.subscribe(to: "/app/a")
        let firstEvents = Collected { first.events }
        await connection.start()
        try await untilPublished(by: connection, "the first channel") { await connection.acknowledgedChannels == ["/app/a"] }
        try await untilPublished(by: connection, "the first active") { await connection.status(ofSubscription: first.id) == .active }
        let states = Collected { await connection.stateUpdates() }
        let statuses = Collected { await connection.statusUpdates(ofSubscription: first.id) }
        try await states.wait("the current state") { $0 == [.connected] }
        try await statuses.wait("the current status") { $0 == [.active] }

        let second = try await connection.subscribe(to: "/app/b")
        let secondEvents = Collected { second.events }
        try await clock.waitForSleeper(until: .milliseconds(20))  // subscribes within 20 ms are one reopen
        clock.advance(by: .milliseconds(20))
        try await untilPublished(by: connection, "both channels") { await connection.acknowledgedChannels == ["/app/a", "/app/b"] }
        _ = try await setup.publisher.publish([Self.event(1)], to: "/app/b")
        _ = try await setup.publisher.publish([Self.event(2)], to: "/app/a")
        try await secondEvents.wait("the second's event") { $0.count == 1 }
        try await firstEvents.wait("the first's event") { $0.count == 1 }
        #expect(setup.emulator.eventStreamsOpened == 2)  // it was reopened
        #expect(states.elements == [.connected])
        #expect(statuses.elements == [.active])
        #expect(connection.metrics.snapshot().reconnects == 0)
        let logged = lines.withLockedValue { $0 }
        #expect(logged.contains { $0.hasPrefix("info the channel set changed") }, "\(logged)")
        #expect(!logged.contains { $0.contains("the connection ended") }, "\(logged)")
        await connection.disconnect()
        await setup.stop()
        for collected in [firstEvents, secondEvents] { collected.cancel() }
        states.cancel()
        statuses.cancel()
    }

    @Test func a429WithRetryAfterIsWaitedOutThenTheStreamOpens() async throws {
        let setup = try await Self.start()
        setup.emulator.refuseNextEventStreams(1, status: 429, retryAfterSeconds: 1)
        let states = Collected { await setup.connection.stateUpdates() }
        let subscription = try await setup.connection.subscribe(to: "/app/a")
        defer { withExtendedLifetime(subscription) {} }
        await setup.connection.start()
        try await untilPublished(by: setup.connection, "the stream after the refusal") { await setup.connection.acknowledgedChannels == ["/app/a"] }
        // The policy says 50 ms; the server said one second, and that is what the client waited.
        #expect(states.elements.contains { if case .reconnecting(after: .seconds(1), because: .refused) = $0 { true } else { false } })
        #expect(setup.emulator.eventStreamsOpened == 1)
        await setup.stop()
        states.cancel()
    }

    @Test func badCredentialsAreTriedOnceMoreThenFailForGood() async throws {
        let asked = NIOLockedValueBox(0)
        let setup = try await Self.start(authorization: .token {
            asked.withLockedValue { $0 += 1 }
            return "not-a-jwt"
        })
        let subscription = try await setup.connection.subscribe(to: "/app/a")
        defer { withExtendedLifetime(subscription) {} }
        await setup.connection.start()
        try await untilPublished(by: setup.connection, "the failure") {
            if case .failed(.unauthorized) = await setup.connection.state { return true }
            return false
        }
        #expect(asked.withLockedValue { $0 } == 2)  // once more with credentials asked anew, then no more
        #expect(setup.emulator.eventStreamsOpened == 0)
        await setup.stop()
    }

    @Test func aStalledStreamIsReopenedByTheHeartbeatWatchdogAndResumes() async throws {
        let setup = try await Self.start(emulator: { $0.eventStreamHeartbeatInterval = .milliseconds(50) }) {
            $0.heartbeatInterval = .milliseconds(250)  // silent for 500 ms: reopened
        }
        let subscription = try await setup.connection.subscribe(to: "/app/a")
        let received = Collected { subscription.events }
        await setup.connection.start()
        try await untilPublished(by: setup.connection, "the stream") { await setup.connection.acknowledgedChannels == ["/app/a"] }
        setup.emulator.stallEventStreams()
        for index in 0..<10 { _ = try await setup.publisher.publish([Self.event(index)], to: "/app/a") }
        try await received.wait("the events after the watchdog reopened the stream") { $0.count >= 10 }
        #expect(received.elements.compactMap(Self.index) == Array(0..<10))
        #expect(setup.connection.metrics.snapshot().keepAliveTimeouts >= 1)
        await setup.stop()
        received.cancel()
    }

    @Test func eventsPublishedWhileSuspendedArriveAfterResume() async throws {
        let setup = try await Self.start()
        let subscription = try await setup.connection.subscribe(to: "/app/a")
        let received = Collected { subscription.events }
        await setup.connection.start()
        try await untilPublished(by: setup.connection, "the stream") { await setup.connection.acknowledgedChannels == ["/app/a"] }
        _ = try await setup.publisher.publish([Self.event(0)], to: "/app/a")
        try await received.wait("the first event") { $0.count == 1 }

        await setup.connection.suspend()
        #expect(await setup.connection.state == .suspended)
        for index in 1...5 { _ = try await setup.publisher.publish([Self.event(index)], to: "/app/a") }
        await setup.connection.resume()
        try await received.wait("the events published while suspended") { $0.count == 6 }
        #expect(received.elements.compactMap(Self.index) == Array(0...5))
        await setup.stop()
        received.cancel()
    }

    @Test func theStreamRunsOverTLSWithTheGivenTrustRoots() async throws {
        let certificate = try LocalhostCertificate()
        let server = try await ScriptedServer.start(tls: certificate.serverConfiguration, closing: false) { _, _ in
            Array("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\nid: 1\nevent: /app/a\ndata: {\"n\":1}\n\n".utf8)
        }
        let endpoint = try ChannelEndpoint(http: "https://localhost:\(server.port)/event")
        var configuration = SSEConfiguration(endpoint: endpoint, authorization: .apiKey("key"))
        configuration.connectTimeout = boundForLoadedMachines  // a reconnect would deliver the event again
        let connection = SSEConnection(
            configuration: configuration, transport: NIOEventStreamTransport(tlsConfiguration: certificate.clientConfiguration), logger: Self.quiet)
        let subscription = try await connection.subscribe(to: "/app/a")
        let received = Collected { subscription.events }
        await connection.start()
        try await received.wait("the event over TLS") { $0.count == 1 }
        await connection.disconnect()
        received.cancel()
        await server.stop()
    }

    /// Part of the transport conformance suite: every event stream adapter verifies the server.
    @Test(arguments: Adapters.eventStream)
    func aServerWithAnUntrustedCertificateIsNeverSentCredentials(_ adapter: Adapter<any EventStreamTransport>) async throws {
        let certificate = try LocalhostCertificate()
        let requests = RecordedRequests()
        let server = try await ScriptedServer.start(tls: certificate.serverConfiguration, closing: false) { _, request in
            requests.append(request)
            return Array("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n".utf8)
        }
        let endpoint = try ChannelEndpoint(http: "https://localhost:\(server.port)/event")
        var configuration = SSEConfiguration(endpoint: endpoint, authorization: .apiKey("secret-key"))
        configuration.reconnectPolicy = .fixed(.milliseconds(50))
        let connection = SSEConnection(configuration: configuration, transport: adapter.make(), logger: Self.quiet)  // system trust roots
        let subscription = try await connection.subscribe(to: "/app/a")
        await connection.start()
        try await server.openedConnections.wait("two refused handshakes") { $0 >= 2 }
        await connection.disconnect()
        #expect(requests.count == 0)
        #expect(await connection.acknowledgedChannels.isEmpty)
        withExtendedLifetime(subscription) {}
        await server.stop()
    }

    @Test func theSameGeneratedNotifierRunsOnSSE() async throws {
        let setup = try await Self.start()
        let notifier = BackendNotifier(source: ChannelEventHub(connection: setup.connection, logger: Self.quiet))
        try await notifier.setUserId("alice")
        let revocations = Collected { await notifier.revokeValues() }
        await setup.connection.start()
        try await untilPublished(by: setup.connection, "the subscription") { await setup.connection.acknowledgedChannels.count == 1 }
        let event = UserTokenRevokeOutput(eventType: "user/tokenRevoked", timestamp: Date(timeIntervalSince1970: 1_700_000_000), userId: "alice", revokedAt: Date(timeIntervalSince1970: 1_700_000_000), reason: .passwordChanged)
        let channel = await setup.connection.acknowledgedChannels[0]
        _ = try await setup.publisher.publish([try json(event)], to: channel)
        try await revocations.wait("the typed event") { $0.count == 1 }
        #expect(revocations.elements.first?.userId == "alice")
        await setup.stop()
        revocations.cancel()
    }

    @Test func anInsecureHubIsRefusedBeforeAnyCredentialLeaves() throws {
        let endpoint = try ChannelEndpoint(http: "https://api.example.com/event")
        #expect(throws: SSEConnectionError.insecureHub("http://hub.example.com/.well-known/mercure")) {
            try SSEConfiguration(endpoint: endpoint, authorization: .apiKey("k"), hub: URL(string: "http://hub.example.com/.well-known/mercure")!)
        }
        let local = try SSEConfiguration(endpoint: endpoint, authorization: .apiKey("k"), hub: URL(string: "http://127.0.0.1:8080/.well-known/mercure")!)
        #expect(local.hub.absoluteString == "http://127.0.0.1:8080/.well-known/mercure")
        #expect(SSEConfiguration(endpoint: endpoint, authorization: .apiKey("k")).hub.absoluteString == "https://api.example.com/.well-known/mercure")
    }
}
