import Foundation

/// What an authorizer is asked to sign: the operation, and the request AppSync expects signed
/// (a `POST` of `body` to the API's HTTP endpoint).
public struct AuthorizationRequest: Sendable {
    /// The operation being authorized.
    public enum Operation: Sendable, Equatable {
        /// Opening the WebSocket (`connection_init`).
        case connect
        /// Subscribing to `channel`.
        case subscribe(channel: String)
        /// Publishing `events` (JSON texts) to `channel`.
        case publish(channel: String, events: [String])
    }

    /// What is being authorized.
    public var operation: Operation
    /// The API it is authorized against.
    public var endpoint: ChannelEndpoint

    /// A request to authorize `operation` against `endpoint`.
    public init(operation: Operation, endpoint: ChannelEndpoint) {
        self.operation = operation
        self.endpoint = endpoint
    }

    /// The JSON body a SigV4 signer signs: `{}` for connect, `{"channel":…}` for subscribe,
    /// `{"channel":…,"events":[…]}` for publish (keys in this order, `/` unescaped).
    public var body: String {
        switch operation {
        case .connect:
            return "{}"
        case .subscribe(let channel):
            return "{\"channel\":\(jsonString(channel))}"
        case .publish(let channel, let events):
            return "{\"channel\":\(jsonString(channel)),\"events\":[\(events.map(jsonString).joined(separator: ","))]}"
        }
    }
}

/// How the client authorizes connect, subscribe and publish, on every transport (AppSync Events'
/// header scheme, which the SSE hub takes too, bearer tokens, or a token in the query). Providers are called for every
/// operation, so rotated tokens are picked up without reconnecting. Header values are secrets:
/// the runtime never logs them.
public struct ChannelAuthorization: Sendable {
    private let makeHeaders: @Sendable (AuthorizationRequest) async throws -> [String: String]
    /// The query parameter a token goes in instead of a header (`queryToken(name:_:)`).
    private var queryParameter: String?
    private var makeToken: (@Sendable () async throws -> String)?

    private init(makeHeaders: @escaping @Sendable (AuthorizationRequest) async throws -> [String: String]) {
        self.makeHeaders = makeHeaders
    }

    /// Headers for `request`; `host` is always the HTTP endpoint's host. Throws
    /// `AuthorizationPlacementError` for a token that goes in the query (`queryToken(name:_:)`):
    /// only Server-Sent Events requests can carry it.
    public func headers(for request: AuthorizationRequest) async throws -> [String: String] {
        if let queryParameter { throw AuthorizationPlacementError.queryOnly(parameter: queryParameter) }
        var headers = try await makeHeaders(request)
        headers["host"] = request.endpoint.host
        return headers
    }

    /// Headers and query items for a request that can carry either (a Server-Sent Events `GET`).
    package func credentials(for request: AuthorizationRequest) async throws -> (headers: [String: String], query: [URLQueryItem]) {
        guard let queryParameter, let makeToken else { return (try await headers(for: request), []) }
        return (["host": request.endpoint.host], [URLQueryItem(name: queryParameter, value: try await makeToken())])
    }

    /// A bearer token in `Authorization` (`Authorization: Bearer <token>`), as most HTTP APIs
    /// take it; `token` is called for every request.
    public static func bearerToken(_ token: @escaping @Sendable () async throws -> String) -> ChannelAuthorization {
        ChannelAuthorization { _ in ["Authorization": "Bearer " + (try await token())] }
    }

    /// A token as a query parameter (`?token=<token>`), for Server-Sent Events servers that read
    /// it there (a browser's `EventSource` cannot send headers). `token` is called for every
    /// request; the value never reaches logs. Only `SSEConnection` can send it: over a WebSocket or
    /// an HTTP publish, asking for headers throws `AuthorizationPlacementError.queryOnly`.
    public static func queryToken(name: String = "token", _ token: @escaping @Sendable () async throws -> String) -> ChannelAuthorization {
        var authorization = ChannelAuthorization { _ in [:] }
        authorization.queryParameter = name
        authorization.makeToken = token
        return authorization
    }

    /// An API key (`x-api-key`).
    public static func apiKey(_ key: String) -> ChannelAuthorization {
        ChannelAuthorization { _ in ["x-api-key": key] }
    }

    /// A token in `Authorization`: a Cognito user pool or OIDC JWT, or a Lambda authorizer token.
    /// `token` is called on every connect and every subscribe.
    public static func token(_ token: @escaping @Sendable () async throws -> String) -> ChannelAuthorization {
        ChannelAuthorization { _ in ["Authorization": try await token()] }
    }

    /// Any other scheme, e.g. IAM: return every header of the request signed with SigV4
    /// (service `appsync`, a `POST` of `request.body` to `request.endpoint.http`).
    public static func custom(_ sign: @escaping @Sendable (AuthorizationRequest) async throws -> [String: String]) -> ChannelAuthorization {
        ChannelAuthorization(makeHeaders: sign)
    }

    /// The values of `headers` that are credentials, for `DiagnosticLog` to keep out of logs: all but
    /// the host, the date and the content type (an API key, a token, a signature, a session token,
    /// whatever a custom scheme sends).
    package static func secrets(in headers: [String: String]) -> [String] {
        // A bearer token's value is a secret with and without its scheme.
        headers.filter { !["host", "x-amz-date", "content-type"].contains($0.key.lowercased()) }.flatMap { entry in
            entry.value.hasPrefix("Bearer ") ? [entry.value, String(entry.value.dropFirst(7))] : [entry.value]
        }
    }

}

/// Why an authorization cannot be used where it was asked for.
public enum AuthorizationPlacementError: Error, Equatable, CustomStringConvertible {
    /// The token goes in a query parameter, which only Server-Sent Events requests carry.
    case queryOnly(parameter: String)

    public var description: String {
        switch self {
        case .queryOnly(let parameter):
            "the token goes in the query parameter '\(parameter)', which only SSEConnection requests carry; use .token or .bearerToken for this transport"
        }
    }
}

private func jsonString(_ text: String) -> String {
    let data = try! JSONSerialization.data(withJSONObject: [text], options: [.withoutEscapingSlashes])
    return String(decoding: data.dropFirst().dropLast(), as: UTF8.self)
}
