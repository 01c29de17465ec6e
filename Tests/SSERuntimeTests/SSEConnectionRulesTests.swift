@_spi(Generated) import ChannelRuntime
import ChannelTransports
import Foundation
@testable import SSERuntime
import Testing

/// How the SSE connection reads a hub's answers and routes its events, without a network.
@Suite("SSE connection rules")
struct SSEConnectionRulesTests {
    static func response(_ status: Int, _ headers: [String: String] = [:]) -> EventStreamResponse {
        EventStreamResponse(status: status, headers: headers, body: AsyncStream { $0.finish() }, close: {})
    }

    static func refusal(_ status: Int, _ headers: [String: String] = [:]) -> ConnectionStateMachine.Refusal? {
        SSEWire.refusal(for: response(status, headers), maximumRetryAfter: .seconds(600))
    }

    @Test func onlyA200EventStreamIsAccepted() {
        #expect(Self.refusal(200, ["content-type": "text/event-stream; charset=utf-8"]) == nil)
        #expect(Self.refusal(200, ["content-type": "text/html"]).map { if case .retryable = $0 { true } else { false } } == true)
        // Issue 44: the media type is compared whole, not as a prefix.
        #expect(Self.refusal(200, ["content-type": "Text/Event-Stream"]) == nil)
        #expect(Self.refusal(200, ["content-type": "text/event-stream ;charset=utf-8"]) == nil)
        for other in ["text/event-streamx", "text/event-stream-json", "text/event-stream/x", ""] {
            #expect(Self.refusal(200, ["content-type": other]) != nil, "\(other)")
        }
    }

    @Test func statusesMapToTheMachinesRefusals() {
        func kind(_ status: Int) -> String {
            switch Self.refusal(status) {
            case .unauthorized?: "unauthorized"
            case .rejected?: "rejected"
            case .retryable?: "retryable"
            case nil: "accepted"
            }
        }
        #expect([401, 403].map(kind) == ["unauthorized", "unauthorized"])
        #expect([429, 503, 500, 502, 504].map(kind) == Array(repeating: "retryable", count: 5))
        #expect([204, 301, 302, 400, 404].map(kind) == Array(repeating: "rejected", count: 5))
    }

    @Test func retryAfterIsReadAsSecondsOrADateAndBounded() {
        #expect(Self.refusal(429, ["retry-after": "7"]) == .retryable([ServiceError(errorType: "HTTPStatus", message: "HTTP 429 ", code: "429")], retryAfter: .seconds(7)))
        if case .retryable(_, let delay?) = Self.refusal(503, ["retry-after": "86400"]) {
            #expect(delay == .seconds(600))  // a hostile hub cannot park the client for a day
        } else {
            Issue.record("no delay")
        }
        #expect(SSEWire.retryAfter("Wed, 21 Oct 2015 07:28:00 GMT") == .zero)  // in the past
        #expect(SSEWire.retryAfter("soon") == nil)
        #expect(SSEWire.retryAfter("-3") == nil)
    }

    @Test func eventsRouteByChannelIgnoringSlashesAndByWildcardPrefix() {
        let exact = ChannelRoute("/app/orders/eu/")
        #expect(exact.matches(ChannelRoute.normalized("app/orders/eu")))
        #expect(!exact.matches(ChannelRoute.normalized("/app/orders/eu/x")))
        let wildcard = ChannelRoute("/app/orders/*")
        #expect(wildcard.matches(ChannelRoute.normalized("/app/orders/eu")))
        #expect(!wildcard.matches(ChannelRoute.normalized("/app/orders")))
        #expect(!wildcard.matches(ChannelRoute.normalized("/app/ordersX/eu")))
    }

    /// Topics are checked by the SSE rules before they reach the hub's URL: a space or `#` there
    /// would change the topic, or the URL.
    @Test func aTopicTheSSERulesRefuseIsNotSubscribed() async throws {
        let endpoint = try ChannelEndpoint(http: "https://hub.example.com/event")
        let connection = SSEConnection(configuration: SSEConfiguration(endpoint: endpoint, authorization: .apiKey("k")))
        await #expect(throws: Self.pathError("rooms/a b")!) {
            try await connection.subscribe(to: "rooms/a b")
        }
        let topic = try await connection.subscribe(to: "orders.eu/v1:created")
        #expect(topic.channel == "orders.eu/v1:created")
        await connection.disconnect()
    }

    static func pathError(_ channel: String) -> ChannelPathError? {
        do {
            try ChannelPathError.check(channel, rules: .serverSentEvents, allowingWildcard: true)
            return nil
        } catch {
            return error
        }
    }
}
