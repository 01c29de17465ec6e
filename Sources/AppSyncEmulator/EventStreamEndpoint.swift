#if Emulator
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

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

    func response(to request: Request) async -> Response {
        if let refusal = streams.takeRefusal() {
            var headers: HTTPFields = [:]
            if let seconds = refusal.retryAfter { headers[.retryAfter] = String(seconds) }
            return Response(status: HTTPResponse.Status(code: refusal.status), headers: headers)
        }
        var credentials: [String: String] = [:]
        for field in request.headers { credentials[field.name.canonicalName] = field.value }
        guard let identity = await authorizer.identity(credentials) else {
            return Self.plain(.unauthorized, "missing or invalid credentials")
        }
        let topicTexts = request.uri.queryParameters[values: "topic"]
        guard !topicTexts.isEmpty else { return Self.plain(.badRequest, "missing topic parameter") }
        var topics: [ChannelPath] = []
        for text in topicTexts {
            guard let path = try? ChannelPath(String(text), allowWildcard: true, namespaces: configuration.namespaces) else {
                return Self.plain(.badRequest, "invalid topic '\(text)'")
            }
            topics.append(path)
        }
        let lastEventID = request.headers[HTTPField.Name("Last-Event-ID")!] ?? request.uri.queryParameters["lastEventID"].map(String.init)
        let (id, replay, current, messages) = streams.open(topics: topics, identity: identity, lastEventID: lastEventID)
        let streams = self.streams
        let heartbeatInterval = configuration.eventStreamHeartbeatInterval
        let retry = configuration.eventStreamRetry
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream", .cacheControl: "no-cache", HTTPField.Name("Last-Event-ID")!: current],
            body: ResponseBody { writer in
                let heartbeats = Task {
                    while !Task.isCancelled {
                        do { try await Task.sleep(for: heartbeatInterval) } catch { return }
                        streams.heartbeat(id)
                    }
                }
                defer {
                    heartbeats.cancel()
                    streams.close(id)
                }
                let (seconds, attoseconds) = retry.components
                try await writer.write(ByteBuffer(string: "retry: \(seconds * 1000 + attoseconds / 1_000_000_000_000_000)\n\n"))
                for event in replay { try await writer.write(ByteBuffer(string: EventStreams.wireText(event))) }
                for await message in messages {
                    switch message {
                    case .event(let event): try await writer.write(ByteBuffer(string: EventStreams.wireText(event)))
                    case .heartbeat: try await writer.write(ByteBuffer(string: ":\n\n"))
                    case .drop: throw EventStreamDropped()
                    }
                }
                try await writer.finish(nil)
            })
    }

    private static func plain(_ status: HTTPResponse.Status, _ message: String) -> Response {
        Response(status: status, headers: [.contentType: "text/plain"], body: ResponseBody(byteBuffer: ByteBuffer(string: message)))
    }
}

/// Thrown inside a stream's body to end its connection without finishing the body (a drop).
struct EventStreamDropped: Error {}
#endif
