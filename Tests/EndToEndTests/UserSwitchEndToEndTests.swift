import AppSyncEmulator
import AppSyncRuntime
import ChannelRuntime
import ChannelRuntimeTesting
import Foundation
import NIOConcurrencyHelpers
import SSERuntime
import Testing
import VortexEvents

/// Issue 44, over real sockets: while alice's events flood in faster than a slow consumer reads,
/// `setUserId("bob")` returns and from then on the stream hands out none of alice's events, on
/// both transports. On SSE, bob's first request carries no `Last-Event-ID` of alice's stream.
@Suite("User switch end to end")
struct UserSwitchEndToEndTests {
    /// Reads revocations slowly; counts alice's events read by a `next()` that began after the
    /// switch returned (the flag is read before each `next()`, so none is counted early).
    final class SlowConsumer: Sendable {
        let switched = NIOLockedValueBox(false)
        let aliceAfterSwitch = NIOLockedValueBox(0)
        let aliceBeforeSwitch = NIOLockedValueBox(0)
        let bobSeen = NIOLockedValueBox(0)
        private let task: NIOLockedValueBox<Task<Void, Never>?> = NIOLockedValueBox(nil)

        init(_ stream: AsyncStream<UserTokenRevokeOutput>) {
            task.withLockedValue {
                $0 = Task { [self] in
                    var events = stream.makeAsyncIterator()
                    while true {
                        let afterSwitch = switched.withLockedValue { $0 }
                        guard let event = await events.next() else { return }
                        switch (event.userId, afterSwitch) {
                        case ("alice", false): aliceBeforeSwitch.withLockedValue { $0 += 1 }
                        case ("alice", true): aliceAfterSwitch.withLockedValue { $0 += 1 }
                        default: bobSeen.withLockedValue { $0 += 1 }
                        }
                        try? await Task.sleep(for: .milliseconds(2))
                    }
                }
            }
        }

        func cancel() { task.withLockedValue { $0?.cancel() } }
    }

    static func revocation(of user: String, _ n: Int) throws -> String {
        try json(UserTokenRevokeOutput(
            eventType: "user/tokenRevoked", timestamp: Date(timeIntervalSince1970: 1_700_000_000 + Double(n)), userId: user,
            revokedAt: Date(timeIntervalSince1970: 1_700_000_000), reason: .passwordChanged))
    }

    /// Publishes alice's revocations from four tasks, five per request, until cancelled.
    static func flood(_ publisher: AppSyncHTTPPublisher) throws -> [Task<Void, Never>] {
        let channel = try UserTokenRevokeEventsSubscription(userId: "alice").channel
        let batch = try (0..<5).map { try revocation(of: "alice", $0) }
        return (0..<4).map { _ in
            Task {
                while !Task.isCancelled { _ = try? await publisher.publish(batch, to: channel) }
            }
        }
    }

    /// The switch under a flood, then bob's events until the consumer has one.
    static func switchUnderFlood(notifier: BackendNotifier, publisher: AppSyncHTTPPublisher, consumer: SlowConsumer) async throws {
        let flood = try flood(publisher)
        try await waitFor("a backlog of alice's events") { consumer.aliceBeforeSwitch.withLockedValue { $0 } >= 50 }
        try await notifier.setUserId("bob")
        consumer.switched.withLockedValue { $0 = true }
        let bob = try UserTokenRevokeEventsSubscription(userId: "bob").channel
        let event = try revocation(of: "bob", 1)
        try await waitFor("bob's event") {
            _ = try? await publisher.publish([event], to: bob)
            return consumer.bobSeen.withLockedValue { $0 } > 0
        }
        for task in flood { task.cancel() }
        for task in flood { await task.value }
        #expect(consumer.aliceAfterSwitch.withLockedValue { $0 } == 0)
    }

    @Test func aSwitchOnWebSocketLeavesNoneOfTheOldUsersEvents() async throws {
        let stack = try await Stack.start(authorization: { _ in .apiKey(Stack.publisherKey) })
        let consumer = SlowConsumer(await stack.notifier.revokeValues())
        await stack.connection.start()
        try await untilPublished(by: stack.connection, "alice's subscription") { await stack.connection.acknowledgedChannels.count == 1 }
        try await Self.switchUnderFlood(notifier: stack.notifier, publisher: stack.publisher, consumer: consumer)
        consumer.cancel()
        await stack.stop()
    }

    @Test func aSwitchOnSSELeavesNoneOfTheOldUsersEvents() async throws {
        let setup = try await SSEConnectionTests.start()
        let notifier = BackendNotifier(source: ChannelEventHub(connection: setup.connection, logger: SSEConnectionTests.quiet))
        try await notifier.setUserId("alice")
        let consumer = SlowConsumer(await notifier.revokeValues())
        await setup.connection.start()
        try await untilPublished(by: setup.connection, "alice's subscription") { await setup.connection.acknowledgedChannels.count == 1 }
        try await Self.switchUnderFlood(notifier: notifier, publisher: setup.publisher, consumer: consumer)
        consumer.cancel()
        await setup.stop()
    }

    /// A hub's one `Last-Event-ID` resumes every topic of the request: it is sent again for a
    /// stream of the channels it was read on, never for a stream naming another channel.
    @Test func anSSEStreamOfOtherChannelsStartsWithoutTheLastEventID() async throws {
        let requests = RecordedRequests()
        let server = try await ScriptedServer.start(closing: false) { _, request in
            requests.append(request)
            return Array((SSEHostileServerTests.eventStreamHead + "id: 41\nevent: /app/user/alice\ndata: {}\n\n").utf8)
        }
        let connection = try SSEHostileServerTests.connection(to: server)
        let alice = try await connection.subscribe(to: "/app/user/alice")
        let received = Collected { alice.events }
        await connection.start()
        try await received.wait("alice's event") { $0.count == 1 }
        #expect(connection.lastEventID == "41")
        await connection.unsubscribe(alice.id)
        let bob = try await connection.subscribe(to: "/app/user/bob")
        try await requests.untilCount(2, "bob's stream")
        #expect(requests.all[1].hasPrefix("GET /.well-known/mercure?topic=/app/user/bob HTTP/1.1\r\n"))
        #expect(!requests.all[1].lowercased().contains("last-event-id"))
        await connection.disconnect()
        received.cancel()
        withExtendedLifetime(bob) {}
        await server.stop()
    }
}
