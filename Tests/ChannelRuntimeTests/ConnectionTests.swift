import AppSyncRuntime
import ChannelRuntime
import ChannelRuntimeTesting
import Foundation
import NIOChannelTransports
import NIOConcurrencyHelpers
import Testing

/// The connection lifecycle on a manual clock and an in-memory transport: no real waiting.
@Suite("AppSync connection")
struct ConnectionTests {
    // MARK: Handshake

    @Test func apiKeyHandshake() async throws {
        let harness = Harness(authorization: .apiKey("da2-12345678901234567890123456"))
        await harness.connection.start()
        let server = try await harness.transport.nextConnection()
        #expect(server.url.absoluteString == "wss://abc123.appsync-realtime-api.eu-west-1.amazonaws.com/event/realtime")
        #expect(server.subprotocols.count == 2)
        #expect(server.subprotocols[0] == "aws-appsync-event-ws")
        // Independently computed: base64url (no padding) of the sorted JSON auth object.
        #expect(server.subprotocols[1] == "header-eyJob3N0IjoiYWJjMTIzLmFwcHN5bmMtYXBpLmV1LXdlc3QtMS5hbWF6b25hd3MuY29tIiwieC1hcGkta2V5IjoiZGEyLTEyMzQ1Njc4OTAxMjM0NTY3ODkwMTIzNDU2In0")
        #expect(server.authHeaders == ["host": "abc123.appsync-api.eu-west-1.amazonaws.com", "x-api-key": "da2-12345678901234567890123456"])
        try await server.acceptConnection()
        try await harness.waitForState(.connected)
        await harness.connection.disconnect()
    }

    @Test func jwtHandshake() async throws {
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1MSJ9.c2lnbmF0dXJl"
        let harness = Harness(authorization: .token { jwt })
        await harness.connection.start()
        let server = try await harness.transport.nextConnection()
        #expect(server.authHeaders == ["host": "abc123.appsync-api.eu-west-1.amazonaws.com", "Authorization": jwt])
        #expect(server.subprotocols == [
            "aws-appsync-event-ws",
            "header-eyJBdXRob3JpemF0aW9uIjoiZXlKaGJHY2lPaUpJVXpJMU5pSjkuZXlKemRXSWlPaUoxTVNKOS5jMmxuYm1GMGRYSmwiLCJob3N0IjoiYWJjMTIzLmFwcHN5bmMtYXBpLmV1LXdlc3QtMS5hbWF6b25hd3MuY29tIn0",
        ])
        await harness.connection.disconnect()
    }

    // MARK: Reconnect

    @Test(arguments: [true, false])
    func reconnectWaitsExactlyThePolicyDelayThenResubscribesEverything(offersInboundReader: Bool) async throws {
        let harness = Harness(offersInboundReader: offersInboundReader)
        var streams: [Collector] = []
        for channel in vortexChannels {
            streams.append(Collector(try await harness.connection.subscribe(to: channel).events))
        }
        let server = try await harness.connect()
        let firstIDs = try await server.acceptSubscribes(9)
        #expect(Set(firstIDs.keys) == Set(vortexChannels))

        server.drop()
        try await harness.waitForState(.reconnecting(after: .seconds(10), because: .dropped))
        try await harness.clock.waitForSleeper(until: .seconds(10))
        harness.clock.advance(by: .milliseconds(9_999))
        await harness.settle()
        #expect(harness.transport.connectCount == 1)
        harness.clock.advance(by: .milliseconds(1))
        let second = try await harness.transport.nextConnection()
        try await second.acceptConnection()
        let secondIDs = try await second.acceptSubscribes(9)
        #expect(secondIDs == firstIDs)  // same subscriptions, same ids, on the new socket
        #expect(harness.connection.metrics.snapshot().reconnects == 1)

        // The streams opened before the drop still deliver.
        for (index, channel) in vortexChannels.enumerated() {
            second.push(["type": "data", "id": secondIDs[channel]!, "event": "{\"n\":\(index)}"])
        }
        for (index, stream) in streams.enumerated() {
            try await stream.waitFor(count: 1)
            #expect(stream.elements == ["{\"n\":\(index)}"])
        }
        await harness.connection.disconnect()
    }

    @Test func noReconnectAfterTheAppDisconnects() async throws {
        let harness = Harness()
        let server = try await harness.connect()
        await harness.connection.disconnect()
        #expect(server.isClosedByClient)
        #expect(await harness.connection.state == .disconnected)
        harness.clock.advance(by: .seconds(3600))
        await harness.settle()
        #expect(harness.transport.connectCount == 1)
    }

    static let signedOut = [ServiceError(errorType: "SignedOut", message: "signed out; start() after sign-in connects again")]

    @Test func signedOutStopsWithoutAskingAgainAndStartConnectsAfterSignIn() async throws {
        let signedIn = Flag(false)
        let asked = Counter()
        let harness = Harness {
            $0.isSignedIn = {
                _ = asked.next()
                return signedIn.value
            }
        }
        let subscription = try await harness.connection.subscribe(to: vortexChannels[0])
        await harness.connection.start()
        try await harness.waitForState(.closed(.signedOut))
        try await untilPublished(by: harness.connection, "the subscription says why") {
            await harness.connection.status(ofSubscription: subscription.id) == .failed(Self.signedOut)
        }
        // No timer is left to ask again: an hour passes with no question and no attempt.
        try await harness.clock.untilSleepers("no timer") { $0.isEmpty }
        harness.clock.advance(by: .seconds(3600))
        await harness.settle()
        #expect(asked.next() == 2)  // one question so far, this call the second
        #expect(harness.transport.connectCount == 0)
        #expect(await harness.connection.state == .closed(.signedOut))

        signedIn.value = true
        await harness.connection.start()
        let server = try await harness.transport.nextConnection()
        try await server.acceptConnection()
        try await harness.waitForState(.connected)
        let subscribe = await server.nextMessage()  // the subscription is sent, now that someone is signed in
        #expect(subscribe?["type"] as? String == "subscribe")
        await harness.connection.disconnect()
    }

    @Test func signingOutWhileConnectedStopsAtTheNextReconnect() async throws {
        let signedIn = Flag(true)
        let harness = Harness { $0.isSignedIn = { signedIn.value } }
        let server = try await harness.connect()
        signedIn.value = false
        server.drop()
        try await harness.clock.waitForSleeper(until: .seconds(10))
        harness.clock.advance(by: .seconds(10))
        // The delay passed, but the user signed out meanwhile: no attempt, and the connection stops.
        try await harness.waitForState(.closed(.signedOut))
        #expect(harness.transport.connectCount == 1)
        await harness.connection.disconnect()
        #expect(await harness.connection.state == .disconnected)
    }

    /// Two missed keep-alives (AppSync sends a `ka` about every 60 s) end the connection: 120 s
    /// of silence, inside the 300 s the server announces; each frame starts the count again.
    @Test func keepAliveTimeoutTriggersAReconnect() async throws {
        let harness = Harness()
        let server = try await harness.connect(timeoutMs: 300_000)
        try await harness.clock.waitForSleeper(until: .seconds(120))
        harness.clock.advance(by: .seconds(80))
        server.push(["type": "ka"])  // resets the watchdog to t = 200 s
        try await eventually("ka processed") { harness.connection.metrics.snapshot().framesReceived == 2 }
        harness.clock.advance(by: .seconds(119))
        await harness.settle()
        #expect(!server.isClosedByClient)
        try await harness.clock.waitForSleeper(until: .seconds(200))
        harness.clock.advance(by: .seconds(1))
        try await server.untilClosedByClient()
        try await harness.waitForState(.reconnecting(after: .seconds(10), because: .keepAliveTimeout))
        #expect(harness.connection.metrics.snapshot().keepAliveTimeouts == 1)
        try await harness.clock.waitForSleeper(until: .seconds(210))
        harness.clock.advance(by: .seconds(10))
        _ = try await harness.transport.nextConnection()
        await harness.connection.disconnect()
    }

    @Test func plannedReconnectBeforeTheDailyLimit() async throws {
        // By default five minutes before AppSync's 24-hour limit; here before the keep-alive watchdog
        // (at most an hour) would fire on a server that stays silent.
        #expect(AppSyncConfiguration(endpoint: try ChannelEndpoint(http: "https://example.com/event"), authorization: .apiKey("k"))
            .plannedReconnectInterval == .seconds(24 * 3600 - 5 * 60))
        let planned = Duration.seconds(30 * 60)
        let harness = Harness {
            $0.plannedReconnectInterval = planned
            $0.keepAliveInterval = .seconds(3600)  // a server whose silence is allowed for the hour
        }
        let subscription = try await harness.connection.subscribe(to: vortexChannels[0])
        let server = try await harness.connect(timeoutMs: 3_600_000)
        try await server.acceptSubscribes(1)
        try await untilPublished(by: harness.connection, "the subscription active") { await harness.connection.status(ofSubscription: subscription.id) == .active }
        try await harness.clock.waitForSleeper(until: planned)
        harness.clock.advance(by: planned)
        try await server.untilClosedByClient()
        // No delay after a planned reconnect.
        let second = try await harness.transport.nextConnection()
        try await second.acceptConnection()
        try await second.acceptSubscribes(1)
        #expect(harness.connection.metrics.snapshot().reconnects == 1)
        await harness.connection.disconnect()
    }

    @Test func aSecondAcknowledgementDoesNotResubscribeOrStartAnotherWatchdog() async throws {
        let harness = Harness()
        let subscription = try await harness.connection.subscribe(to: vortexChannels[0])
        let server = try await harness.connect(timeoutMs: 300_000)
        try await server.acceptSubscribes(1)
        server.push(["type": "connection_ack", "connectionTimeoutMs": 1_000])
        try await eventually("the duplicate counted") { harness.connection.metrics.snapshot().duplicateAcknowledgements == 1 }
        #expect(server.unreadFrameCount == 0)  // no second subscribe
        #expect(harness.clock.pendingDeadlines.filter { $0 == .seconds(1) }.isEmpty)  // the announced 1 s was not taken
        _ = subscription
        await harness.connection.disconnect()
    }

    @Test func anAbsurdKeepAliveTimeoutIsClampedSoTheWatchdogStillRuns() async throws {
        let harness = Harness { $0.keepAliveInterval = .seconds(3600) }  // the clamp alone bounds it
        let server = try await harness.connect(timeoutMs: 1_000_000_000_000)
        try await harness.clock.waitForSleeper(until: .seconds(3600))
        harness.clock.advance(by: .seconds(3600))
        try await server.untilClosedByClient()
        #expect(harness.connection.metrics.snapshot().keepAliveTimeouts == 1)
        await harness.connection.disconnect()
    }

    @Test func aRefusedSubscribeIsReportedAndRetriedWithBackoff() async throws {
        let harness = Harness { $0.subscribeRetryPolicy = ReconnectPolicy.fixed(.seconds(2)).limited(to: 1) }
        let raw = try await harness.connection.subscribe(to: vortexChannels[0])
        let statuses = TypedCollector(await harness.connection.statusUpdates(ofSubscription: raw.id))
        let server = try await harness.connect()
        let refusal: [String: Any] = ["type": "subscribe_error", "errors": [["errorType": "UnauthorizedException", "message": "not yours"]]]
        var subscribe = await server.nextMessage()
        server.push(refusal.merging(["id": raw.id]) { $1 })
        let rejected = SubscriptionStatus.rejected([ServiceError(errorType: "UnauthorizedException", message: "not yours")])
        try await statuses.wait("the rejection reported") { $0.contains(rejected) }
        // Tried again after the retry delay, on the same connection.
        try await harness.clock.waitForSleeper(until: .seconds(2))
        harness.clock.advance(by: .seconds(2))
        subscribe = await server.nextMessage()
        #expect(subscribe?["type"] as? String == "subscribe")
        #expect(subscribe?["id"] as? String == raw.id)
        server.push(refusal.merging(["id": raw.id]) { $1 })
        // The policy gives up after one retry: failed, until the next connection.
        try await untilPublished(by: harness.connection, "given up") { await harness.connection.status(ofSubscription: raw.id) == .failed(rejected.errors) }
        #expect(harness.connection.metrics.snapshot().subscribeErrors == 2)
        #expect(harness.transport.connectCount == 1)
        await harness.connection.disconnect()
    }

    @Test func authorizationFailureIsRetriedOnceWithFreshCredentialsThenFails() async throws {
        let counter = Counter()
        let harness = Harness(authorization: .token { "token-\(counter.next())" })
        let refusal = #"{"type":"connection_error","errors":[{"errorType":"UnauthorizedException","message":"You are not authorized to make this call.","errorCode":401}]}"#
        await harness.connection.start()
        let first = try await harness.transport.nextConnection()
        #expect(first.authHeaders?["Authorization"] == "token-1")
        _ = await first.nextMessage()
        first.push(refusal)
        // An expired token: the provider is asked again and the retry goes out at once, no delay.
        let second = try await harness.transport.nextConnection()
        #expect(second.authHeaders?["Authorization"] == "token-2")
        _ = await second.nextMessage()
        second.push(refusal)
        let errors = [ServiceError(errorType: "UnauthorizedException", message: "You are not authorized to make this call.", code: "401")]
        try await harness.waitForState(.failed(.unauthorized(errors)))
        harness.clock.advance(by: .seconds(3600))
        await harness.settle()
        #expect(harness.transport.connectCount == 2)
    }

    /// A server (or a proxy) that acknowledges, sends one event, even for a subscription id the
    /// client never made, then refuses as unauthorized was redialled at once, for ever (653 opens
    /// in 45 s): the event made the session count as healthy, which restored the one retry.
    /// Only a session that lasted the settle time restores it now.
    @Test func anEventBeforeAnAuthorizationFailureDoesNotRestoreTheRetry() async throws {
        let harness = Harness()
        let refusal = #"{"type":"connection_error","errors":[{"errorType":"UnauthorizedException","message":"no"}]}"#
        let subscription = try await harness.connection.subscribe(to: "app/one")  // held: dropping it unsubscribes
        await harness.connection.start()
        // The first session's event names an id the client never made; the second's is its own.
        let first = try await harness.transport.nextConnection()
        try await first.acceptConnection()
        try await first.acceptSubscribes(1)
        first.push(#"{"type":"data","id":"sub-nobody-made","event":["{}"]}"#)
        first.push(refusal)
        let second = try await harness.transport.nextConnection()
        try await second.acceptConnection()
        let ids = try await second.acceptSubscribes(1)
        second.push(#"{"type":"data","id":"\#(ids["app/one"]!)","event":["{}"]}"#)
        second.push(refusal)
        try await harness.waitForState(.failed(.unauthorized([ServiceError(errorType: "UnauthorizedException", message: "no")])))
        withExtendedLifetime(subscription) {}
        harness.clock.advance(by: .seconds(3600))
        await harness.settle()
        #expect(harness.transport.connectCount == 2)
    }

    /// A server that delivers one event per connection and then drops it: the reconnect delay
    /// grew only for connections without an event (43 opens in 45 s at 1 s). Events do not make a
    /// session healthy; lasting the settle time does.
    @Test func sessionsThatEachCarryAnEventStillBackOff() async throws {
        let harness = Harness { $0.reconnectPolicy = .exponential(initial: .seconds(1), maximum: .seconds(8)) }
        let subscription = try await harness.connection.subscribe(to: "app/one")  // held: dropping it unsubscribes
        await harness.connection.start()
        var elapsed = Duration.zero
        for delay in [1, 2, 4, 8].map(Duration.seconds) {
            let server = try await harness.transport.nextConnection()
            try await server.acceptConnection()
            let subscriptions = try await server.acceptSubscribes(1)
            server.push(#"{"type":"data","id":"\#(subscriptions["app/one"]!)","event":["{}"]}"#)
            harness.clock.advance(by: .seconds(5))  // shorter than the settle time (30 s)
            elapsed += .seconds(5)
            server.drop()
            try await harness.waitForState(.reconnecting(after: delay, because: .dropped))
            try await harness.clock.waitForSleeper(until: elapsed + delay)
            harness.clock.advance(by: delay)
            elapsed += delay
        }
        // A session that lasts the settle time starts the count over.
        let server = try await harness.transport.nextConnection()
        try await server.acceptConnection()
        try await server.acceptSubscribes(1)
        try await harness.clock.waitForSleeper(until: elapsed + .seconds(30))
        harness.clock.advance(by: .seconds(30))
        await harness.settle()
        server.drop()
        try await harness.waitForState(.reconnecting(after: .seconds(1), because: .dropped))
        #expect(await harness.connection.status(ofSubscription: subscription.id) == .subscribing)
        await harness.connection.disconnect()
    }

    @Test func aRefreshedTokenThatWorksKeepsTheConnection() async throws {
        let counter = Counter()
        let harness = Harness(authorization: .token { "token-\(counter.next())" })
        await harness.connection.start()
        let first = try await harness.transport.nextConnection()
        _ = await first.nextMessage()
        first.push(#"{"type":"connection_error","errors":[{"errorType":"UnauthorizedException","message":"Token expired"}]}"#)
        let second = try await harness.transport.nextConnection()
        try await second.acceptConnection()
        try await harness.waitForState(.connected)
        #expect(second.authHeaders?["Authorization"] == "token-2")
        await harness.connection.disconnect()
    }

    @Test func retryableConnectionErrorsReconnect() async throws {
        let harness = Harness()
        await harness.connection.start()
        let server = try await harness.transport.nextConnection()
        _ = await server.nextMessage()
        server.push(#"{"type":"connection_error","errors":[{"errorType":"InternalFailure","message":"try again"}]}"#)
        try await harness.waitForState(.reconnecting(after: .seconds(10), because: .refused([ServiceError(errorType: "InternalFailure", message: "try again")])))
        // The state changes just before the delay starts: advance only once the sleep is registered.
        try await harness.clock.waitForSleeper(until: .seconds(10))
        harness.clock.advance(by: .seconds(10))
        _ = try await harness.transport.nextConnection()
        await harness.connection.disconnect()
    }

    @Test func missingConnectionAckTimesOut() async throws {
        let harness = Harness()
        await harness.connection.start()
        let server = try await harness.transport.nextConnection()
        _ = await server.nextMessage()
        try await harness.clock.waitForSleeper(until: .seconds(15))
        harness.clock.advance(by: .seconds(15))
        try await server.untilClosedByClient()
        try await harness.waitForState(.reconnecting(after: .seconds(10), because: .timedOut))
        await harness.connection.disconnect()
    }

    @Test func rotatedTokensReachTheNextHandshakeAndSubscribes() async throws {
        let counter = Counter()
        let harness = Harness(authorization: .token { "token-\(counter.next())" })
        let subscription = try await harness.connection.subscribe(to: vortexChannels[0])
        _ = subscription
        await harness.connection.start()
        let first = try await harness.transport.nextConnection()
        #expect(first.authHeaders?["Authorization"] == "token-1")
        try await first.acceptConnection()
        let subscribe = try #require(await first.nextMessage())
        #expect((subscribe["authorization"] as? [String: String])?["Authorization"] == "token-2")
        #expect((subscribe["authorization"] as? [String: String])?["host"] == "abc123.appsync-api.eu-west-1.amazonaws.com")

        first.drop()
        try await harness.clock.waitForSleeper(until: .seconds(10))
        harness.clock.advance(by: .seconds(10))
        let second = try await harness.transport.nextConnection()
        #expect(second.authHeaders?["Authorization"] == "token-3")
        try await second.acceptConnection()
        let resubscribe = try #require(await second.nextMessage())
        #expect((resubscribe["authorization"] as? [String: String])?["Authorization"] == "token-4")
        await harness.connection.disconnect()
    }

    @Test func failedConnectsFollowThePolicy() async throws {
        let harness = Harness { $0.reconnectPolicy = .exponential(initial: .seconds(1), maximum: .seconds(4)) }
        harness.transport.rejectNextConnects(3)
        await harness.connection.start()
        for delay in [1, 2, 4] {
            try await harness.waitForState(.reconnecting(after: .seconds(delay), because: .transportError("Refused()")))
            try await harness.clock.waitForSleeper(until: harness.clock.now.offset + .seconds(delay))
            harness.clock.advance(by: .seconds(delay))
        }
        let server = try await harness.transport.nextConnection()  // the 4th attempt succeeds
        try await server.acceptConnection()
        try await harness.waitForState(.connected)
        #expect(harness.transport.connectCount == 4)
        await harness.connection.disconnect()
    }

    // MARK: Routing

    /// With the session's inbound reader (as `WSClientTransport` offers) and without (its stream).
    @Test(arguments: [true, false])
    func eachEventReachesOnlyItsStreamAndBadFramesAreCounted(offersInboundReader: Bool) async throws {
        let harness = Harness(offersInboundReader: offersInboundReader)
        var collectors: [String: Collector] = [:]
        for channel in vortexChannels {
            collectors[channel] = Collector(try await harness.connection.subscribe(to: channel).events)
        }
        let server = try await harness.connect()
        let ids = try await server.acceptSubscribes(9)

        server.push("this is not JSON")
        server.push(#"{"type":"mystery"}"#)
        server.push(#"{"type":"data","id":"no-such-subscription","event":"{}"}"#)
        server.push(#"{"type":"data","id":"x"}"#)
        for (index, channel) in vortexChannels.enumerated() {
            server.push(["type": "data", "id": ids[channel]!, "event": "{\"index\":\(index)}"])
        }
        for (index, channel) in vortexChannels.enumerated() {
            try await collectors[channel]!.waitFor(count: 1)
            #expect(collectors[channel]!.elements == ["{\"index\":\(index)}"])
        }
        let metrics = harness.connection.metrics.snapshot()
        #expect(metrics.malformedFrames == 2)
        #expect(metrics.unknownMessageTypes == 1)
        #expect(metrics.unknownSubscriptionFrames == 1)
        #expect(metrics.channels[vortexChannels[0]]?.received == 1)
        await harness.connection.disconnect()
    }

    /// A `data` frame's `event` is one string (what the service sends, read without a list) or a list
    /// (what its docs show); an unusual frame goes the general way. Each event arrives once, in order,
    /// with the next sequence number, and is counted.
    @Test func oneEventAListOfEventsAndUnusualFramesArriveInOrder() async throws {
        let harness = Harness()
        let events = try await harness.connection.subscribe(to: vortexChannels[0]).events
        let received = NIOLockedValueBox<[RawChannelEvent]>([])
        let reader = Task { for await event in events { received.withLockedValue { $0.append(event) } } }
        let server = try await harness.connect()
        let id = try #require(try await server.acceptSubscribes(1)[vortexChannels[0]])

        server.push(#"{"type":"data","id":"\#(id)","event":"{\"n\":1}"}"#)
        server.push(#"{"type":"data","id":"\#(id)","event":["{\"n\":2}","{\"n\":3}"]}"#)
        server.push(#"{"id":"\#(id)","event":"{\"n\":4}","type":"data"}"#)
        // Unusual for the one-pass reader (an unknown key): the general decoding delivers it.
        server.push(#"{"type":"data","id":"\#(id)","event":"{\"n\":5}","extra":true}"#)
        server.push(#"{"type":"data","id":"\#(id)","event":[]}"#)
        server.push(#"{"type":"ka"}"#)
        server.push(#"{"type":"data","id":"\#(id)","event":"{\"n\":6}"}"#)
        try await eventually("6 events") { received.withLockedValue { $0.count } >= 6 }

        let arrived = received.withLockedValue { $0 }
        #expect(arrived.map(\.text) == (1...6).map { "{\"n\":\($0)}" })
        #expect(zip(arrived, arrived.dropFirst()).allSatisfy { $0.sequence + 1 == $1.sequence })
        #expect(harness.connection.metrics.snapshot().channels[vortexChannels[0]]?.received == 6)
        #expect(harness.connection.metrics.snapshot().malformedFrames == 0)
        reader.cancel()
        await harness.connection.disconnect()
    }

    @Test func unsubscribeIsSentWhenTheConsumerStops() async throws {
        let harness = Harness()
        let server = try await harness.connect()
        let subscription = try await harness.connection.subscribe(to: vortexChannels[0])
        let ids = try await server.acceptSubscribes(1)
        try await untilPublished(by: harness.connection, "acknowledged") { await harness.connection.acknowledgedChannels == [vortexChannels[0]] }
        await harness.connection.unsubscribe(subscription.id)
        let message = try #require(await server.nextMessage())
        #expect(message["type"] as? String == "unsubscribe")
        #expect(message["id"] as? String == ids[vortexChannels[0]])
        await harness.connection.disconnect()
    }

    @Test func subscriptionLimitIsEnforced() async throws {
        let harness = Harness()
        var subscriptions: [RawChannelSubscription] = []  // held: a dropped stream unsubscribes
        for index in 0..<200 { subscriptions.append(try await harness.connection.subscribe(to: "ns/c\(index)")) }
        await #expect(throws: AppSyncError.subscriptionLimitReached(200)) {
            try await harness.connection.subscribe(to: "ns/one-more")
        }
        await harness.connection.unsubscribe(subscriptions[0].id)
        subscriptions.append(try await harness.connection.subscribe(to: "ns/one-more"))
        #expect(subscriptions.count == 201)
    }

    // MARK: Publish

    @Test func publishOverTheWebSocket() async throws {
        let harness = Harness()
        let server = try await harness.connect()
        async let result = harness.connection.publish([#"{"a":1}"#, #"{"b":2}"#], to: "vortex-app/user/u1/roleChanged")
        let message = try #require(await server.nextMessage())
        #expect(message["type"] as? String == "publish")
        #expect(message["channel"] as? String == "vortex-app/user/u1/roleChanged")
        #expect(message["events"] as? [String] == [#"{"a":1}"#, #"{"b":2}"#])
        #expect((message["authorization"] as? [String: String])?["x-api-key"] == "da2-test-key")
        server.push([
            "type": "publish_success", "id": message["id"]!,
            "successful": [["identifier": "e1", "index": 0]],
            "failed": [["identifier": "e2", "index": 1, "code": 401, "message": "error"]],
        ])
        #expect(try await result == PublishResult(
            successful: [.init(identifier: "e1", index: 0)],
            failed: [.init(identifier: "e2", index: 1, code: "401", message: "error")]))
        await #expect(throws: AppSyncError.invalidPublish("a publish carries 1 to 5 events, not 6")) {
            try await harness.connection.publish(Array(repeating: "{}", count: 6), to: "ns/a")
        }
        await harness.connection.disconnect()
        await #expect(throws: AppSyncError.notConnected) {
            try await harness.connection.publish(["{}"], to: "ns/a")
        }
    }

    /// One sweeper times out every publish of a session: each at its own deadline (15 s after it was
    /// sent), an answered one skipped, and a publish sent later never held up by an earlier one.
    @Test func eachPublishTimesOutAtItsOwnDeadline() async throws {
        let harness = Harness()
        let server = try await harness.connect()
        func publish(_ n: Int) async throws -> (Task<PublishResult, any Error>, id: String) {
            let task = Task { try await harness.connection.publish(["{\"n\":\(n)}"], to: "ns/a") }
            let message = try #require(await server.nextMessage())
            return (task, try #require(message["id"] as? String))
        }
        let (first, _) = try await publish(1)  // sent at 0 s: due at 15 s
        harness.clock.advance(by: .seconds(5))
        let (second, secondID) = try await publish(2)  // 5 s: answered
        harness.clock.advance(by: .seconds(5))
        let (third, _) = try await publish(3)  // 10 s: due at 25 s
        server.push(["type": "publish_success", "id": secondID, "successful": [["identifier": "e2", "index": 0]], "failed": []])
        #expect(try await second.value.successful.count == 1)

        try await harness.clock.waitForSleeper(until: .seconds(15))
        harness.clock.advance(by: .seconds(5))
        await #expect(throws: AppSyncError.timedOutAfterSending) { try await first.value }
        // The third waits on: its deadline is the next the sweeper sleeps until.
        try await harness.clock.waitForSleeper(until: .seconds(25))
        #expect(harness.connection.publishesAwaitingAnswer == 1)
        harness.clock.advance(by: .seconds(10))
        await #expect(throws: AppSyncError.timedOutAfterSending) { try await third.value }
        #expect(harness.connection.publishesAwaitingAnswer == 0)
        await harness.connection.disconnect()
    }

    /// Issue 44: a publish that had timed out was still sent once the server read again, so an app
    /// that retried published twice. A publish still queued when its time runs out is never sent;
    /// one already written says it may still be delivered.
    @Test func aPublishThatTimedOutBeforeItWentOutIsNeverSent() async throws {
        let harness = Harness()
        let server = try await harness.connect()
        server.holdSends()
        let first = Task { try await harness.connection.publish([#"{"n":1}"#], to: "ns/a") }
        try await server.untilHeldSends(1)
        let second = Task { try await harness.connection.publish([#"{"n":2}"#], to: "ns/a") }
        // Both wait for an answer, the oldest one's deadline (the first to come) on the clock.
        try await eventually("both publishes waiting for an answer") {
            harness.connection.publishesAwaitingAnswer == 2 && harness.clock.pendingDeadlines.contains(.seconds(15))
        }
        harness.clock.advance(by: .seconds(15))
        await #expect(throws: AppSyncError.timedOutAfterSending) { try await first.value }
        await #expect(throws: AppSyncError.timedOut) { try await second.value }
        server.releaseSends()
        let written = try #require(await server.nextMessage())
        #expect((written["events"] as? [String]) == [#"{"n":1}"#])
        #expect(await server.nextMessage(within: 0.5) == nil)  // the second never goes out
        await harness.connection.disconnect()
    }

    /// Issue 44: the send queue was unbounded (270 MB against a server that stopped reading).
    /// Publishes that do not fit fail at once, nothing sent.
    @Test func publishesBeyondTheQueueBoundFailAtOnce() async throws {
        let harness = Harness { $0.maximumQueuedPublishBytes = 10_000 }
        let server = try await harness.connect()
        server.holdSends()
        let event = "{\"text\":\"" + String(repeating: "x", count: 3_000) + "\"}"
        var publishes: [Task<PublishResult, any Error>] = []
        for _ in 0..<10 {
            publishes.append(Task { try await harness.connection.publish([event], to: "ns/a") })
            await harness.settle()
        }
        // Frames of about 3.2 KB: the one in the socket and two more fit in 10 000 bytes.
        try await eventually("three publishes waiting for an answer") {
            harness.connection.publishesAwaitingAnswer == 3 && harness.clock.pendingDeadlines.contains(.seconds(15))
        }
        harness.clock.advance(by: .seconds(15))
        var outcomes: [String] = []
        for publish in publishes {
            do {
                _ = try await publish.value
                outcomes.append("answered")
            } catch {
                outcomes.append("\(error)")
            }
        }
        // Which publish got in first depends on scheduling; how many ended which way does not.
        let full = AppSyncError.sendQueueFull(bytes: 10_000).description
        let expected = [AppSyncError.timedOutAfterSending.description] + Array(repeating: AppSyncError.timedOut.description, count: 2)
            + Array(repeating: full, count: 7)
        #expect(outcomes.sorted() == expected.sorted())
        server.releaseSends()
        await harness.connection.disconnect()
    }

    /// Issue 44: `data` frames whose `event` is an array filled the queue between the socket and the
    /// decoder without bound (3 GB in 32 s). What waits for decoding is bounded; the oldest go,
    /// counted; the newest are delivered.
    @Test func eventsWaitingToBeDecodedAreBounded() async throws {
        let harness = Harness()
        let subscription = try await harness.connection.subscribe(to: "ns/flood")
        let server = try await harness.connect()
        let id = try #require(try await server.acceptSubscribes(1)["ns/flood"])
        try await untilPublished(by: harness.connection, "the subscription active") { await harness.connection.status(ofSubscription: subscription.id) == .active }
        let limit = ConnectionDriver.undecodedLimit.events
        let events = (0..<(limit + 2_500)).map { #"{"n":\#($0)}"# }
        server.push(["type": "data", "id": id, "event": events])
        // The frame's events are counted received before they are queued, overflowed after.
        try await eventually("the frame's events queued") { harness.connection.metrics.snapshot().channels["ns/flood"]?.overflowed ?? 0 > 0 }
        #expect(harness.connection.metrics.snapshot().channels["ns/flood"]?.received == events.count)
        #expect(harness.connection.metrics.snapshot().channels["ns/flood"]?.overflowed == 2_500)
        var reader = subscription.events.makeAsyncIterator()
        let first = await reader.next()
        #expect(first?.text == #"{"n":2500}"#)  // the oldest went
        #expect(first?.droppedBefore == 2_500)  // told to the first event after the loss, for the hub
        #expect(await reader.next()?.droppedBefore == 0)
        await harness.connection.disconnect()
    }
}
