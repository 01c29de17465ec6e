import Foundation

/// Opens one `GET` whose response is an event stream; behind a protocol so tests and apps can
/// bring their own HTTP client. A connection given none uses `URLSessionEventStreamTransport` on Apple
/// platforms and `NIOEventStreamTransport` elsewhere.
public protocol EventStreamTransport: Sendable {
    /// Sends `GET url` with `headers` and returns once the response head arrived. Redirects are
    /// answers, not followed (credentials never go to another host). Cancelling the calling task
    /// cancels the request and closes its socket. What the response needs while its body arrives
    /// (the socket's reader) runs in `tasks`: children of the connection's root.
    func open(_ url: URL, headers: [(name: String, value: String)], tasks: TransportTasks) async throws -> EventStreamResponse
}

/// An HTTP response whose body arrives as it is sent.
public struct EventStreamResponse: Sendable {
    /// The status code.
    public let status: Int
    /// Header fields, names lowercased; a repeated field's values are joined with `, `.
    public let headers: [String: String]
    /// The body's bytes as they arrive; finishes when the response ends, normally or not.
    public let body: AsyncStream<[UInt8]>
    private let closeConnection: @Sendable () -> Void

    /// A response; `close` ends it at once (the body finishes, the socket closes).
    public init(status: Int, headers: [String: String], body: AsyncStream<[UInt8]>, close: @escaping @Sendable () -> Void) {
        self.status = status
        self.headers = headers
        self.body = body
        self.closeConnection = close
    }

    /// Ends the response now: its socket closes and `body` finishes.
    public func close() { closeConnection() }
}

/// Why an event stream could not be opened.
package enum EventStreamTransportError: Error, Equatable, CustomStringConvertible {
    /// The URL is not `http`/`https` with a host.
    case invalidURL(String)
    /// The connection ended before a response head arrived.
    case closedBeforeResponse

    package var description: String {
        switch self {
        case .invalidURL(let url): return "'\(url)' is not an http(s) URL with a host"
        case .closedBeforeResponse: return "the connection ended before the response head arrived"
        }
    }
}
