import ChannelRuntime
import ChannelRuntimeTesting
import ChannelTransports
import Foundation

/// An HTTP event-stream server in memory: each request is answered at once with a `200`
/// `text/event-stream` response whose body the test writes (`FakeEventStream`), the way
/// `InMemoryTransport` hands out WebSocket servers.
final class InMemoryEventStreamTransport: EventStreamTransport, Sendable {
    private struct State: Sendable {
        var streams: [FakeEventStream] = []
        var taken = 0
        /// Streams whose body ended (the client closed it, or the server ended it), by index.
        var ended: Set<Int> = []
    }

    /// Watched: `nextStream()` awaits the request it waits for.
    private let state = Watched(State())
    /// The status every request is answered with.
    let status: Int

    /// A hub answering every request with `status` (a `200` opens an event stream).
    init(answering status: Int = 200) {
        self.status = status
    }

    /// Requests made so far.
    var openCount: Int { state.value.streams.count }

    func open(_ url: URL, headers: [(name: String, value: String)], tasks: TransportTasks) async throws -> EventStreamResponse {
        let (body, writer) = AsyncStream<[UInt8]>.makeStream()
        let stream = FakeEventStream(url: url, headers: Dictionary(headers.map { ($0.name, $0.value) }) { _, last in last }, writer: writer)
        var index = 0
        state.update { state in
            state.streams.append(stream)
            index = state.streams.count - 1
        }
        writer.onTermination = { [state, index] _ in state.update { _ = $0.ended.insert(index) } }
        if status != 200 { writer.finish() }
        let contentType = status == 200 ? "text/event-stream" : "text/plain"
        return EventStreamResponse(status: status, headers: ["content-type": contentType], body: body, close: { writer.finish() })
    }

    /// The streams still open, oldest first.
    var openStreams: [FakeEventStream] { Self.open(in: state.value) }

    private static func open(in state: State) -> [FakeEventStream] {
        state.streams.indices.filter { !state.ended.contains($0) }.map { state.streams[$0] }
    }

    /// Returns once the open streams (oldest first) meet `condition`, checked at each request and
    /// each end; throws `WaitTimedOut` after `seconds` of real time.
    func untilOpenStreams(
        _ what: String, within seconds: Double = 120, _ condition: @escaping @Sendable ([FakeEventStream]) -> Bool
    ) async throws {
        try await state.wait(what, within: seconds) { condition(Self.open(in: $0)) }
    }

    /// The server side of the next request; throws `WaitTimedOut` when none comes within `seconds`.
    func nextStream(within seconds: Double = 120) async throws -> FakeEventStream {
        try await state.take("an event-stream request", within: seconds) { state in
            guard state.streams.count > state.taken else { return nil }
            defer { state.taken += 1 }
            return state.streams[state.taken]
        }
    }
}

/// One response body the test writes: events, and the end of the stream.
struct FakeEventStream: Sendable {
    let url: URL
    let headers: [String: String]
    let writer: AsyncStream<[UInt8]>.Continuation

    /// The `topic`s the request asked for.
    var topics: [String] {
        URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.filter { $0.name == "topic" }.compactMap(\.value) ?? []
    }

    /// One event on `channel` (its type names the channel, as a Mercure hub's does).
    func send(_ data: String, channel: String, id: String? = nil) {
        writer.yield(Array("event: \(channel)\n\(id.map { "id: \($0)\n" } ?? "")data: \(data)\n\n".utf8))
    }

    /// The server ends the response (a drop: the client reconnects).
    func end() { writer.finish() }
}
