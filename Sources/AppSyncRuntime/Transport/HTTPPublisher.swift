@_spi(Generated) import ChannelRuntime
import ChannelTransports
import Foundation

/// Publishes over HTTP: `POST <http endpoint>/event` with `{"channel": …, "events": [1–5 JSON texts]}`.
/// Per-event failures come back inside a successful response (`PublishResult.failed`).
public struct AppSyncHTTPPublisher: Sendable {
    /// The API published to.
    public let endpoint: ChannelEndpoint
    /// How each publish is authorized.
    public let authorization: ChannelAuthorization
    private let client: any HTTPPostClient
    private let metrics: RuntimeMetrics?

    /// A publisher for `endpoint`; `client` sends the request (`URLSessionPostClient` on Apple
    /// platforms, `NIOHTTPPostClient` elsewhere: both bound the answer to 64 KiB and the publish to 30 s).
    /// With `metrics` (e.g. the connection's), each successful publish's duration is recorded there
    /// (swift-metrics timer `channelgen_publish_duration`).
    public init(
        endpoint: ChannelEndpoint, authorization: ChannelAuthorization,
        client: any HTTPPostClient = defaultHTTPPostClient(), metrics: RuntimeMetrics? = nil
    ) {
        self.endpoint = endpoint
        self.authorization = authorization
        self.client = client
        self.metrics = metrics
    }

    /// Publishes 1–5 events (JSON texts) to `channel`; per-event results come back in the `PublishResult`.
    public func publish(_ events: [String], to channel: String) async throws(AppSyncError) -> PublishResult {
        guard (1...5).contains(events.count) else { throw .invalidPublish("a publish carries 1 to 5 events, not \(events.count)") }
        do { try ChannelPathError.check(channel, rules: .appSyncEvents, allowingWildcard: false) } catch { throw .invalidChannel(error) }
        let request = AuthorizationRequest(operation: .publish(channel: channel, events: events), endpoint: endpoint)
        var headers: [String: String]
        do {
            headers = try await authorization.headers(for: request)
        } catch {
            throw .invalidPublish("authorization failed: \(error)")
        }
        headers["host"] = nil  // the URL carries it
        headers["content-type"] = "application/json"
        let response: (status: Int, body: Data)
        let started = ContinuousClock.now
        do {
            // The body is exactly the one a SigV4 signer signed.
            response = try await client.post(endpoint.http, headers: headers, body: Data(request.body.utf8))
        } catch HTTPPostError.timedOut {
            throw .timedOut
        } catch {
            throw .connectionLost
        }
        guard (200..<300).contains(response.status) else {
            struct Failure: Decodable { var errors: [ServiceError]? }
            let errors = ((try? JSONDecoder().decode(Failure.self, from: response.body))?.errors ?? []).map {
                ServiceError(errorType: $0.errorType, message: $0.message, code: String(response.status))
            }
            throw .service(errors.isEmpty ? [ServiceError(errorType: nil, message: "HTTP \(response.status)", code: String(response.status))] : errors)
        }
        // An answer that is not a publish result (empty, cut short, numbers out of range) is not a success.
        guard let result = PublishResult.decode(response.body) else {
            throw .service([ServiceError(errorType: "InvalidResponse", message: "the publish response could not be read", code: String(response.status))])
        }
        metrics?.recordPublish(ContinuousClock.now - started)
        return result
    }
}

extension AppSyncHTTPPublisher: ChannelPublishing {
    /// `publish(_:to:)` for a hub's typed publish (`ChannelEventHub(connection:publisher:)`): a
    /// refused event is an error naming it.
    public func publishEvents(_ events: [String], to channel: String) async throws {
        try await publish(events, to: channel).requireEveryEventAccepted()
    }

    /// Publishes generated payloads to one channel instance over HTTP, as a backend would:
    /// `publisher.publish([order], to: try OrdersSubscription(userId: "u1"))`. The limits are checked
    /// before anything is sent (1–5 events of at most 240 KB); per-event results come back.
    public func publish<Subscription: ChannelSubscription>(
        _ events: [Subscription.Event], to subscription: Subscription
    ) async throws(ChannelPublishError) -> PublishResult {
        let texts = Subscription.eventsAreText ? try ChannelPublishError.texts(events) : try ChannelPublishError.encoded(events)
        do {
            return try await publish(texts, to: subscription.channel)
        } catch {
            throw .failed("\(error)")
        }
    }
}
