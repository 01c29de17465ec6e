import ChannelRuntime
import Foundation

/// How AppSync Events' WebSocket carries the connect authorization: in a subprotocol.
extension ChannelAuthorization {
    /// The `header-<base64url(JSON)>` WebSocket subprotocol that carries connect authorization.
    package static func headerSubprotocol(_ headers: [String: String]) -> String {
        let json = try! JSONSerialization.data(withJSONObject: headers, options: [.sortedKeys, .withoutEscapingSlashes])
        return "header-" + base64URL(json)
    }

    /// Base64url (RFC 4648 §5) without padding: `=` and `/` are not legal in `Sec-WebSocket-Protocol`.
    package static func base64URL(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The subprotocol AppSync Events requires next to the auth subprotocol.
    package static let eventSubprotocol = "aws-appsync-event-ws"
}
