#if Emulator
import Foundation
import Logging
import NIOHTTP1

/// `GET /.well-known/mercure?topic=<channel>&topic=…`: the Mercure subscription endpoint. One
/// `text/event-stream` per request carrying every named channel (`…/*` wildcards too) that the
/// caller's API key or JWT may read; `Last-Event-ID` (header, or Mercure's `lastEventID` query
/// parameter) replays what was published after that event; the response's `Last-Event-ID` names the
/// last event published so far, so a client that has received none yet can still resume from there;
/// `retry:` first, heartbeat comments while idle.
struct EventStreamEndpoint: Sendable {
    let configuration: EmulatorConfiguration
    let streams: EventStreams
    let authorizer: EmulatorAuthorizer
    let logger: Logger

    func response(to request: EmulatorRequest) async -> EmulatorResponse {
        if let refusal = streams.takeRefusal() {
            let headers = refusal.retryAfter.map { [("Retry-After", String($0))] } ?? []
            return .complete(HTTPResponseStatus(statusCode: refusal.status), headers: headers, body: "")
        }
        guard let identity = await authorizer.identity(request.headerFields) else {
            return .plain(.unauthorized, "missing or invalid credentials")
        }
        let topicTexts = request.queryValues("topic")
        guard !topicTexts.isEmpty else { return .plain(.badRequest, "missing topic parameter") }
        var topics: [ChannelPath] = []
        for text in topicTexts {
            guard let path = try? ChannelPath(text, allowWildcard: true, namespaces: configuration.namespaces) else {
                return .plain(.badRequest, "invalid topic '\(text)'")
            }
            topics.append(path)
        }
        let lastEventID = request.headerFields["last-event-id"] ?? request.queryValues("lastEventID").first
        let (id, replay, current, messages) = streams.open(topics: topics, identity: identity, lastEventID: lastEventID)
        let streams = self.streams
        let heartbeatInterval = configuration.eventStreamHeartbeatInterval
        let retry = configuration.eventStreamRetry
        return .stream(
            headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache"), ("Last-Event-ID", current)],
            body: { writer in
                let heartbeats = Task {
                    while !Task.isCancelled {
                        do { try await Task.sleep(for: heartbeatInterval) } catch { return }
                        streams.heartbeat(id)
                    }
                }
                // A client that goes away ends its stream even while nothing is written (a stall).
                writer.closed.whenComplete { _ in streams.close(id) }
                defer {
                    heartbeats.cancel()
                    streams.close(id)
                }
                let (seconds, attoseconds) = retry.components
                try await writer.write("retry: \(seconds * 1000 + attoseconds / 1_000_000_000_000_000)\n\n")
                for event in replay { try await writer.write(EventStreams.wireText(event)) }
                for await message in messages {
                    switch message {
                    case .event(let event): try await writer.write(EventStreams.wireText(event))
                    case .heartbeat: try await writer.write(":\n\n")
                    case .drop: throw EventStreamDropped()
                    }
                }
            })
    }
}

/// Thrown inside a stream's body to end its connection without finishing the body (a drop).
struct EventStreamDropped: Error {}
#endif
