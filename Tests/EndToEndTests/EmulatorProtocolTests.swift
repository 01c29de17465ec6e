import AppSyncEmulator
import AppSyncRuntime
import ChannelRuntimeTesting
import ChannelTransports
import Foundation
import Logging
import NIOChannelTransports
import NIOConcurrencyHelpers
import Testing
import URLSessionChannelTransports

/// A WebSocket client that sends and reads raw protocol frames (through the runtime's transport).
/// Frames are buffered in the background so every read is bounded: a frame that never comes fails
/// the test instead of hanging the run.
final class RawClient: Sendable {
    let session: any WebSocketSession
    private let frames = NIOLockedValueBox<(texts: [String], read: Int, closed: Bool)>(([], 0, false))

    init(endpoint: ChannelEndpoint, headers: [String: String]) async throws {
        session = try await WSClientTransport(logger: Logger(label: "raw") { _ in SwiftLogNoOpLogHandler() }).connect(
            to: endpoint.realtime,
            subprotocols: [ChannelAuthorization.eventSubprotocol, ChannelAuthorization.headerSubprotocol(headers)])
        let (inbound, frames) = (session.inbound, frames)
        Task {
            for await text in inbound { frames.withLockedValue { $0.texts.append(text) } }
            frames.withLockedValue { $0.closed = true }
        }
    }

    func send(_ object: [String: Any]) async throws {
        try await session.send(String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self))
    }

    /// The next frame that is not a keep-alive (unless `keepAlive` is asked for), parsed.
    func next(keepAlive: Bool = false) async throws -> [String: Any] {
        while true {
            let frames = self.frames
            try await waitFor("a frame from the emulator") { frames.withLockedValue { $0.texts.count > $0.read || $0.closed } }
            guard let text = frames.withLockedValue({ state -> String? in
                guard state.texts.count > state.read else { return nil }
                defer { state.read += 1 }
                return state.texts[state.read]
            }) else { throw WaitTimedOut(description: "the connection closed") }
            let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            if keepAlive || object["type"] as? String != "ka" { return object }
        }
    }

    func subscribe(_ id: String, _ channel: String, _ authorization: [String: String]) async throws -> [String: Any] {
        try await send(["type": "subscribe", "id": id, "channel": channel, "authorization": authorization])
        return try await next()
    }
}

@Suite("Emulator protocol", .serialized)
struct EmulatorProtocolTests {
    static let key = "da2-emulator-test"

    func start(_ configure: (inout EmulatorConfiguration) -> Void = { _ in }) async throws -> (AppSyncEmulator, ChannelEndpoint) {
        var configuration = EmulatorConfiguration(namespaces: ["vortex-app", "default"], apiKeys: [Self.key], jwtSecret: Stack.secret)
        configure(&configuration)
        let emulator = AppSyncEmulator(configuration: configuration, logger: Logger(label: "emulator") { _ in SwiftLogNoOpLogHandler() })
        return (emulator, try ChannelEndpoint(http: try await emulator.start()))
    }

    func auth(_ endpoint: ChannelEndpoint) -> [String: String] { ["host": endpoint.host, "x-api-key": Self.key] }

    func connected(_ endpoint: ChannelEndpoint) async throws -> RawClient {
        let client = try await RawClient(endpoint: endpoint, headers: auth(endpoint))
        try await client.send(["type": "connection_init"])
        let ack = try await client.next()
        #expect(ack["type"] as? String == "connection_ack")
        #expect(ack["connectionTimeoutMs"] as? Int == 300_000)
        return client
    }

    @Test func handshakeKeepAliveAndDocumentedReplies() async throws {
        let (emulator, endpoint) = try await start { $0.keepAliveInterval = .milliseconds(50) }
        let client = try await connected(endpoint)
        #expect(try await client.next(keepAlive: true)["type"] as? String == "ka")

        let success = try await client.subscribe("sub-1", "/default/room", auth(endpoint))
        #expect(success["type"] as? String == "subscribe_success" && success["id"] as? String == "sub-1")
        let duplicate = try await client.subscribe("sub-1", "/default/other", auth(endpoint))
        #expect(duplicate["type"] as? String == "subscribe_error")

        try await client.send(["type": "unsubscribe", "id": "sub-1"])
        #expect(try await client.next()["type"] as? String == "unsubscribe_success")
        try await client.send(["type": "unsubscribe", "id": "sub-1"])
        let unknown = try await client.next()
        #expect(unknown["type"] as? String == "unsubscribe_error")
        #expect((unknown["errors"] as? [[String: Any]])?.first?["errorType"] as? String == "UnknownOperationError")

        try await client.send(["type": "publish", "id": "pub-1", "channel": "default/room", "events": ["{\"a\":1}"], "authorization": auth(endpoint)])
        let published = try await client.next()
        #expect(published["type"] as? String == "publish_success")
        #expect((published["successful"] as? [[String: Any]])?.count == 1)
        await client.session.close()
        await emulator.stop()
    }

    @Test func wildcardsMatchEverythingBelowThePrefixButNotThePrefix() async throws {
        let (emulator, endpoint) = try await start()
        let client = try await connected(endpoint)
        #expect(try await client.subscribe("w", "vortex-app/user/alice/*", auth(endpoint))["type"] as? String == "subscribe_success")
        let publisher = AppSyncHTTPPublisher.forLoadedMachines(endpoint: endpoint, authorization: .apiKey(Self.key))
        _ = try await publisher.publish(["{\"n\":0}"], to: "vortex-app/user/alice")           // the prefix itself: no
        _ = try await publisher.publish(["{\"n\":1}"], to: "vortex-app/user/bob/roleChanged")  // another user: no
        _ = try await publisher.publish(["{\"n\":2}"], to: "vortex-app/user/alice/roleChanged")
        _ = try await publisher.publish(["{\"n\":3}"], to: "vortex-app/user/alice/device/presenceChanged")
        let first = try await client.next()
        let second = try await client.next()
        #expect(first["type"] as? String == "data" && first["id"] as? String == "w")
        #expect([first["event"] as? String, second["event"] as? String] == ["{\"n\":2}", "{\"n\":3}"])
        await client.session.close()
        await emulator.stop()
    }

    @Test func channelRulesAndNamespaces() async throws {
        let (emulator, endpoint) = try await start()
        let client = try await connected(endpoint)
        for (index, channel) in ["default/a.b", "default/-x", "default/" + String(repeating: "a", count: 51), "default/1/2/3/4/5", "*", "default/*/x"].enumerated() {
            let reply = try await client.subscribe("bad-\(index)", channel, auth(endpoint))
            #expect(reply["type"] as? String == "subscribe_error", "\(channel)")
        }
        let unknown = try await client.subscribe("ns", "nowhere/room", auth(endpoint))
        #expect((unknown["errors"] as? [[String: Any]])?.first?["errorType"] as? String == "ResourceNotFound")
        let publisher = AppSyncHTTPPublisher.forLoadedMachines(endpoint: endpoint, authorization: .apiKey(Self.key))
        await #expect(throws: AppSyncError.self) { try await publisher.publish(["{}"], to: "default/*") }
        await client.session.close()
        await emulator.stop()
    }

    @Test func limits() async throws {
        let (emulator, endpoint) = try await start { $0.maximumSubscriptionsPerConnection = 200 }
        let client = try await connected(endpoint)
        for index in 0..<200 {
            #expect(try await client.subscribe("s\(index)", "default/c\(index)", auth(endpoint))["type"] as? String == "subscribe_success")
        }
        let over = try await client.subscribe("s200", "default/c200", auth(endpoint))
        #expect((over["errors"] as? [[String: Any]])?.first?["errorType"] as? String == "MaxSubscriptionsReachedError")

        let publisher = AppSyncHTTPPublisher.forLoadedMachines(endpoint: endpoint, authorization: .apiKey(Self.key))
        let large = "\"" + String(repeating: "x", count: 240 * 1024) + "\""
        let result = try await publisher.publish(["{}", large], to: "default/c0")
        #expect(result.successful.map(\.index) == [0])
        #expect(result.failed.map(\.code) == ["EventTooLargeException"])
        // Six events: the runtime refuses them before sending, so post the body by hand.
        let (status, body) = try await URLSessionPostClient(evenOnLinux: 64 * 1024).post(
            endpoint.http, headers: ["x-api-key": Self.key, "content-type": "application/json"],
            body: Data(#"{"channel":"default/c0","events":["1","2","3","4","5","6"]}"#.utf8))
        #expect(status == 400)
        let errors = (try JSONSerialization.jsonObject(with: body) as? [String: Any])?["errors"] as? [[String: Any]]
        #expect(errors?.first?["errorType"] as? String == "BadRequestException")
        #expect(errors?.first?["message"] as? String == "Input exceeded 5 event limit")
        await client.session.close()
        await emulator.stop()
    }

    @Test func badConnectCredentialsGetAConnectionError() async throws {
        let (emulator, endpoint) = try await start()
        for headers in [["host": endpoint.host, "x-api-key": "da2-wrong"], ["x-api-key": Self.key], ["host": "other.example.com", "x-api-key": Self.key]] {
            let client = try await RawClient(endpoint: endpoint, headers: headers)
            let error = try await client.next()
            #expect(error["type"] as? String == "connection_error")
            #expect((error["errors"] as? [[String: Any]])?.first?["errorType"] as? String == "UnauthorizedException")
        }
        let expired = try await emulator.token(forUser: "alice", lifetime: -60)
        let client = try await RawClient(endpoint: endpoint, headers: ["host": endpoint.host, "Authorization": expired])
        #expect(try await client.next()["type"] as? String == "connection_error")
        await emulator.stop()
    }

    @Test func jwtUsersMayOnlyUseTheirOwnChannels() async throws {
        let (emulator, endpoint) = try await start()
        let token = try await emulator.token(forUser: "alice")
        let headers = ["host": endpoint.host, "Authorization": token]
        let client = try await RawClient(endpoint: endpoint, headers: headers)
        try await client.send(["type": "connection_init"])
        #expect(try await client.next()["type"] as? String == "connection_ack")
        #expect(try await client.subscribe("own", "vortex-app/user/alice/roleChanged", headers)["type"] as? String == "subscribe_success")
        #expect(try await client.subscribe("other", "vortex-app/user/bob/roleChanged", headers)["type"] as? String == "subscribe_error")
        #expect(try await client.subscribe("all", "vortex-app/user/*", headers)["type"] as? String == "subscribe_error")
        await client.session.close()
        await emulator.stop()
    }

    @Test func delayedAcknowledgementsStillArrive() async throws {
        let (emulator, endpoint) = try await start()
        await emulator.delayAcknowledgements(by: .milliseconds(200))
        let client = try await connected(endpoint)
        #expect(try await client.subscribe("late", "default/room", auth(endpoint))["type"] as? String == "subscribe_success")
        await client.session.close()
        await emulator.stop()
    }

    @Test func missingSubprotocolIsNotUpgraded() async throws {
        let (emulator, endpoint) = try await start()
        await #expect(throws: (any Error).self) {
            _ = try await WSClientTransport(logger: Logger(label: "raw") { _ in SwiftLogNoOpLogHandler() })
                .connect(to: endpoint.realtime, subprotocols: ["graphql-ws"])
        }
        await emulator.stop()
    }
}
