import Foundation

/// Sends an HTTP `POST`; behind a protocol so tests and apps can bring their own client.
public protocol HTTPPostClient: Sendable {
    /// Posts `body` to `url` with `headers`; returns the answer's status and body (a redirect is an answer, not followed).
    func post(_ url: URL, headers: [String: String], body: Data) async throws -> (status: Int, body: Data)
}

/// Why an HTTP `POST` got no answer.
public enum HTTPPostError: Error, Equatable, CustomStringConvertible {
    /// The URL is not `http`/`https` with a host.
    case invalidURL(String)
    /// The connection ended before a complete answer head arrived.
    case closedBeforeResponse
    /// The whole exchange took longer than the client's timeout.
    case timedOut(Duration)

    public var description: String {
        switch self {
        case .invalidURL(let url): return "'\(url)' is not an http(s) URL with a host"
        case .closedBeforeResponse: return "the connection ended before the answer arrived"
        case .timedOut(let timeout): return "no complete answer within \(timeout)"
        }
    }
}
