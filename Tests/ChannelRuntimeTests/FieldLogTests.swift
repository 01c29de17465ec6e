import AppSyncRuntime
import ChannelRuntime
import ChannelRuntimeTesting
import Foundation
import Logging
import SSERuntime
import Testing

/// What a field engineer reads: at `trace`, one line per frame and one per event (channel, type,
/// size, sequence, id); at every level, no payload and no credential in any line. And the id a
/// server gives an event, in its envelope.
@Suite("Logs for the field, event ids")
struct FieldLogTests {
    /// Text only a payload holds: a line that shows it shows the payload.
    static let payloadMarker = "PAYLOAD-PRIVATE-4711"
    static let apiKey = "da2-FIELDLOGSECRETKEY0123"

    /// How the capturing handler prints one metadata entry.
    static func field(_ name: String, _ value: Any) -> String { "\"\(name)\": \(value)" }

    static func capture(at level: Logger.Level) -> (Logger, LockedBox<[String]>) {
        let lines = LockedBox<[String]>([])
        var logger = Logger(label: "capture") { _ in CapturingLogHandler(lines: lines) }
        logger.logLevel = level
        return (logger, lines)
    }

    /// An AppSync session that gets one event of each kind: decoded (with a private field), one
    /// that does not decode (the private text where a number belongs), a malformed frame carrying
    /// it, an unknown message type, and an error naming it. Returns the lines logged at `level`.
    static func appSyncSession(loggingAt level: Logger.Level) async throws -> [String] {
        let (logger, lines) = capture(at: level)
        let transport = InMemoryTransport()
        let connection = AppSyncConnection(
            configuration: AppSyncConfiguration(endpoint: Harness.endpoint, authorization: .apiKey(apiKey)), transport: transport, clock: ManualClock(),
            logger: logger)
        let hub = ChannelEventHub(connection: connection, parameters: ["userId": try ChannelSegment("u1")], logger: logger)
        var consumer = await hub.events(PingSubscription.self).makeAsyncIterator()
        await connection.start()
        let server = try await transport.nextConnection()
        try await server.acceptConnection()
        let id = try #require(try await server.acceptSubscribes(1)["app/user/u1/ping"])
        server.push(["type": "data", "id": id, "event": #"{"eventType":"ping","n":1,"note":"\#(payloadMarker)"}"#])
        server.push(["type": "data", "id": id, "event": #"{"eventType":"ping","n":"\#(payloadMarker)"}"#])
        server.push("not json \(payloadMarker) \(apiKey)")
        server.push(["type": "mystery", "note": payloadMarker])
        server.push(["type": "broadcast_error", "id": id, "errors": [["errorType": "X", "message": "fine"]]])
        server.push(["type": "data", "id": id, "event": #"{"eventType":"ping","n":2}"#])
        // The two that decode: every frame before the second was read by then.
        for _ in 1...2 { _ = try #require(await consumer.next()) }
        await connection.disconnect()
        return lines.value
    }

    @Test(arguments: [Logger.Level.trace, .debug, .info, .notice, .warning, .error, .critical])
    func noLineAtAnyLevelHoldsAPayloadOrACredential(level: Logger.Level) async throws {
        let lines = try await Self.appSyncSession(loggingAt: level)
        #expect(!lines.contains { $0.contains(Self.payloadMarker) }, "\(lines.filter { $0.contains(Self.payloadMarker) })")
        #expect(!lines.contains { $0.contains(Self.apiKey) || $0.contains("header-ey") })
        if level <= .error { #expect(lines.contains { $0.contains("dropping an event that does not decode") }) }
    }

    @Test func atTraceEveryFrameAndEveryEventHasOneLine() async throws {
        let lines = try await Self.appSyncSession(loggingAt: .trace)
        let frames = lines.filter { $0.hasPrefix("trace frame ") }
        // connection_ack, subscribe_success, three data frames, the malformed one, mystery, broadcast_error.
        #expect(frames.count == 8, "\(frames)")
        #expect(frames.contains { $0.contains(Self.field("type", "connection_ack")) })
        #expect(frames.filter { $0.contains(Self.field("type", "data")) }.count == 3)
        #expect(frames.contains { $0.contains(Self.field("type", "?")) })  // the malformed one: its size, nothing of it
        let events = lines.filter { $0.hasPrefix("trace event") }
        #expect(events.count == 3, "\(events)")  // two delivered, one that did not decode
        let first = try #require(events.first)
        #expect(first.contains(Self.field("channel", "app/user/u1/ping")) && first.contains(Self.field("type", "ping")) && first.contains(Self.field("sequence", 1)), "\(first)")
        #expect(first.contains(Self.field("bytes", #"{"eventType":"ping","n":1,"note":"\#(Self.payloadMarker)"}"#.utf8.count)), "\(first)")
        #expect(events[1].hasPrefix("trace event dropped: it did not decode"), "\(events)")
        #expect(!lines.contains { $0.contains(Self.payloadMarker) })
    }

    @Test func belowTraceNoFrameOrEventLine() async throws {
        let lines = try await Self.appSyncSession(loggingAt: .debug)
        #expect(!lines.contains { $0.hasPrefix("trace") })
    }

    /// A Server-Sent Events `id:` reaches the envelope and the trace line; an event without its
    /// own carries the last one, as `EventSource` gives it. AppSync's events have none.
    @Test func anEventsIdReachesItsEnvelopeAndItsTraceLine() async throws {
        let (logger, lines) = Self.capture(at: .trace)
        let streams = InMemoryEventStreamTransport()
        let configuration = SSEConfiguration(endpoint: try ChannelEndpoint(http: "https://hub.example.com/event"), authorization: .apiKey(Self.apiKey))
        let connection = SSEConnection(configuration: configuration, transport: streams, clock: ManualClock(), logger: logger)
        let hub = ChannelEventHub(connection: connection, logger: logger)
        var envelopes = await hub.envelopes(TickerTextSubscription.self).makeAsyncIterator()
        await connection.start()
        let stream = try await streams.nextStream()
        stream.send("a", channel: "app/ticker", id: "evt-41")
        stream.send("b", channel: "app/ticker")
        stream.send("c", channel: "app/ticker", id: "evt-43")
        var received: [ChannelEnvelope<String>] = []
        for _ in 1...3 { received.append(try #require(await envelopes.next())) }
        #expect(received.map(\.id) == ["evt-41", "evt-41", "evt-43"])
        #expect(received.map(\.event) == ["a", "b", "c"])
        await connection.disconnect()
        let events = lines.value.filter { $0.hasPrefix("trace event ") }
        #expect(events.count == 3 && events[2].contains(Self.field("id", "evt-43")), "\(events)")
        #expect(lines.value.filter { $0.hasPrefix("trace frame ") && $0.contains(Self.field("id", "evt-41")) }.count == 2)
        #expect(!lines.value.contains { $0.contains(Self.apiKey) })
    }

    @Test func anAppSyncEventHasNoID() async throws {
        let harness = Harness()
        let hub = ChannelEventHub(connection: harness.connection, parameters: ["userId": try ChannelSegment("u1")], clock: harness.clock)
        var envelopes = await hub.envelopes(PingSubscription.self).makeAsyncIterator()
        let server = try await harness.connect()
        let id = try #require(try await server.acceptSubscribes(1)["app/user/u1/ping"])
        server.push(["type": "data", "id": id, "event": #"{"eventType":"ping","n":1}"#])
        let envelope = try #require(await envelopes.next())
        #expect(envelope.id == nil)
        await harness.connection.disconnect()
    }
}
