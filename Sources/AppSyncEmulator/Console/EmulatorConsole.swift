// Compiled with the Emulator trait (on by default); without it this module is empty.
#if Emulator
import Foundation
import NIOHTTP1

/// The emulator's page for people: `GET /console` (the page), `GET /console/state` (what it shows,
/// as JSON), `POST /console/faults` (drop, freeze, reject the next connect). Publishing from the
/// page is AppSync's own `POST /event`.
///
/// Only the emulator's own loopback address is answered (`Host` must name it, and a `POST` must be
/// JSON from the page itself), so a web page elsewhere cannot read it or drive it through the
/// browser (DNS rebinding, cross-site requests).
struct EmulatorConsole: Sendable {
    let broker: EmulatorBroker
    let port: Int

    func response(to request: EmulatorRequest) async -> EmulatorResponse? {
        guard request.path == "/console" || request.path.hasPrefix("/console/") else { return nil }
        guard address.isOwnHost(request.headerFields["host"]) else {
            return .plain(.forbidden, "the console answers only at http://127.0.0.1:\(port)/console")
        }
        switch (request.method, request.path) {
        case (.GET, "/console"), (.GET, "/console/"):
            return .complete(.ok, headers: [("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store")] + Self.noFraming, body: ConsolePage.html)
        case (.GET, "/console/state"):
            return .complete(.ok, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")], body: await state())
        case (.POST, "/console/faults"):
            guard request.headerFields["content-type"]?.hasPrefix("application/json") == true,
                  request.headerFields["origin"].map(address.isOwnOrigin) ?? true
            else { return .plain(.forbidden, "faults are injected from the console page") }
            return await fault(request)
        default:
            return .plain(.notFound, "not found")
        }
    }

    private var address: LoopbackAddress { LoopbackAddress(port: port) }

    /// The page may not be framed by another site (clickjacking its fault buttons).
    private static let noFraming = [("X-Frame-Options", "DENY"), ("Content-Security-Policy", "frame-ancestors 'none'")]

    /// Connections (WebSocket and event streams) with their subscriptions, and the latest events.
    func state() async -> String {
        let streams = broker.streams.consoleStreams.map { id, identity, topics in
            ConsoleConnection(
                id: "sse-\(id)", transport: "Server-Sent Events", identity: identity.consoleDescription,
                subscriptions: topics.map { ConsoleSubscription(id: nil, channel: $0.text) })
        }
        let state = ConsoleState(
            connections: await broker.consoleConnections + streams,
            events: (await broker.recentEvents).reversed())
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return (try? String(decoding: encoder.encode(state), as: UTF8.self)) ?? "{}"
    }

    private func fault(_ request: EmulatorRequest) async -> EmulatorResponse {
        let object = (try? JSONSerialization.jsonObject(with: Data(request.body.readableBytesView))) as? [String: Any]
        switch object?["action"] as? String {
        case "drop": await broker.dropConnections()
        case "freeze": await broker.freezeConnections()
        case "rejectNextConnect": await broker.rejectNextConnects(1)
        default: return .plain(.badRequest, "action must be drop, freeze or rejectNextConnect")
        }
        return .complete(.ok, headers: [("Content-Type", "application/json")], body: #"{"ok":true}"#)
    }
}

struct ConsoleState: Encodable {
    var connections: [ConsoleConnection]
    /// Newest first.
    var events: [ConsoleEvent]
}

struct ConsoleConnection: Encodable {
    var id: String
    var transport: String
    var identity: String
    var subscriptions: [ConsoleSubscription]
}

struct ConsoleSubscription: Encodable {
    /// The client's subscription id (WebSocket only).
    var id: String?
    var channel: String
}

/// A published event as the console lists it.
struct ConsoleEvent: Encodable, Sendable {
    var channel: String
    /// The id its Server-Sent Events carry (`id:`, what a client's `ChannelEnvelope.id` says); the
    /// WebSocket sends the same event without one.
    var id: String
    /// The event's `eventType`, when it is a JSON object that has one.
    var eventType: String?
    var bytes: Int
    /// How many subscriptions and streams it was sent to.
    var deliveredTo: Int
    var at: Date

    init(channel: String, event: String, id: String, deliveredTo: Int, at: Date) {
        self.channel = channel
        self.id = id
        bytes = event.utf8.count
        self.deliveredTo = deliveredTo
        self.at = at
        // Events are at most 240 KB; a type is read from small ones only, the rest show their size.
        if bytes <= 16 << 10, let object = (try? JSONSerialization.jsonObject(with: Data(event.utf8))) as? [String: Any] {
            eventType = (object["eventType"] as? String).map { String($0.prefix(200)) }
        }
    }
}

extension ChannelPath {
    /// The path as written in a subscribe or publish (`/` joined, `/*` for a wildcard).
    var text: String { segments.joined(separator: "/") + (isWildcard ? "/*" : "") }
}

extension Identity {
    var consoleDescription: String {
        switch self {
        case .apiKey: "API key"
        case .user(let sub): "user \(sub)"
        }
    }
}
#endif
