/// Settings of an `AppSyncConnection`. The defaults follow the seeds: a fixed 10 s reconnect delay,
/// a planned reconnect shortly before the service's 24 h connection limit.
public struct AppSyncConfiguration: Sendable {
    /// The API to connect to.
    public var endpoint: AppSyncEndpoint
    /// How every connect, subscribe and publish is authorized.
    public var authorization: AppSyncAuthorization
    /// Delay before reconnecting after an abnormal end. Default: fixed 10 s.
    public var reconnectPolicy: ReconnectPolicy = .fixed(.seconds(10))
    /// Asked before every connection attempt; while it returns false the connection waits
    /// `signedOutRetryInterval` and asks again.
    public var isSignedIn: @Sendable () async -> Bool = { true }
    /// How long to wait before asking `isSignedIn` again.
    public var signedOutRetryInterval: Duration = .seconds(10)
    /// Upper bound for the WebSocket upgrade plus `connection_ack`.
    public var connectTimeout: Duration = .seconds(15)
    /// Upper bound for `subscribe_success`, `unsubscribe_success` and `publish_success`.
    public var operationTimeout: Duration = .seconds(15)
    /// Silence allowed when `connection_ack` carries no `connectionTimeoutMs` (AppSync sends 300000).
    public var defaultKeepAliveTimeout: Duration = .seconds(300)
    /// Reconnect proactively after this long; AppSync ends connections after 24 h.
    public var plannedReconnectInterval: Duration = .seconds(24 * 3600 - 5 * 60)

    /// Settings with the defaults above for `endpoint` and `authorization`.
    public init(endpoint: AppSyncEndpoint, authorization: AppSyncAuthorization) {
        self.endpoint = endpoint
        self.authorization = authorization
    }
}

/// How long to wait before the next connection attempt.
public struct ReconnectPolicy: Sendable {
    private let delay: @Sendable (_ failedAttempts: Int) -> Duration?

    /// `failedAttempts` counts the attempts since the last successful connection (1 for the first retry).
    /// `nil` means give up (the connection ends in `.failed(.gaveUp)`).
    public init(_ delay: @escaping @Sendable (_ failedAttempts: Int) -> Duration?) {
        self.delay = delay
    }

    /// The delay before the next attempt, or `nil` to give up.
    public func delay(afterFailedAttempts attempts: Int) -> Duration? { delay(attempts) }

    /// The same delay every time (the seeds' policy: 10 s).
    public static func fixed(_ delay: Duration) -> ReconnectPolicy { ReconnectPolicy { _ in delay } }

    /// Doubling delays from `initial` up to `maximum`.
    public static func exponential(initial: Duration, maximum: Duration) -> ReconnectPolicy {
        ReconnectPolicy { attempts in
            var delay = initial
            for _ in 1..<max(attempts, 1) where delay < maximum { delay *= 2 }
            return min(delay, maximum)
        }
    }

    /// Never reconnect: the first abnormal end is final.
    public static let never = ReconnectPolicy { _ in nil }
}

/// What the connection is doing; observe it with `AppSyncConnection.stateUpdates()`.
public enum ConnectionState: Sendable, Equatable {
    /// Not started.
    case idle
    /// Opening the WebSocket and waiting for `connection_ack`.
    case connecting
    /// Acknowledged: subscriptions are (re)sent and events flow.
    case connected
    /// Waiting `after` before the next attempt (after a drop, or while signed out).
    case reconnecting(after: Duration)
    /// Ended by the app (`disconnect()`); no reconnect until `start()`.
    case disconnected
    /// Ended for good: retrying cannot help.
    case failed(ConnectionFailure)
}

/// Why a connection ended for good.
public enum ConnectionFailure: Error, Sendable, Equatable {
    /// The service rejected the credentials (`UnauthorizedException`, 401/403).
    case unauthorized([ServiceError])
    /// The service rejected the connection for another reason that retrying cannot fix.
    case rejected([ServiceError])
    /// The reconnect policy gave up.
    case gaveUp
}

/// Errors of single operations.
public enum AppSyncError: Error, Sendable, Equatable {
    /// The operation needs a connected session.
    case notConnected
    /// The service did not answer within `operationTimeout`.
    case timedOut
    /// The connection ended before the operation completed.
    case connectionLost
    /// The connection already has the most subscriptions AppSync allows.
    case subscriptionLimitReached(Int)
    /// The service refused the operation.
    case service([ServiceError])
    /// The publish cannot be sent as it is (event count, authorization).
    case invalidPublish(String)
}
