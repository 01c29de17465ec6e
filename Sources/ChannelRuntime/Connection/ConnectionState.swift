/// What a connection is doing; observe it with the connection's `stateUpdates()`.
public enum ConnectionState: Sendable, Equatable {
    /// Not started.
    case idle
    /// Opening the transport and waiting for the service to accept the session.
    case connecting
    /// Accepted: subscriptions are (re)sent and events flow.
    case connected
    /// Waiting `after` before the next attempt, `because` the last connection ended so (a drop, a
    /// close code, a keep-alive time-out).
    case reconnecting(after: Duration, because: ConnectionEnd)
    /// No network path (as the app's path monitor said): nothing is attempted until one comes back,
    /// which connects at once.
    case waitingForNetwork
    /// Suspended by the app (`suspend()`, e.g. in the background): no connection and no reconnect
    /// until `resume()`, which connects at once; subscriptions and streams stay.
    case suspended
    /// Ended by the app (`disconnect()`); no reconnect until `start()`.
    case disconnected
    /// Ended for good: retrying cannot help.
    case failed(ConnectionFailure)
    /// The service closed the connection with a code the settings treat as final (by default 1000,
    /// a normal close: `AppSyncConfiguration.finalCloseCodes`), or no user is signed in
    /// (`.closed(.signedOut)`); no reconnect until `start()`.
    case closed(ConnectionEnd)
}

/// Why a connection ended: what the peer or the network did, or what the client saw.
public enum ConnectionEnd: Sendable, Equatable, CustomStringConvertible {
    /// The peer closed the WebSocket with `code` and `reason` (1000 normal, 1001 going away, 1011
    /// server error, 4000–4999 the service's own).
    case closed(code: Int, reason: String)
    /// The transport ended without a close from the peer: a WebSocket with no close frame (1006),
    /// or the end of a Server-Sent Events response.
    case dropped
    /// The transport could not open, or failed while open (refused, TLS, reset).
    case transportError(String)
    /// Nothing arrived within the keep-alive timeout: the server or the network path is gone.
    case keepAliveTimeout
    /// Opening, the service's acceptance or a subscribe's answer took longer than its bound.
    case timedOut
    /// The service refused the session for now (a retryable error).
    case refused([ServiceError])
    /// No user is signed in (the configuration's `isSignedIn` said so before an attempt): the
    /// connection stopped (`.closed(.signedOut)`); `start()` after sign-in connects again.
    case signedOut

    public var description: String {
        switch self {
        case .closed(let code, let reason): reason.isEmpty ? "closed by the peer (code \(code))" : "closed by the peer (code \(code): \(reason))"
        case .dropped: "the connection dropped without a close"
        case .transportError(let error): "transport error: \(error)"
        case .keepAliveTimeout: "nothing arrived within the keep-alive timeout"
        case .timedOut: "timed out"
        case .refused(let errors): "refused: \(errors.map(\.description).joined(separator: "; "))"
        case .signedOut: "signed out"
        }
    }
}

/// Why a connection ended for good.
public enum ConnectionFailure: Error, Sendable, Equatable {
    /// The service rejected the credentials (`UnauthorizedException`, 401/403), also after one
    /// attempt with credentials fetched anew from the provider.
    case unauthorized([ServiceError])
    /// The service rejected the connection for another reason that retrying cannot fix.
    case rejected([ServiceError])
    /// The reconnect policy gave up.
    case gaveUp

    /// What a subscription's `.failed` status says when its connection failed this way: the
    /// service's errors, or one naming the reconnect policy's end.
    package var serviceErrors: [ServiceError] {
        switch self {
        case .unauthorized(let errors), .rejected(let errors): errors
        case .gaveUp: [ServiceError(errorType: "ConnectionGaveUp", message: "the reconnect policy gave up; start() connects again")]
        }
    }
}

extension ConnectionEnd {
    /// What a subscription's `.failed` says when the connection ended for good: the service closed
    /// it with a final code, or the user signed out.
    package var finalCloseErrors: [ServiceError] {
        if case .signedOut = self { return [ServiceError(errorType: "SignedOut", message: "signed out; start() after sign-in connects again")] }
        let code: String? = if case .closed(let code, _) = self { String(code) } else { nil }
        return [ServiceError(errorType: "ConnectionClosed", message: "\(description); start() connects again", code: code)]
    }
}

/// Where one subscription stands; observe it with the event source's `statusUpdates(for:)`.
public enum SubscriptionStatus: Sendable, Equatable {
    /// The channel needs a parameter that is not set (such as the user id before sign-in).
    case waitingForParameter
    /// Sent, or waiting for the connection to send it.
    case subscribing
    /// The service confirmed the subscription; events flow.
    case active
    /// The service confirmed the subscription and events flow, but some did not arrive as the spec
    /// declares them: an event type no message of the channel names (delivered all the same), a
    /// payload that did not decode (dropped), or events that came faster than they were decoded
    /// (dropped). Each is counted in `RuntimeMetrics` and logged once.
    case degraded(DeliveryProblems)
    /// The service refused the subscription; it is tried again after the retry delay.
    case rejected([ServiceError])
    /// Given up: the service kept refusing, or the connection failed or was closed for good (until
    /// `start()`; the errors say which).
    case failed([ServiceError])
}

extension SubscriptionStatus {
    /// The service confirmed the subscription and events flow (`.active` or `.degraded`).
    public var isActive: Bool {
        switch self {
        case .active, .degraded: true
        case .waitingForParameter, .subscribing, .rejected, .failed: false
        }
    }
}

/// What kept some of a subscription's events from arriving as its channel's messages declare them.
/// It only grows while the subscription's consumers stay; the counts are in `RuntimeMetrics.Channel`.
public struct DeliveryProblems: Sendable, Hashable {
    /// Event types the service sent that no message of the channel declares, in the order they
    /// first came (at most `undeclaredEventTypesLimit`). On a channel with one message such events
    /// are delivered all the same; on a channel of several they arrive as the enum's `unknown` case.
    public var undeclaredEventTypes: [String] = []
    /// Some payloads did not decode as the channel's message and were dropped.
    public var undecodablePayloads = false
    /// Some events were dropped unread because they arrived faster than they were decoded (the
    /// connection keeps at most 10 000 events or 8 MiB waiting per subscription; counted in
    /// `RuntimeMetrics.Channel.overflowed`); update consumers got a `.gap` for each loss.
    public var undecodedEventsDropped = false

    /// How many distinct undeclared event types are kept (and logged); more are only counted.
    public static let undeclaredEventTypesLimit = 16

    /// Problems as listed (none by default).
    public init(undeclaredEventTypes: [String] = [], undecodablePayloads: Bool = false, undecodedEventsDropped: Bool = false) {
        self.undeclaredEventTypes = undeclaredEventTypes
        self.undecodablePayloads = undecodablePayloads
        self.undecodedEventsDropped = undecodedEventsDropped
    }

    /// Whether every event so far arrived as declared.
    public var isEmpty: Bool { undeclaredEventTypes.isEmpty && !undecodablePayloads && !undecodedEventsDropped }
}

extension ConnectionState {
    /// Whether the connection came to an end only the app's `start()` undoes: disconnected, failed
    /// or closed for good (not suspended: `resume()` carries on). A `run()` returns at such a state.
    package var isEnded: Bool {
        switch self {
        case .disconnected, .failed, .closed: true
        case .idle, .connecting, .connected, .reconnecting, .waitingForNetwork, .suspended: false
        }
    }
}
