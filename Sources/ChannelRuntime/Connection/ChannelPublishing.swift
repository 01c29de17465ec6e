import Foundation

/// A connection that can publish events to a channel. `AppSyncConnection` is one (over its
/// WebSocket); a transport that only receives (SSE) is not, and publishing through it throws
/// `ChannelPublishError.unsupportedTransport`.
public protocol ChannelPublishing: Sendable {
    /// Publishes 1–5 events, each a JSON text, to a concrete channel path; throws when the service
    /// refuses any of them.
    func publishEvents(_ events: [String], to channel: String) async throws
}

/// Why a typed publish did not happen, or was refused.
public enum ChannelPublishError: Error, Equatable, Sendable, CustomStringConvertible {
    /// AppSync Events takes 1 to 5 events per publish.
    case eventCount(Int)
    /// An event's JSON is larger than AppSync's limit (`maximumEventBytes`).
    case eventTooLarge(index: Int, bytes: Int)
    /// An event could not be encoded as JSON.
    case encoding(index: Int, reason: String)
    /// The source's parameters do not name a channel (one is missing or invalid).
    case parameters(ChannelParameterError)
    /// The source's connection cannot publish (it only receives, as SSE does).
    case unsupportedTransport
    /// The source is not one that publishes (a test double without publishing).
    case unsupportedSource
    /// The connection or the service refused the publish.
    case failed(String)

    /// AppSync Events' limit for one event: 240 KB.
    public static let maximumEventBytes = 240 * 1024

    public var description: String {
        switch self {
        case .eventCount(let count): return "a publish carries 1 to 5 events, not \(count)"
        case .eventTooLarge(let index, let bytes): return "event \(index) is \(bytes) bytes; AppSync Events takes at most \(Self.maximumEventBytes)"
        case .encoding(let index, let reason): return "event \(index) cannot be encoded: \(reason)"
        case .parameters(let error): return "no channel to publish to: \(error)"
        case .unsupportedTransport: return "the connection cannot publish (it only receives)"
        case .unsupportedSource: return "this event source does not publish"
        case .failed(let reason): return "the publish failed: \(reason)"
        }
    }

    /// The JSON texts of `events`, checked against AppSync's limits before anything is sent.
    package static func encoded<Event: Encodable>(_ events: [Event]) throws(ChannelPublishError) -> [String] {
        let encoder = JSONEncoder()
        return try checked(events) { index, event throws(ChannelPublishError) in
            do {
                return String(decoding: try encoder.encode(event), as: UTF8.self)
            } catch {
                throw .encoding(index: index, reason: "\(error)")
            }
        }
    }

    /// Events carried as plain text (`String` events), with the same limits as `encoded`.
    package static func texts<Event>(_ events: [Event]) throws(ChannelPublishError) -> [String] {
        try checked(events) { index, event throws(ChannelPublishError) in
            guard let text = event as? String else { throw .encoding(index: index, reason: "events carried as text must be String, not \(Event.self)") }
            return text
        }
    }

    /// Each event's text by `text`, checked against the publish limits: 1–5 events of at most
    /// `maximumEventBytes` each.
    private static func checked<Event>(
        _ events: [Event], _ text: (Int, Event) throws(ChannelPublishError) -> String
    ) throws(ChannelPublishError) -> [String] {
        guard (1...5).contains(events.count) else { throw .eventCount(events.count) }
        var texts: [String] = []
        for (index, event) in events.enumerated() {
            let text = try text(index, event)
            guard text.utf8.count <= maximumEventBytes else { throw .eventTooLarge(index: index, bytes: text.utf8.count) }
            texts.append(text)
        }
        return texts
    }
}
