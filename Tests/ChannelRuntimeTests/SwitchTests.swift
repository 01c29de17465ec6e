import ChannelRuntime
import ChannelRuntimeTesting
import Foundation
import Logging
import SSERuntime
import Testing

/// `SwitchableConnection` over two in-memory event-stream hubs: what switches that overlap leave
/// behind, and what a switch does with events its subscriptions' buffers cannot hold.
@Suite("Transport switches that overlap")
struct SwitchTests {
    static let quiet = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    /// A switchable connection over in-memory event-stream hubs `a` and `b`, using `a`, with a
    /// `ChannelEventHub` over it reading `app/ticker` (text events), started.
    static func switchable() async throws
        -> (SwitchableConnection, InMemoryEventStreamTransport, InMemoryEventStreamTransport, TypedCollector<String>)
    {
        let (a, b) = (InMemoryEventStreamTransport(), InMemoryEventStreamTransport())
        let endpoint = try ChannelEndpoint(http: "https://hub.example.com/event")
        func connection(_ hub: InMemoryEventStreamTransport) -> SSEConnection {
            SSEConnection(configuration: SSEConfiguration(endpoint: endpoint, authorization: .apiKey("k")), transport: hub, logger: quiet)
        }
        let switchable = SwitchableConnection(["a": connection(a), "b": connection(b)], using: "a", logger: quiet)
        let hub = ChannelEventHub(connection: switchable, logger: quiet)
        let events = TypedCollector(await hub.events(TickerTextSubscription.self))
        await switchable.start()
        _ = try await a.nextStream()
        return (switchable, a, b, events)
    }

    /// Issue 62: switches started without waiting for each other corrupted the subscriptions: 3 at
    /// once gave duplicates (every later event read twice), 200 started 1 ms apart held several
    /// subscriptions on one transport, or left both disconnected. Whatever the overlap, a switch
    /// ends with one subscription, on the transport last asked for, and every event read once.
    @Test(arguments: [3, 200])
    func overlappingSwitchesEndWithOneSubscriptionAndEveryEventOnce(switches: Int) async throws {
        let (connection, a, b, events) = try await Self.switchable()
        await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<switches {
                group.addTask { try await connection.switchTransport(to: index.isMultiple(of: 2) ? "b" : "a") }
                if switches > 3 { try? await Task.sleep(for: .milliseconds(1)) }
            }
        }
        let active = await connection.activeTransport
        let (on, off) = active == "a" ? (a, b) : (b, a)
        // The last switch returned: the subscription was asked for on `on`, and `off` was stopped.
        try await on.untilOpenStreams("one stream of app/ticker on \(active)") { $0.map(\.topics) == [["app/ticker"]] }
        #expect(off.openStreams.isEmpty, "\(off.openStreams.map(\.topics)) still open on the other hub")
        let stream = try #require(on.openStreams.first)
        for n in 1...3 { stream.send("n\(n)", channel: "app/ticker", id: "\(n)") }
        try await events.waitFor(count: 3)
        #expect(events.elements == ["n1", "n2", "n3"])
        #expect(on.openStreams.count == 1)
        await connection.disconnect()
    }

    /// A subscription made on the switchable connection itself (not through a hub) is not moved:
    /// the switch ends its stream (and logs it) rather than leaving it silent on a stopped transport.
    @Test func aSwitchEndsASubscriptionMadeOnTheConnectionDirectly() async throws {
        let (connection, a, _, _) = try await Self.switchable()
        let direct = try await connection.subscribe(to: "/app/direct")
        try await connection.switchTransport(to: "b")
        var iterator = direct.events.makeAsyncIterator()
        #expect(await iterator.next() == nil)
        #expect(await connection.status(ofSubscription: direct.id) == nil)
        #expect(a.openStreams.isEmpty)
        await connection.disconnect()
    }

    /// Issue 62: behind a switchable connection, events that did not fit its buffer (between the
    /// transport and the hub) were dropped with no count, no log and no gap. Now every event is
    /// delivered or counted, and the first after a loss says how many went.
    @Test func anOverflowBehindTheSwitchIsCountedAndCarriedAsAGap() async throws {
        let hub = InMemoryEventStreamTransport()
        let endpoint = try ChannelEndpoint(http: "https://hub.example.com/event")
        let sse = SSEConnection(configuration: SSEConfiguration(endpoint: endpoint, authorization: .apiKey("k")), transport: hub, logger: Self.quiet)
        let connection = SwitchableConnection(["sse": sse], using: "sse", logger: Self.quiet)
        // An own stream: its final event ends the forwarder, so the test knows all was forwarded.
        let job = try await connection.subscribe(ChannelRequest(channel: "/jobs/j1", isOwnStream: true, finalEventNames: ["done"]))
        await connection.start()
        let stream = try await hub.nextStream()
        let sent = 12_000  // past the buffer's 10 000 events, while nobody reads
        var body = ""
        for n in 1...sent { body += "event: progress\ndata: {\"n\":\(n)}\n\n" }
        stream.writer.yield(Array((body + "event: done\ndata: {}\n\n").utf8))
        let reader = try #require(job.reader)
        try await eventually("everything forwarded") { reader.buffered.ended }
        var (received, counted) = (0, 0)
        var last = ""
        while let event = await reader.next() {
            received += 1
            counted += event.droppedBefore
            last = event.text
        }
        #expect(last == "{}")
        #expect(received <= 10_000)
        #expect(received + counted == sent + 1, "\(received) received, \(counted) counted as dropped")
        #expect(sse.metrics.snapshot().channels["/jobs/j1"]?.overflowed == counted)
        await connection.disconnect()
    }

    /// Found by the 200-switch case, which took 16 s: a renewal (a changed channel set opens a new
    /// Server-Sent Events request) still pending when its session ended held back the next
    /// session's, so a channel subscribed on the new session was not asked for until a connect
    /// time-out 15 s later, while the connection said `connected`.
    @Test func aRenewalLeftFromAnEndedSessionDoesNotHoldBackTheNext() async throws {
        let clock = ManualClock()
        let streams = InMemoryEventStreamTransport()
        let endpoint = try ChannelEndpoint(http: "https://hub.example.com/event")
        let connection = SSEConnection(
            configuration: SSEConfiguration(endpoint: endpoint, authorization: .apiKey("k")), transport: streams, clock: clock, logger: Self.quiet)
        let a = try await connection.subscribe(to: "/app/a")
        await connection.start()
        #expect(try await streams.nextStream().topics == ["/app/a"])
        let b = try await connection.subscribe(to: "/app/b")
        try await clock.waitForSleeper(until: .milliseconds(20))  // the first session's renewal
        await connection.disconnect()
        await connection.start()
        #expect(try await streams.nextStream().topics == ["/app/a", "/app/b"])
        clock.advance(by: .milliseconds(10))  // the old renewal still pending (due at 20 ms)
        let c = try await connection.subscribe(to: "/app/c")
        try await clock.waitForSleeper(until: .milliseconds(30), within: 30)  // the new session's own
        clock.advance(by: .milliseconds(20))
        #expect(try await streams.nextStream().topics == ["/app/a", "/app/b", "/app/c"])
        withExtendedLifetime((a, b, c)) {}
        await connection.disconnect()
    }
}
