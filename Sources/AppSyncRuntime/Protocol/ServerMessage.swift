import ChannelRuntime
import Foundation

/// A message the AppSync Events service sends. Decoding is tolerant where the service and its
/// documentation disagree: `data.event` may be one JSON string or an array of them,
/// `connectionTimeoutMs` is read at the top level (or under `payload`), error codes may be
/// strings or numbers, and unknown fields are ignored.
public enum ServerMessage: Sendable, Equatable {
    case connectionAck(connectionTimeoutMs: Int?)
    case keepAlive
    case connectionError([ServiceError])
    case subscribeSuccess(id: String)
    case subscribeError(id: String, [ServiceError])
    case unsubscribeSuccess(id: String)
    case unsubscribeError(id: String, [ServiceError])
    /// One message per event on the wire; the array form of the docs is accepted too.
    case data(id: String, events: [String])
    case broadcastError(id: String, [ServiceError])
    case publishSuccess(id: String, PublishResult)
    case publishError(id: String, [ServiceError])
    case error(id: String?, [ServiceError])
    /// A message type this client does not know; the caller logs and counts it.
    case unknown(type: String)

    public enum DecodingFailure: Error, Equatable {
        case notJSON
        case missingField(String)
    }

    /// Decodes one text frame.
    public static func decode(_ text: String) throws(DecodingFailure) -> ServerMessage {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw .notJSON
        }
        guard let type = object["type"] as? String else { throw .missingField("type") }
        func id() throws(DecodingFailure) -> String {
            guard let id = object["id"] as? String else { throw .missingField("id") }
            return id
        }
        let errors = (object["errors"] as? [[String: Any]] ?? []).map(ServiceError.init(json:))
        switch type {
        case "connection_ack":
            let payload = object["payload"] as? [String: Any]
            let timeout = integer(object["connectionTimeoutMs"]) ?? integer(payload?["connectionTimeoutMs"])
            return .connectionAck(connectionTimeoutMs: timeout)
        case "ka":
            return .keepAlive
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
        case "data":
            let events: [String]
            if let single = object["event"] as? String {
                events = [single]
            } else if let many = object["event"] as? [String] {
                events = many
            } else {
                throw .missingField("event")
            }
            return .data(id: try id(), events: events)
        case "broadcast_error":
            return .broadcastError(id: try id(), errors)
        case "publish_success":
            return .publishSuccess(id: try id(), PublishResult(json: object))
        case "publish_error":
            return .publishError(id: try id(), errors)
        case "error":
            return .error(id: object["id"] as? String, errors)
        default:
            return .unknown(type: type)
        }
    }
}

/// One entry of an `errors` list.
public struct ServiceError: Sendable, Equatable, CustomStringConvertible {
    public var errorType: String?
    public var message: String?
    /// `errorCode`, which the service sends as a number or a string, or not at all.
    public var code: String?

    public init(errorType: String?, message: String?, code: String? = nil) {
        self.errorType = errorType
        self.message = message
        self.code = code
    }

    init(json: [String: Any]) {
        self.init(errorType: json["errorType"] as? String, message: json["message"] as? String, code: codeText(json["errorCode"]))
    }

    /// Authorization failures that retrying with the same credentials cannot fix.
    public var isAuthorizationFailure: Bool {
        let types: Set<String> = ["UnauthorizedException", "Unauthorized", "NotAuthorizedException", "ForbiddenException"]
        if let errorType, types.contains(errorType) { return true }
        if let code, ["401", "403"].contains(code) { return true }
        return message?.localizedCaseInsensitiveContains("token expired") == true
    }

    /// Failures that the same request will always get (authorization, malformed requests).
    public var isNonRetryable: Bool {
        isAuthorizationFailure || errorType == "BadRequestException" || code == "400"
    }

    public var description: String {
        [errorType, code.map { "code \($0)" }, message].compactMap { $0 }.joined(separator: ": ")
    }
}

/// The outcome of a publish (WebSocket or HTTP): per-event successes and failures.
public struct PublishResult: Sendable, Equatable {
    public struct Success: Sendable, Equatable {
        public var identifier: String
        public var index: Int

        public init(identifier: String, index: Int) {
            self.identifier = identifier
            self.index = index
        }
    }

    public struct Failure: Sendable, Equatable {
        public var identifier: String?
        public var index: Int
        /// A number or a string on the wire (`401`, `"EventTooLargeException"`).
        public var code: String?
        public var message: String?

        public init(identifier: String?, index: Int, code: String?, message: String?) {
            self.identifier = identifier
            self.index = index
            self.code = code
            self.message = message
        }
    }

    public var successful: [Success]
    public var failed: [Failure]

    public init(successful: [Success], failed: [Failure]) {
        self.successful = successful
        self.failed = failed
    }

    init(json: [String: Any]) {
        successful = (json["successful"] as? [[String: Any]] ?? []).map {
            Success(identifier: $0["identifier"] as? String ?? "", index: integer($0["index"]) ?? 0)
        }
        failed = (json["failed"] as? [[String: Any]] ?? []).map {
            Failure(identifier: $0["identifier"] as? String, index: integer($0["index"]) ?? 0, code: codeText($0["code"]), message: $0["message"] as? String)
        }
    }
}

private func integer(_ value: Any?) -> Int? {
    if let number = value as? NSNumber { return number.intValue }
    if let text = value as? String { return Int(text) }
    return nil
}

private func codeText(_ value: Any?) -> String? {
    if let text = value as? String { return text }
    if let number = value as? NSNumber { return number.stringValue }
    return nil
}
