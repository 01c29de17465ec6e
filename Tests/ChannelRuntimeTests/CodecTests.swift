import AppSyncRuntime
import ChannelRuntime
import Foundation
import Testing

@Suite("AppSync Events codec")
struct CodecTests {
    @Test func clientMessagesMatchTheProtocol() throws {
        #expect(ClientMessage.connectionInit.encoded() == #"{"type":"connection_init"}"#)
        let subscribe = ClientMessage.subscribe(id: "s1", channel: "/ns/a", authorization: ["x-api-key": "k", "host": "h"]).encoded()
        #expect(subscribe == #"{"authorization":{"host":"h","x-api-key":"k"},"channel":"/ns/a","id":"s1","type":"subscribe"}"#)
        #expect(ClientMessage.unsubscribe(id: "s1").encoded() == #"{"id":"s1","type":"unsubscribe"}"#)
        let publish = ClientMessage.publish(id: "p1", channel: "ns/a", events: [#"{"a":1}"#, "\"text\""], authorization: [:]).encoded()
        let object = try #require(try JSONSerialization.jsonObject(with: Data(publish.utf8)) as? [String: Any])
        #expect(object["events"] as? [String] == [#"{"a":1}"#, "\"text\""])
    }

    @Test func dataEventAsOneStringOrAnArray() throws {
        #expect(try ServerMessage.decode(#"{"id":"1","type":"data","event":"{\"team\": \"McLaren\"}"}"#)
            == .data(id: "1", events: [#"{"team": "McLaren"}"#]))
        // The array form from the AWS documentation, verbatim.
        #expect(try ServerMessage.decode(#"{"type":"data","id":"ee849ef0-cf23-4cb8-9fcb-152ae4fd1e69","event":["\"my event content\""]}"#)
            == .data(id: "ee849ef0-cf23-4cb8-9fcb-152ae4fd1e69", events: ["\"my event content\""]))
    }

    @Test func connectionAckTimeoutAtTopLevelOrUnderPayload() throws {
        #expect(try ServerMessage.decode(#"{"type": "connection_ack", "connectionTimeoutMs": 300000}"#) == .connectionAck(connectionTimeoutMs: 300_000))
        #expect(try ServerMessage.decode(#"{"type":"connection_ack","payload":{"connectionTimeoutMs":1000}}"#) == .connectionAck(connectionTimeoutMs: 1000))
        #expect(try ServerMessage.decode(#"{"type":"connection_ack"}"#) == .connectionAck(connectionTimeoutMs: nil))
    }

    /// Issue 44: an authorization failure is one however the service phrases it.
    @Test func authorizationFailuresInAnyPhrasing() {
        let failures = [
            ServiceError(errorType: "UnauthorizedException", message: nil), ServiceError(errorType: "NotAuthorizedException", message: nil),
            ServiceError(errorType: nil, message: "Unauthorized"), ServiceError(errorType: nil, message: "You are not authorized to make this call."),
            ServiceError(errorType: "AccessDenied", message: "Access denied"), ServiceError(errorType: nil, message: "Token expired"),
            ServiceError(errorType: "Forbidden", message: nil), ServiceError(errorType: nil, message: nil, code: "401"), ServiceError(errorType: nil, message: nil, code: "403"),
        ]
        for failure in failures { #expect(failure.isAuthorizationFailure, "\(failure)") }
        let others = [ServiceError(errorType: "InternalFailure", message: "try again"), ServiceError(errorType: nil, message: nil, code: "500"), ServiceError(errorType: nil, message: "authorized")]
        for other in others { #expect(!other.isAuthorizationFailure, "\(other)") }
    }

    @Test func errorsAndCodesAsStringsOrNumbers() throws {
        let connectionError = try ServerMessage.decode("""
            {"type":"connection_error","errors":[{"errorType":"UnauthorizedException","message":"You are not authorized to make this call.","errorCode":401}]}
            """)
        guard case .connectionError(let errors) = connectionError else {
            Issue.record("not a connection_error")
            return
        }
        #expect(errors == [ServiceError(errorType: "UnauthorizedException", message: "You are not authorized to make this call.", code: "401")])
        #expect(errors[0].isNonRetryable)

        let publish = try ServerMessage.decode("""
            {"id":"p","type":"publish_success","successful":[{"identifier":"221b6b3f","index":0}],
             "failed":[{"identifier":"x","index":1,"code":401,"message":"error"},{"index":2,"code":"EventTooLargeException","message":"Transformed event is larger than 240KB"}],
             "extra":"ignored"}
            """)
        #expect(publish == .publishSuccess(id: "p", PublishResult(
            successful: [.init(identifier: "221b6b3f", index: 0)],
            failed: [
                .init(identifier: "x", index: 1, code: "401", message: "error"),
                .init(identifier: nil, index: 2, code: "EventTooLargeException", message: "Transformed event is larger than 240KB"),
            ])))
    }

    @Test func everyServerMessageOfTheDocs() throws {
        #expect(try ServerMessage.decode(#"{ "type": "ka" }"#) == .keepAlive)
        #expect(try ServerMessage.decode(#"{"type":"subscribe_success","id":"a"}"#) == .subscribeSuccess(id: "a"))
        #expect(try ServerMessage.decode("""
            {"type":"subscribe_error","id":"a","errors":[{"errorType":"SubscriptionProcessingError","message":"There was an error processing the operation"}]}
            """) == .subscribeError(id: "a", [ServiceError(errorType: "SubscriptionProcessingError", message: "There was an error processing the operation")]))
        #expect(try ServerMessage.decode(#"{"type":"unsubscribe_success","id":"a"}"#) == .unsubscribeSuccess(id: "a"))
        #expect(try ServerMessage.decode(#"{"type":"unsubscribe_error","id":"a","errors":[{"errorType":"UnknownOperationError","message":"Unknown operation id a"}]}"#)
            == .unsubscribeError(id: "a", [ServiceError(errorType: "UnknownOperationError", message: "Unknown operation id a")]))
        #expect(try ServerMessage.decode(#"{"type":"broadcast_error","id":"a","errors":[{"errorType":"MessageProcessingError","message":"m"}]}"#)
            == .broadcastError(id: "a", [ServiceError(errorType: "MessageProcessingError", message: "m")]))
        #expect(try ServerMessage.decode(#"{"id":"p","type":"publish_error","errors":[{"errorType":"An error type","message":"A message"}]}"#)
            == .publishError(id: "p", [ServiceError(errorType: "An error type", message: "A message")]))
        #expect(try ServerMessage.decode(#"{"type":"error","errors":[{"errorType":"X","message":"y"}]}"#) == .error(id: nil, [ServiceError(errorType: "X", message: "y")]))
        #expect(try ServerMessage.decode(#"{"type":"start_ack","id":"a"}"#) == .unknown(type: "start_ack"))
    }

    /// `Int(Double)` traps outside Int's range: such numbers from a server are decode errors (the frame
    /// is dropped and counted), never the end of the process.
    @Test(arguments: [
        #"{"type":"connection_ack","connectionTimeoutMs":1e19}"#,
        #"{"type":"connection_ack","connectionTimeoutMs":-1e19}"#,
        #"{"type":"ka","connectionTimeoutMs":1e300}"#,
        #"{"type":"connection_ack","payload":{"connectionTimeoutMs":1e19}}"#,
        #"{"type":"publish_success","id":"p","successful":[{"identifier":"a","index":1e30}],"failed":[]}"#,
        #"{"type":"publish_success","id":"p","successful":[],"failed":[{"identifier":"a","index":-1e19}]}"#,
    ])
    func outOfRangeNumbersAreDecodeErrorsNotTraps(_ frame: String) {
        #expect(throws: (any Error).self) { try ServerMessage.decode(frame) }
    }

    @Test func fractionalAndLargeInRangeNumbersStillDecode() throws {
        #expect(try ServerMessage.decode(#"{"type":"connection_ack","connectionTimeoutMs":300000.9}"#) == .connectionAck(connectionTimeoutMs: 300000))
        #expect(PublishResult.decode(Data(#"{"successful":[{"identifier":"a","index":2}],"failed":[]}"#.utf8))?.successful.first?.index == 2)
        #expect(PublishResult.decode(Data(#"{"successful":[{"identifier":"a","index":1e19}],"failed":[]}"#.utf8)) == nil)
    }

    @Test func malformedFramesAreTypedFailures() {
        #expect(throws: ServerMessage.DecodingFailure.notJSON) { try ServerMessage.decode("not json") }
        #expect(throws: ServerMessage.DecodingFailure.notJSON) { try ServerMessage.decode("[1,2]") }
        #expect(throws: ServerMessage.DecodingFailure.missingField("type")) { try ServerMessage.decode(#"{"id":"a"}"#) }
        #expect(throws: ServerMessage.DecodingFailure.missingField("event")) { try ServerMessage.decode(#"{"type":"data","id":"a"}"#) }
        #expect(throws: ServerMessage.DecodingFailure.missingField("id")) { try ServerMessage.decode(#"{"type":"data","event":"{}"}"#) }
    }
}

@Suite("Endpoints and authorization")
struct EndpointAuthTests {
    @Test func standardAWSEndpoint() throws {
        let endpoint = try ChannelEndpoint(http: "https://abcdefghijklmnopqrstuvwxyz.appsync-api.us-east-1.amazonaws.com/event")
        #expect(endpoint.realtime.absoluteString == "wss://abcdefghijklmnopqrstuvwxyz.appsync-realtime-api.us-east-1.amazonaws.com/event/realtime")
        #expect(endpoint.host == "abcdefghijklmnopqrstuvwxyz.appsync-api.us-east-1.amazonaws.com")
        #expect(endpoint.http.absoluteString == "https://abcdefghijklmnopqrstuvwxyz.appsync-api.us-east-1.amazonaws.com/event")
        let china = try ChannelEndpoint(http: "https://x.appsync-api.cn-north-1.amazonaws.com.cn/event")
        #expect(china.realtime.host == "x.appsync-realtime-api.cn-north-1.amazonaws.com.cn")
    }

    @Test func customDomainKeepsItsHost() throws {
        let endpoint = try ChannelEndpoint(http: "https://api.example.com/event")
        #expect(endpoint.realtime.absoluteString == "wss://api.example.com/event/realtime")
        #expect(endpoint.host == "api.example.com")
        // A custom domain that merely contains "appsync-api" is not rewritten.
        #expect(try ChannelEndpoint(http: "https://appsync-api.example.com/event").realtime.host == "appsync-api.example.com")
    }

    @Test func loopbackMayUsePlainHTTPWithAPort() throws {
        let endpoint = try ChannelEndpoint(http: "http://127.0.0.1:8123/event")
        #expect(endpoint.realtime.absoluteString == "ws://127.0.0.1:8123/event/realtime")
        #expect(endpoint.host == "127.0.0.1:8123")
        #expect(try ChannelEndpoint(http: "https://api.example.com:8443/event").host == "api.example.com:8443")
    }

    @Test func plainHTTPElsewhereIsRefused() {
        #expect(throws: ChannelEndpoint.Failure.insecureScheme("http://api.example.com/event")) {
            try ChannelEndpoint(http: "http://api.example.com/event")
        }
        #expect(throws: ChannelEndpoint.Failure.self) { try ChannelEndpoint(http: "ftp://x/event") }
    }

    /// Issue 44: any host name starting with `127.` counted as loopback, so an API key would have
    /// gone out unencrypted to `127.attacker.example`. Loopback is a literal now.
    @Test func loopbackIsALiteralNotANamePrefix() throws {
        for host in ["127.attacker.example", "127.0.0.1.nip.io", "127.0.0", "127.0.0.256", "127.0.0.1x", "128.0.0.1", "localhost.example"] {
            #expect(throws: ChannelEndpoint.Failure.insecureScheme("http://\(host)/event")) { try ChannelEndpoint(http: "http://\(host)/event") }
        }
        for host in ["127.0.0.1", "127.1.2.3", "localhost", "LOCALHOST", "[::1]"] {
            #expect(throws: Never.self) { try ChannelEndpoint(http: "http://\(host):8080/event") }
        }
    }

    /// Found with the test above: an IPv6 literal's brackets were doubled and the URL built from
    /// them force-unwrapped, so `https://[::1]/event` trapped.
    @Test func anIPv6LiteralEndpointIsBracketedOnce() throws {
        let endpoint = try ChannelEndpoint(http: "https://[2001:db8::1]:8443/event")
        #expect(endpoint.http.absoluteString == "https://[2001:db8::1]:8443/event")
        #expect(endpoint.realtime.absoluteString == "wss://[2001:db8::1]:8443/event/realtime")
        #expect(try ChannelEndpoint(http: "http://[::1]/event").realtime.absoluteString == "ws://[::1]/event/realtime")
    }

    @Test func headerSubprotocolIsBase64URLWithoutPadding() throws {
        // 1 byte of padding would appear for this length; '+' and '/' would appear for these bytes.
        let subprotocol = ChannelAuthorization.headerSubprotocol(["host": "example1234567890000.appsync-api.us-east-1.amazonaws.com", "x-api-key": "da2-12345678901234567890123456"])
        #expect(subprotocol.hasPrefix("header-"))
        #expect(!subprotocol.contains("=") && !subprotocol.contains("+") && !subprotocol.contains("/"))
        #expect(ChannelAuthorization.base64URL(Data([0xfb, 0xff])) == "-_8")
        #expect(ChannelAuthorization.base64URL(Data("a".utf8)) == "YQ")
    }

    @Test func signedBodiesForIAM() throws {
        let endpoint = try ChannelEndpoint(http: "https://api.example.com/event")
        #expect(AuthorizationRequest(operation: .connect, endpoint: endpoint).body == "{}")
        #expect(AuthorizationRequest(operation: .subscribe(channel: "/ns/a/*"), endpoint: endpoint).body == #"{"channel":"/ns/a/*"}"#)
        #expect(AuthorizationRequest(operation: .publish(channel: "ns/a", events: [#"{"x":1}"#]), endpoint: endpoint).body
            == #"{"channel":"ns/a","events":["{\"x\":1}"]}"#)
    }
}
