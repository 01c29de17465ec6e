import ChannelRuntime
import ChannelRuntimeTesting
import ChannelTransports
import Foundation
import Logging
import SSERuntime
import Testing

/// A changed channel set on Server-Sent Events opens a new request (the channels are in its URL)
/// without showing the app a drop, for as long as that stays true.
@Suite("A changed channel set, told as it is")
struct RenewalTests {
    /// A hub whose first request is answered at once and whose later ones wait until the test
    /// lets them through (or their task is cancelled).
    final class HeldEventStreams: EventStreamTransport, Sendable {
        let hub = InMemoryEventStreamTransport()
        /// Requests past the first wait for it; the test finishes it to let them through.
        private let (gate, opener) = AsyncStream<Void>.makeStream()
        private let requests = Watched(0)

        func open(_ url: URL, headers: [(name: String, value: String)], tasks: TransportTasks) async throws -> EventStreamResponse {
            let number = requests.update { count -> Int in
                count += 1
                return count
            }
            if number > 1 {
                for await _ in gate {}
                try Task.checkCancellation()
            }
            return try await hub.open(url, headers: headers, tasks: tasks)
        }

        /// Returns once `count` requests were made (the last one may be held).
        func untilRequests(_ count: Int) async throws {
            try await requests.wait("\(count) requests") { $0 >= count }
        }

        /// Lets every held request through, and every later one.
        func release() { opener.finish() }
    }

    /// The new request hangs: for 2 s (`quietRenewalLimit`) the app sees `.connected` and
    /// `.active`; then `.connecting` and `.subscribing`, while the request goes on; when it is
    /// answered, `.connected` and `.active` again. Before, `.connected` stayed until the connect
    /// time-out (15 s) while no stream was open.
    @Test func aRenewalWhoseRequestHangsTellsTheAppAfterTwoSeconds() async throws {
        let clock = ManualClock()
        let streams = HeldEventStreams()
        let endpoint = try ChannelEndpoint(http: "https://hub.example.com/event")
        let connection = SSEConnection(
            configuration: SSEConfiguration(endpoint: endpoint, authorization: .apiKey("k")), transport: streams, clock: clock,
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        let a = try await connection.subscribe(to: "/app/a")
        await connection.start()
        #expect(try await streams.hub.nextStream().topics == ["/app/a"])
        try await untilPublished(by: connection, "a active", within: 30) { await connection.status(ofSubscription: a.id) == .active }
        // What the app reads from here on, in order (each stream starts with the current value).
        let states = Collected { await connection.stateUpdates() }
        let statuses = Collected { await connection.statusUpdates(ofSubscription: a.id) }
        #expect(try await states.first(1) == [.connected])
        #expect(try await statuses.first(1) == [.active])

        let b = try await connection.subscribe(to: "/app/b")
        try await clock.waitForSleeper(until: .milliseconds(20))  // the renewal, gathered for 20 ms
        clock.advance(by: .milliseconds(20))
        try await streams.untilRequests(2)  // the new request, held
        try await clock.waitForSleeper(until: .milliseconds(15_020), within: 30)  // the new request's connect time-out
        #expect(states.elements == [.connected] && statuses.elements == [.active], "quiet: \(states.elements) \(statuses.elements)")

        clock.advance(by: .seconds(2))  // the quiet time's end (a timer started with the connect time-out)
        #expect(try await statuses.first(2) == [.active, .subscribing])
        #expect(try await states.first(2) == [.connected, .connecting])

        streams.release()
        #expect(try await streams.hub.nextStream().topics == ["/app/a", "/app/b"])
        #expect(try await states.first(3) == [.connected, .connecting, .connected])
        #expect(try await statuses.first(3) == [.active, .subscribing, .active])
        withExtendedLifetime((a, b)) {}
        await connection.disconnect()
        states.cancel()
        statuses.cancel()
    }
}
