import ChannelNaming
import AppSyncRuntime
@_spi(Generated) import ChannelRuntime
import Testing

/// A user id becomes one channel segment; anything that could reach another user's channels
/// (or is not a valid segment) must be rejected before a frame is sent.
@Suite("Channel parameter validation")
struct ChannelSegmentTests {
    @Test(arguments: [
        "a1b2c3d4-0000-4000-8000-123456789abc",  // a Cognito sub
        "user-1", "U", String(repeating: "x", count: 50),
    ])
    func validSegments(_ value: String) throws {
        #expect(try ChannelSegment(value, parameter: "userId").value == value)
    }

    @Test(arguments: [
        ("", ChannelParameterError.empty(parameter: "userId")),
        ("other/user", .invalidCharacter(parameter: "userId", character: "/")),
        ("*", .invalidCharacter(parameter: "userId", character: "*")),
        ("a*", .invalidCharacter(parameter: "userId", character: "*")),
        ("user 1", .invalidCharacter(parameter: "userId", character: " ")),
        ("../admin", .invalidCharacter(parameter: "userId", character: ".")),
        ("user_1", .invalidCharacter(parameter: "userId", character: "_")),
        ("user%2F1", .invalidCharacter(parameter: "userId", character: "%")),
        ("user\n1", .invalidCharacter(parameter: "userId", character: "\n")),
        ("usér", .invalidCharacter(parameter: "userId", character: "é")),
        ("user{1}", .invalidCharacter(parameter: "userId", character: "{")),
        ("-user", .edgeHyphen(parameter: "userId")),
        ("user-", .edgeHyphen(parameter: "userId")),
        (String(repeating: "x", count: 51), .tooLong(parameter: "userId", length: 51)),
    ])
    func rejectedSegments(_ value: String, _ expected: ChannelParameterError) {
        #expect(throws: expected) { try ChannelSegment(value, parameter: "userId") }
    }

    /// Under `transport: sse` a topic segment may hold what MQTT, Kafka or Pusher ids do, but never
    /// what would widen a subscription or change the topic's meaning.
    @Test func serverSentEventsRulesAcceptTopicValuesAndStillRefuseWidening() throws {
        for value in ["user_1", "eu-west.1", "orders:v2", "a+b=c", "-x-", String(repeating: "x", count: 255)] {
            #expect(try ChannelSegment(value, parameter: "id", rules: .serverSentEvents).value == value)
        }
        let allowed = ChannelNamingRules.serverSentEvents.allowedCharacters
        for (value, character) in [("a/b", "/"), ("*", "*"), ("a{b", "{"), ("#", "#"), ("a b", " "), ("é", "é"), ("a\nb", "\n")] as [(String, Character)] {
            #expect(throws: ChannelParameterError.invalidCharacter(parameter: "id", character: character, allowed: allowed)) {
                try ChannelSegment(value, parameter: "id", rules: .serverSentEvents)
            }
        }
        #expect(throws: ChannelParameterError.tooLong(parameter: "id", length: 256, maximum: 255)) {
            try ChannelSegment(String(repeating: "x", count: 256), parameter: "id", rules: .serverSentEvents)
        }
        let error = ChannelParameterError.tooLong(parameter: "id", length: 256, maximum: 255)
        #expect(error.description == "channel parameter 'id' is 256 characters long; at most 255 are allowed")
    }

    @Test func errorsDoNotEchoTheValue() {
        let error = ChannelParameterError.invalidCharacter(parameter: "userId", character: "/")
        #expect(error.description == "channel parameter 'userId' contains '/'; only A-Z, a-z, 0-9 and '-' are allowed")
        #expect(ChannelParameterError.invalidCharacter(parameter: "p", character: "\n").description.contains("U+A"))
    }

    @Test func templatesFillEveryParameter() throws {
        let template = ChannelTemplate("vortex-app/user/{userId}/device/{deviceId}")
        #expect(template.parameterNames == ["userId", "deviceId"])
        let channel = try template.channel(["userId": ChannelSegment("u1"), "deviceId": ChannelSegment("d-2")])
        #expect(channel == "vortex-app/user/u1/device/d-2")
        #expect(throws: ChannelParameterError.missing(parameter: "deviceId", channel: template.address)) {
            try template.channel(["userId": ChannelSegment("u1")])
        }
        // A parameter named twice is filled in twice; text around the placeholders stays as it is.
        let twice = ChannelTemplate("/{a}-x/{b}/{a}")
        #expect(try twice.channel(["a": ChannelSegment("1"), "b": ChannelSegment("2")]) == "/1-x/2/1")
    }

    /// A subscription is its channel: the hub and apps compare and hash subscriptions by it.
    @Test func subscriptionsAreEqualWhenTheirChannelsAre() throws {
        let a = PingSubscription(userId: try ChannelSegment("u1")), b = PingSubscription(userId: try ChannelSegment("u1"))
        let c = PingSubscription(userId: try ChannelSegment("u2"))
        #expect(a == b && a != c)
        #expect(Set([a, b, c]).count == 2)
        #expect(try PingSubscription.channel(for: ["userId": ChannelSegment("u2")]) == c.channel)
    }
}

/// The one definition of AppSync's channel rules that the generator, the runtime and the emulator use.
@Suite("Channel naming rules")
struct ChannelNamingRulesTests {
    let rules = ChannelNamingRules.appSyncEvents

    @Test(arguments: [
        ("u1", nil), ("A-z-09", nil), (String(repeating: "a", count: 50), nil),
        ("", SegmentProblem.empty), (String(repeating: "a", count: 51), .tooLong(length: 51)),
        ("a/b", .invalidCharacter("/")), ("*", .invalidCharacter("*")), ("é", .invalidCharacter("é")),
        ("a b", .invalidCharacter(" ")), ("-a", .edgeHyphen), ("a-", .edgeHyphen),
    ] as [(String, SegmentProblem?)])
    func segments(_ text: String, _ problem: SegmentProblem?) {
        #expect(rules.problem(inSegment: text) == problem)
        // The runtime's parameter validation is the same rule.
        #expect(((try? ChannelSegment(text)) != nil) == (problem == nil))
    }

    @Test func segmentCounts() {
        #expect(!rules.allowsSegmentCount(0))
        #expect((1...5).allSatisfy(rules.allowsSegmentCount))
        #expect(!rules.allowsSegmentCount(6))
    }
}
