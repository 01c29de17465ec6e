@_spi(Generated) import ChannelRuntime
import Foundation

/// A message the AppSync Events service sends. Decoding is tolerant where the service and its
/// documentation disagree: `data.event` may be one JSON string or an array of them,
/// `connectionTimeoutMs` is read at the top level (or under `payload`), error codes may be
/// strings or numbers, and unknown fields are ignored.
package enum ServerMessage: Sendable, Equatable {
    /// `connection_ack`: the connection is ready; silence longer than `connectionTimeoutMs` means it is dead.
    case connectionAck(connectionTimeoutMs: Int?)
    /// `ka`, sent about every minute.
    case keepAlive
    /// `connection_error`: the connection was refused (credentials, for instance).
    case connectionError([ServiceError])
    /// `subscribe_success` for the subscription `id`.
    case subscribeSuccess(id: String)
    /// `subscribe_error`: the subscription `id` was refused.
    case subscribeError(id: String, [ServiceError])
    /// `unsubscribe_success` for the subscription `id`.
    case unsubscribeSuccess(id: String)
    /// `unsubscribe_error` for the subscription `id`.
    case unsubscribeError(id: String, [ServiceError])
    /// One message per event on the wire; the array form of the docs is accepted too.
    case data(id: String, events: [String])
    /// `broadcast_error`: an event for the subscription `id` could not be delivered.
    case broadcastError(id: String, [ServiceError])
    /// `publish_success` for the publish `id`, with per-event results.
    case publishSuccess(id: String, PublishResult)
    /// `publish_error`: the publish `id` was refused.
    case publishError(id: String, [ServiceError])
    /// `error`, for an operation `id` when the service names one.
    case error(id: String?, [ServiceError])
    /// A message type this client does not know; the caller logs and counts it.
    case unknown(type: String)

    /// Why a frame is not a server message; the caller logs, counts and drops it.
    package enum DecodingFailure: Error, Equatable {
        /// The frame is not a JSON object (or a number in it is out of range).
        case notJSON
        /// A field the message type needs is missing.
        case missingField(String)
    }

    /// Decodes one text frame.
    package static func decode(_ text: String) throws(DecodingFailure) -> ServerMessage {
        if let frequent = decodeFrequent(text) { return frequent }
        return try decodeAny(text)
    }

    /// `readFrequent` as a `ServerMessage`.
    static func decodeFrequent(_ text: String) -> ServerMessage? {
        switch readFrequent(text) {
        case .event(let id, let event): .data(id: id, events: [event])
        case .events(let id, let events): .data(id: id, events: events)
        case .keepAlive: .keepAlive
        case nil: nil
        }
    }

    /// Any frame, through one `Decodable` envelope.
    static func decodeAny(_ text: String) throws(DecodingFailure) -> ServerMessage {
        let envelope: Envelope
        do {
            envelope = try decoder.decode(Envelope.self, from: Data(text.utf8))
        } catch {
            throw .notJSON
        }
        guard let type = envelope.type else { throw .missingField("type") }
        func id() throws(DecodingFailure) -> String {
            guard let id = envelope.id else { throw .missingField("id") }
            return id
        }
        let errors = envelope.errors ?? []
        switch type {
        case "data":
            guard let events = envelope.event?.events else { throw .missingField("event") }
            return .data(id: try id(), events: events)
        case "ka":
            return .keepAlive
        case "connection_ack":
            return .connectionAck(connectionTimeoutMs: envelope.connectionTimeoutMs?.value ?? envelope.payload?.connectionTimeoutMs?.value)
        case "connection_error":
            return .connectionError(errors)
        case "subscribe_success":
            return .subscribeSuccess(id: try id())
        case "subscribe_error":
            return .subscribeError(id: try id(), errors)
        case "unsubscribe_success":
            return .unsubscribeSuccess(id: try id())
        case "unsubscribe_error":
            return .unsubscribeError(id: try id(), errors)
        case "broadcast_error":
            return .broadcastError(id: try id(), errors)
        case "publish_success":
            return .publishSuccess(id: try id(), PublishResult(successful: envelope.successful ?? [], failed: envelope.failed ?? []))
        case "publish_error":
            return .publishError(id: try id(), errors)
        case "error":
            return .error(id: envelope.id, errors)
        default:
            return .unknown(type: type)
        }
    }

    private static let decoder = JSONDecoder()

    /// The frames that arrive most, as `readFrequent` reads them: a `data` frame's one event is
    /// not put in an array (the service sends one per frame; an array is an allocation per event).
    enum FrequentMessage {
        case event(id: String, event: String)
        case events(id: String, events: [String])
        case keepAlive
    }

    /// `data` and `ka` frames, nearly every frame there is, in one pass over the bytes with no
    /// `JSONDecoder`: the event string is unescaped once. `nil` for any other frame and for anything
    /// unusual (another key, a repeated key, a value of another kind), which the general decoding
    /// then reads; wherever this answers, both answer the same (`ServerMessageFastPathTests`).
    static func readFrequent(_ text: String) -> FrequentMessage? {
        var text = text
        return text.withUTF8 { bytes -> FrequentMessage? in
            var scanner = JSONScanner(bytes)
            var type: String?
            var id: String?
            var event: String?
            var events: [String]?
            do {
                try scanner.readObject { scanner, key throws(JSONScanner.Failure) in
                    switch key {
                    case "type" where type == nil:
                        type = try scanner.readString()
                    case "id" where id == nil:
                        id = try scanner.readString()
                    case "event" where event == nil && events == nil:
                        if scanner.peek() == UInt8(ascii: "[") {
                            var list: [String] = []
                            try scanner.readArray { element throws(JSONScanner.Failure) in list.append(try element.readString()) }
                            events = list
                        } else {
                            event = try scanner.readString()
                        }
                    default:
                        throw JSONScanner.Failure(offset: scanner.offset, reason: "not a data or ka frame")
                    }
                }
                try scanner.expectEnd()
            } catch {
                return nil
            }
            switch type {
            case "data":
                guard let id else { return nil }
                if let event { return .event(id: id, event: event) }
                if let events { return .events(id: id, events: events) }
                return nil
            case "ka":
                return id == nil && event == nil && events == nil ? .keepAlive : nil
            default:
                return nil
            }
        }
    }

    /// Every field any server message carries; one decoding pass, unknown fields ignored.
    private struct Envelope: Decodable {
        var type: String?
        var id: String?
        var event: EventField?
        var connectionTimeoutMs: LenientInt?
        var payload: Payload?
        var errors: [ServiceError]?
        var successful: [PublishResult.Success]?
        var failed: [PublishResult.Failure]?

        struct Payload: Decodable {
            var connectionTimeoutMs: LenientInt?
        }
    }

    /// `event`: one JSON string (what the service sends) or an array of them (what its docs show).
    private struct EventField: Decodable {
        var events: [String]

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let single = try? container.decode(String.self) {
                events = [single]
            } else {
                events = try container.decode([String].self)
            }
        }
    }
}

/// A number that may arrive as a JSON number or a string. A number outside `Int`'s range (`1e19`),
/// NaN or infinity is a decoding error, so the frame is dropped and counted: `Int(Double)` would trap,
/// and server input must never end the process.
struct LenientInt: Decodable {
    var value: Int?

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int.self) {
            value = number
        } else if let number = try? container.decode(Double.self) {
            guard number.isFinite, let exact = Int(exactly: number.rounded(.towardZero)) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(number) is not an Int")
            }
            value = exact
        } else {
            value = Int(try container.decode(String.self))
        }
    }
}

/// The outcome of a publish (WebSocket or HTTP): per-event successes and failures.
public struct PublishResult: Sendable, Equatable {
    /// An event the service accepted.
    public struct Success: Sendable, Equatable, Decodable {
        /// The service's identifier of the event.
        public var identifier: String
        /// The event's position in the published list.
        public var index: Int

        /// An accepted event.
        public init(identifier: String, index: Int) {
            self.identifier = identifier
            self.index = index
        }

        private enum CodingKeys: String, CodingKey { case identifier, index }

        /// Decodes the service's JSON, accepting numbers or strings where the service and its docs differ.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            identifier = (try? container.decodeIfPresent(String.self, forKey: .identifier)) ?? ""
            // An index that is not an Int fails the whole frame (dropped and counted) rather than read as 0.
            index = try container.decodeIfPresent(LenientInt.self, forKey: .index)?.value ?? 0
        }
    }

    /// An event the service refused, with why.
    public struct Failure: Sendable, Equatable, Decodable {
        /// The service's identifier of the event, when it gave one.
        public var identifier: String?
        /// The event's position in the published list.
        public var index: Int
        /// A number or a string on the wire (`401`, `"EventTooLargeException"`).
        public var code: String?
        /// The service's explanation.
        public var message: String?

        /// A refused event.
        public init(identifier: String?, index: Int, code: String?, message: String?) {
            self.identifier = identifier
            self.index = index
            self.code = code
            self.message = message
        }

        private enum CodingKeys: String, CodingKey { case identifier, index, code, message }

        /// Decodes the service's JSON, accepting numbers or strings where the service and its docs differ.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            identifier = try? container.decodeIfPresent(String.self, forKey: .identifier)
            index = try container.decodeIfPresent(LenientInt.self, forKey: .index)?.value ?? 0
            code = (try? container.decodeIfPresent(LenientCode.self, forKey: .code))??.text
            message = try? container.decodeIfPresent(String.self, forKey: .message)
        }
    }

    /// The events the service accepted.
    public var successful: [Success]
    /// The events the service refused.
    public var failed: [Failure]

    /// A publish result.
    public init(successful: [Success], failed: [Failure]) {
        self.successful = successful
        self.failed = failed
    }

    /// Decodes an HTTP publish response body (`{"successful": […], "failed": […]}`).
    package static func decode(_ data: Data) -> PublishResult? {
        struct Body: Decodable {
            var successful: [Success]?
            var failed: [Failure]?
        }
        guard let body = try? JSONDecoder().decode(Body.self, from: data) else { return nil }
        return PublishResult(successful: body.successful ?? [], failed: body.failed ?? [])
    }
}

