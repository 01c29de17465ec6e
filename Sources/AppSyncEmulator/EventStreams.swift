#if Emulator
import Foundation
import NIOConcurrencyHelpers

/// The emulator's Mercure hub: Server-Sent Event streams of published events, each with an id, a
/// replay buffer that serves `Last-Event-ID`, and the stream faults tests inject.
///
/// Synchronous and lock-protected, so a publish records and fans out in one step: an event is
/// either in a new stream's replay or sent to it live, never both, never neither.
final class EventStreams: Sendable {
    /// One event as the hub stores and sends it.
    struct StoredEvent: Sendable, Equatable {
        let id: Int
        /// The channel as the event's type (`/`-prefixed path).
        let channel: String
        let path: ChannelPath
        let data: String
    }

    /// What a stream's writer is told.
    enum Message: Sendable {
        case event(StoredEvent)
        case heartbeat
        /// Close the connection abnormally (no end of the chunked body).
        case drop
    }

    /// A refusal the next opens get.
    struct Refusal: Sendable {
        let status: Int
        let retryAfter: Int?
    }

    private struct Subscriber {
        let topics: [ChannelPath]
        let identity: Identity
        let continuation: AsyncStream<Message>.Continuation
        var stalled = false
    }

    private struct State {
        var subscribers: [Int: Subscriber] = [:]
        var nextSubscriber = 0
        var opened = 0
        var replay: [StoredEvent] = []
        var nextEventID = 0
        var refusals: [Refusal] = []
    }

    private let state = NIOLockedValueBox(State())
    let replayCapacity: Int

    init(replayCapacity: Int) {
        self.replayCapacity = replayCapacity
    }

    /// Registers a stream for `topics` and returns, atomically, the events after `lastEventID` it
    /// must replay first, and the id of the last event published so far (Mercure's reconciliation:
    /// the `Last-Event-ID` response header, `earliest` before any). `earliest` replays the whole
    /// buffer; an unknown or too old id replays nothing (the hub cannot know the gap).
    func open(topics: [ChannelPath], identity: Identity, lastEventID: String?) -> (id: Int, replay: [StoredEvent], current: String, messages: AsyncStream<Message>) {
        let (messages, continuation) = AsyncStream.makeStream(of: Message.self, bufferingPolicy: .unbounded)
        return state.withLockedValue { state in
            state.nextSubscriber += 1
            state.opened += 1
            state.subscribers[state.nextSubscriber] = Subscriber(topics: topics, identity: identity, continuation: continuation)
            var replay: [StoredEvent] = []
            if lastEventID == "earliest" {
                replay = state.replay.filter { event in Self.wants(topics, identity, event.path) }
            } else if let lastEventID, let last = Int(lastEventID), let index = state.replay.firstIndex(where: { $0.id == last }) {
                replay = state.replay[(index + 1)...].filter { event in Self.wants(topics, identity, event.path) }
            }
            let current = state.nextEventID == 0 ? "earliest" : String(state.nextEventID)
            return (state.nextSubscriber, replay, current, messages)
        }
    }

    func close(_ id: Int) {
        state.withLockedValue { $0.subscribers.removeValue(forKey: id) }?.continuation.finish()
    }

    /// Gives every event an id, keeps it for replay and sends it to the matching streams.
    /// Stores and sends `events`; returns how many streams each went to, and the ids they got.
    @discardableResult
    func publish(_ events: [String], to channel: ChannelPath) -> (receivers: Int, ids: [Int]) {
        let name = "/" + channel.segments.joined(separator: "/")
        return state.withLockedValue { state in
            let receivers = state.subscribers.values.filter { !$0.stalled && Self.wants($0.topics, $0.identity, channel) }.count
            var ids: [Int] = []
            for data in events {
                state.nextEventID += 1
                ids.append(state.nextEventID)
                let event = StoredEvent(id: state.nextEventID, channel: name, path: channel, data: data)
                state.replay.append(event)
                if state.replay.count > replayCapacity { state.replay.removeFirst(state.replay.count - replayCapacity) }
                for subscriber in state.subscribers.values where !subscriber.stalled && Self.wants(subscriber.topics, subscriber.identity, channel) {
                    subscriber.continuation.yield(.event(event))
                }
            }
            return (receivers, ids)
        }
    }

    /// The open streams as the console lists them: id, who, and the topics.
    var consoleStreams: [(id: Int, identity: Identity, topics: [ChannelPath])] {
        state.withLockedValue { state in state.subscribers.sorted { $0.key < $1.key }.map { ($0.key, $0.value.identity, $0.value.topics) } }
    }

    /// Mercure delivers only what the subscriber may read; a topic it may not read is not an error.
    private static func wants(_ topics: [ChannelPath], _ identity: Identity, _ channel: ChannelPath) -> Bool {
        identity.mayUse(channel) && topics.contains { $0.matches(channel) }
    }

    /// The next refusal to answer an open with, if one was asked for.
    func takeRefusal() -> Refusal? {
        state.withLockedValue { state in state.refusals.isEmpty ? nil : state.refusals.removeFirst() }
    }

    // MARK: Observation and faults

    var openStreams: Int { state.withLockedValue { $0.subscribers.count } }
    var streamsOpened: Int { state.withLockedValue { $0.opened } }

    func refuseNext(_ count: Int, status: Int, retryAfter: Int?) {
        state.withLockedValue { $0.refusals += Array(repeating: Refusal(status: status, retryAfter: retryAfter), count: count) }
    }

    /// Every open stream ends abnormally (the TCP connection closes mid-body).
    func dropAll() {
        for subscriber in state.withLockedValue({ Array($0.subscribers.values) }) { subscriber.continuation.yield(.drop) }
    }

    /// Every open stream stops sending (events and heartbeats) while its connection stays open.
    func stallAll() {
        state.withLockedValue { state in
            for id in state.subscribers.keys { state.subscribers[id]?.stalled = true }
        }
    }

    /// A heartbeat comment for stream `id`, unless it is stalled.
    func heartbeat(_ id: Int) {
        state.withLockedValue { state in
            guard let subscriber = state.subscribers[id], !subscriber.stalled else { return }
            subscriber.continuation.yield(.heartbeat)
        }
    }

    /// The text of one event on the wire: `id`, `event` (the channel), one `data:` line per line.
    static func wireText(_ event: StoredEvent) -> String {
        var text = "id: \(event.id)\nevent: \(event.channel)\n"
        for line in event.data.split(separator: "\n", omittingEmptySubsequences: false) {
            text += "data: \(line.replacingOccurrences(of: "\r", with: ""))\n"
        }
        return text + "\n"
    }
}
#endif
