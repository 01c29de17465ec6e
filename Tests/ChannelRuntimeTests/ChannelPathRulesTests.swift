import AppSyncRuntime
import ChannelNaming
@_spi(Generated) import ChannelRuntime
import ChannelRuntimeTesting
import Testing

/// A connection checks every channel path by its own transport's rules before anything is sent:
/// generated code checks parameters by the rules of the transport its spec targets, and a client
/// generated for SSE topics (`.`, `:`, `_`) and run on AppSync, or a hand-written path, would
/// otherwise fail at the server, or not at all.
@Suite("Channel paths per transport")
struct ChannelPathRulesTests {
    @Test(arguments: [
        ("vortex-app/user/alice", false, nil),
        ("/vortex-app/user/alice/", false, nil),
        ("vortex-app/user/*", true, nil),
        ("vortex-app/user/*", false, PathProblem.segment(position: 3, .invalidCharacter("*"))),
        ("*", true, .segment(position: 1, .invalidCharacter("*"))),
        ("vortex-app/orders.eu", false, .segment(position: 2, .invalidCharacter("."))),
        ("vortex-app//x", false, .segment(position: 2, .empty)),
        ("/", false, .noSegments),
        ("", false, .noSegments),
        ("a/b/c/d/e/f", false, .segmentCount(6)),
        ("a/b/c/d/e/*", true, nil),
        ("a/-b", false, .segment(position: 2, .edgeHyphen)),
    ] as [(String, Bool, PathProblem?)])
    func appSyncPaths(_ path: String, _ wildcard: Bool, _ expected: PathProblem?) {
        #expect(ChannelNamingRules.appSyncEvents.problem(inPath: path, allowingWildcard: wildcard) == expected)
    }

    @Test(arguments: [
        ("/", nil),
        ("orders.eu/v1:created", nil),
        // Mercure's own convention: topics are URLs, with an empty segment after the scheme.
        ("https://example.com/books/1", nil),
        ("a//b", nil),
        ("rooms/*", nil),
        ("", .noSegments),
        ("a b", PathProblem.segment(position: 1, .invalidCharacter(" "))),
        ("rooms/#", .segment(position: 2, .invalidCharacter("#"))),
        (Array(repeating: "x", count: 33).joined(separator: "/"), .segmentCount(33)),
    ] as [(String, PathProblem?)])
    func serverSentEventsPaths(_ path: String, _ expected: PathProblem?) {
        #expect(ChannelNamingRules.serverSentEvents.problem(inPath: path, allowingWildcard: true) == expected)
    }

    @Test func theMessageNamesTheSegmentAndWhatIsAllowedWithTheControlCharactersEscaped() {
        #expect(throws: ChannelPathError.self) { try ChannelPathError.check("app/orders.eu", rules: .appSyncEvents, allowingWildcard: true) }
        do {
            try ChannelPathError.check("app/orders.eu\n", rules: .appSyncEvents, allowingWildcard: true)
        } catch {
            #expect(error.description == #"channel 'app/orders.eu\n' cannot be used on AppSync Events: segment 2 contains '.'; only A-Z, a-z, 0-9 and '-' are allowed"#)
        }
    }

    @Test func anAppSyncConnectionRefusesAPathAppSyncCannotCarryAndSendsNothing() async throws {
        let harness = Harness()
        let server = try await harness.connect()
        await #expect(throws: AppSyncError.self) { try await harness.connection.subscribe(to: "vortex-app/orders.eu") }
        do {
            _ = try await harness.connection.subscribe(to: "vortex-app/orders.eu")
        } catch {
            guard case .invalidChannel(let pathError) = error else { Issue.record("\(error)"); return }
            #expect(pathError.problem == .segment(position: 2, .invalidCharacter(".")))
        }
        do {
            _ = try await harness.connection.publish([#"{"a":1}"#], to: "vortex-app/orders:eu")
            Issue.record("the publish was sent")
        } catch {
            #expect(error == .invalidChannel(try #require(ChannelPathError.problemOf("vortex-app/orders:eu", rules: .appSyncEvents))))
        }
        // A valid one still goes out: nothing before it did.
        let valid = try await harness.connection.subscribe(to: "vortex-app/orders")
        let subscribe = try #require(await server.nextMessage())
        #expect(subscribe["type"] as? String == "subscribe" && subscribe["channel"] as? String == "vortex-app/orders")
        _ = valid
        await harness.connection.disconnect()
    }
}

extension ChannelPathRulesTests {
    /// An SSE client run on AppSync: the stream's status says which segment breaks which rule.
    @Test func aStreamWhosePathTheConnectionRefusesFailsWithTheReason() async throws {
        let harness = Harness()
        let hub = ChannelEventHub(connection: harness.connection)
        let consumer = TypedCollector(await hub.events(RoomSubscription.self))
        _ = try await harness.connect()
        await hub.setParameter("orgId", to: try ChannelSegment("acme"))
        // Checked by the SSE rules, which allow `.`, as a client generated for `transport: sse` does.
        await hub.setParameter("roomId", to: try ChannelSegment("orders.eu", parameter: "roomId", rules: .serverSentEvents))
        try await eventually("the stream fails") {
            if case .failed = await hub.status(of: RoomSubscription.self) { return true }
            return false
        }
        guard case .failed(let errors) = await hub.status(of: RoomSubscription.self) else { return }
        #expect(errors.first?.message?.contains("channel 'app/org/acme/room/orders.eu' cannot be used on AppSync Events: segment 5 contains '.'") == true, "\(errors)")
        consumer.cancel()
        await harness.connection.disconnect()
    }
}

extension ChannelPathError {
    /// The error `check` throws for `channel`, if any.
    static func problemOf(_ channel: String, rules: ChannelNamingRules) -> ChannelPathError? {
        do {
            try check(channel, rules: rules, allowingWildcard: false)
            return nil
        } catch {
            return error
        }
    }
}
