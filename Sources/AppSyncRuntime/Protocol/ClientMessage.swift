import ChannelRuntime
import Foundation

/// A message the client sends over the AppSync Events WebSocket.
package enum ClientMessage: Sendable, Equatable {
    /// `connection_init`, the first frame after the upgrade.
    case connectionInit
    /// `subscribe` to `channel`, answered with `subscribe_success` or `subscribe_error` for `id`.
    case subscribe(id: String, channel: String, authorization: [String: String])
    /// `unsubscribe` the subscription `id`.
    case unsubscribe(id: String)
    /// `events` are 1–5 JSON texts, each one serialized event.
    case publish(id: String, channel: String, events: [String], authorization: [String: String])

    /// The JSON text frame. Keys are sorted and `/` is not escaped, so frames are stable and
    /// match what a signer would sign.
    package func encoded() -> String {
        var object: [String: any Sendable] = [:]
        switch self {
        case .connectionInit:
            object["type"] = "connection_init"
        case .subscribe(let id, let channel, let authorization):
            object = ["type": "subscribe", "id": id, "channel": channel, "authorization": authorization]
        case .unsubscribe(let id):
            object = ["type": "unsubscribe", "id": id]
        case .publish(let id, let channel, let events, let authorization):
            object = ["type": "publish", "id": id, "channel": channel, "events": events, "authorization": authorization]
        }
        let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }
}
