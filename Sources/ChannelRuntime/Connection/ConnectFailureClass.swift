/// Why an attempt to connect failed, in the classes a rollout dashboard breaks its error rate
/// down by. Counted in `RuntimeMetrics.Snapshot.connectFailures` and in swift-metrics as
/// `channelgen_connect_failures` with the `class` dimension (the raw value).
public enum ConnectFailureClass: String, Sendable, CaseIterable, CustomStringConvertible {
    /// The credentials were refused (HTTP 401, AppSync's `UnauthorizedException`).
    case unauthorized
    /// Authenticated but not allowed (HTTP 403).
    case forbidden
    /// No such endpoint or stream (HTTP 404, a job that does not exist).
    case notFound = "not_found"
    /// Too many requests (HTTP 429, throttling).
    case rateLimited = "rate_limited"
    /// The service failed (HTTP 5xx).
    case serverError = "server_error"
    /// The service refused for another reason (another status, a malformed request).
    case refused
    /// The transport could not be opened, or it ended before the service accepted the session
    /// (no route, connection refused, TLS, a failed WebSocket upgrade, a drop).
    case network
    /// Opening plus the service's acceptance took longer than the connect timeout, or the
    /// transport's own limit on the TCP connect ran out first (`TransportConnectTimedOut`).
    case timedOut = "timed_out"

    public var description: String { rawValue }

    /// The class of a refusal: the HTTP status or error code the service named, else its error
    /// type, else what the refusal's kind says.
    package init(_ refusal: ConnectionStateMachine.Refusal) {
        let errors: [ServiceError]
        switch refusal {
        case .unauthorized(let list), .rejected(let list), .retryable(let list, _): errors = list
        }
        if let named = errors.lazy.compactMap(Self.init(serviceError:)).first {
            self = named
        } else if case .unauthorized = refusal {
            self = .unauthorized
        } else {
            self = .refused
        }
    }

    /// The class one service error names by its code or its type, if it names one.
    private init?(serviceError error: ServiceError) {
        switch error.code.flatMap({ Int($0) }) {
        case 401: self = .unauthorized
        case 403: self = .forbidden
        case 404: self = .notFound
        case 429: self = .rateLimited
        case .some(500...599): self = .serverError
        default:
            let type = error.errorType?.prefix(200).lowercased() ?? ""
            let byType: [(String, ConnectFailureClass)] = [
                ("unauthorized", .unauthorized), ("forbidden", .forbidden), ("accessdenied", .forbidden), ("not_found", .notFound),
                ("notfound", .notFound), ("throttl", .rateLimited), ("toomanyrequests", .rateLimited), ("internalfailure", .serverError),
                ("serviceunavailable", .serverError), ("internalserver", .serverError),
            ]
            guard let match = byType.first(where: { type.contains($0.0) }) else { return nil }
            self = match.1
        }
    }
}
