#if Emulator
import Foundation

/// Server messages of the AppSync Events protocol, as the service writes them.
enum ProtocolMessages {
    static func json(_ object: [String: Any]) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]), as: UTF8.self)
    }

    static func error(_ type: String, _ message: String, code: Int? = nil) -> [String: Any] {
        var error: [String: Any] = ["errorType": type, "message": message]
        if let code { error["errorCode"] = code }
        return error
    }

    static func connectionAck(timeoutMs: Int) -> String { json(["type": "connection_ack", "connectionTimeoutMs": timeoutMs]) }
    static let keepAlive = #"{"type":"ka"}"#
    static func connectionError(_ errors: [[String: Any]]) -> String { json(["type": "connection_error", "errors": errors]) }
    static func subscribeSuccess(id: String) -> String { json(["type": "subscribe_success", "id": id]) }
    static func subscribeError(id: String, _ errors: [[String: Any]]) -> String { json(["type": "subscribe_error", "id": id, "errors": errors]) }
    static func unsubscribeSuccess(id: String) -> String { json(["type": "unsubscribe_success", "id": id]) }
    static func unsubscribeError(id: String, _ errors: [[String: Any]]) -> String { json(["type": "unsubscribe_error", "id": id, "errors": errors]) }
    /// One event per message, `event` holding the JSON text (as the live service sends it).
    static func data(id: String, event: String) -> String { json(["type": "data", "id": id, "event": event]) }
    static func publishSuccess(id: String, _ result: [String: Any]) -> String {
        json(result.merging(["type": "publish_success", "id": id]) { $1 })
    }
    static func publishError(id: String, _ errors: [[String: Any]]) -> String { json(["type": "publish_error", "id": id, "errors": errors]) }
    static func error(id: String?, _ errors: [[String: Any]]) -> String {
        var object: [String: Any] = ["type": "error", "errors": errors]
        if let id { object["id"] = id }
        return json(object)
    }
}
#endif
