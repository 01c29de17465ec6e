import Foundation
import Testing

/// Snippet reference tests: a small spec in, the exact Swift out, one construct at a time (as
/// swift-openapi-generator's `SnippetBasedReferenceTests` do). Each snippet is the `components/schemas`
/// of a one-channel spec; the expected text is the named declaration of one output file.
@Suite("Snippets")
struct SnippetTests {
    static let header = """
        asyncapi: 3.0.0
        info: {title: Snippets, version: 1.0.0}
        channels:
          events:
            address: app/{userId}/events
            parameters: {userId: {description: The subscriber.}}
            messages:
              changed:
                name: thing/changed
                payload: {$ref: '#/components/schemas/Payload'}
        operations:
          eventValues:
            action: receive
            channel: {$ref: '#/channels/events'}
        components:
          schemas:

        """

    /// Generates the snippet and returns the declaration named `name` in `file`, with its doc comment.
    private func generate(_ schemas: String, file: String, declaration name: String) async throws -> String? {
        try await generate(spec: Self.header + schemas, file: file, declaration: name)
    }

    /// Generates a whole spec and returns the declaration named `name` in `file`.
    private func generate(spec text: String, file: String, declaration name: String) async throws -> String? {
        try Self.declaration(named: name, in: try await generatedFiles([file], spec: text)[file]!)
    }

    /// Generates a whole spec and returns the text of each of `files`, by name.
    private func generatedFiles(_ files: [String], spec text: String) async throws -> [String: String] {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let spec = work.appendingPathComponent("spec.yaml")
        try text.write(to: spec, atomically: true, encoding: .utf8)
        let config = try TestSupport.writeConfig(in: work, spec: spec)
        let output = work.appendingPathComponent("out")
        let result = try await TestSupport.channelgen(["generate", "--config", config.path, "--output", output.path, "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        var texts: [String: String] = [:]
        for file in files { texts[file] = try TestSupport.contents(output.appendingPathComponent(file)) }
        return texts
    }

    /// A top-level declaration with the doc comment above it, up to its closing brace.
    static func declaration(named name: String, in text: String) throws -> String? {
        let lines = text.components(separatedBy: "\n")
        let opening = try Regex("^(@_spi\\(Generated\\) )?(public |private )?(struct|enum|protocol|final class|extension) \\Q\(name)\\E[: {]")
        guard let index = lines.firstIndex(where: { $0.firstMatch(of: opening) != nil }) else { return nil }
        var start = index
        while start > 0 && (lines[start - 1].hasPrefix("///") || lines[start - 1].hasPrefix("@available")) { start -= 1 }
        if lines[index].hasSuffix("{}") { return lines[start...index].joined(separator: "\n") }
        guard let end = lines[index...].firstIndex(of: "}") else { return nil }
        return lines[start...end].joined(separator: "\n")
    }

    @Test func anObjectWithRequiredOptionalAndRenamedPropertiesUsesSynthesizedCoding() async throws {
        let snippet = #"""
                Payload:
                  type: object
                  required: [eventType, item_count]
                  properties:
                    eventType: {type: string}
                    item_count: {type: integer, format: int32, minimum: 0}
                    note: {type: string, nullable: true, description: Free text.}
            """#
        let expected = #"""
            /// - Remark: Generated from `#/components/schemas/Payload`.
            public struct Payload: Codable, Hashable, Sendable {
                public var eventType: String
                /// - Format: `int32`
                /// - Minimum: `0`
                public var itemCount: Int32
                /// Free text.
                public var note: String?

                public init(
                    eventType: String = "thing/changed",
                    itemCount: Int32,
                    note: String? = nil,
                ) {
                    self.eventType = eventType
                    self.itemCount = itemCount
                    self.note = note
                }

                enum CodingKeys: String, CodingKey {
                    case eventType
                    case itemCount = "item_count"
                    case note
                }
            }
            """#
        #expect(try await generate(snippet + "\n", file: "Models.swift", declaration: "Payload") == expected)
    }

    /// Dates go through the runtime's `@ISO8601` coder, so the struct keeps synthesized `Codable`
    /// and one list of properties (no written-out `CodingKeys`, `init(from:)` or `encode(to:)`).
    @Test func aDateIsMarkedForTheISO8601CoderAndCodingIsSynthesized() async throws {
        let snippet = #"""
                Payload:
                  type: object
                  required: [at]
                  properties:
                    at: {type: string, format: date-time}
                    history: {type: array, items: {type: string, format: date-time}}
            """#
        let expected = #"""
            /// - Remark: Generated from `#/components/schemas/Payload`.
            public struct Payload: Codable, Hashable, Sendable {
                @ISO8601 public var at: Date
                @ISO8601 public var history: [Date]?

                public init(at: Date, history: [Date]? = nil) {
                    self.at = at
                    self.history = history
                }
            }
            """#
        #expect(try await generate(snippet + "\n", file: "Models.swift", declaration: "Payload") == expected)
    }

    @Test func aStringEnumIsOpenAndKeepsEveryRawValue() async throws {
        let snippet = #"""
                Payload:
                  type: string
                  enum: [PASSWORD_CHANGED, "\r\n", "*/", unknown, ""]
            """#
        let expected = #"""
            /// - Remark: Generated from `#/components/schemas/Payload`.
            public enum Payload: Codable, Hashable, Sendable, RawRepresentable {
                /// `PASSWORD_CHANGED`
                case passwordChanged
                /// `` "\r\n" ``
                case crLf
                /// `*/`
                case asteriskSlash
                /// `unknown`
                case unknown2
                /// `` "" ``
                case empty
                /// A value this client does not know yet: decoding never fails on a new server value,
                /// and the raw value is encoded back unchanged.
                case unknown(String)

                public init(rawValue: String) {
                    self = Self.byRawValue[rawValue] ?? .unknown(rawValue)
                }

                public var rawValue: String {
                    switch self {
                    case .passwordChanged: return "PASSWORD_CHANGED"
                    case .crLf: return "\r\n"
                    case .asteriskSlash: return "*/"
                    case .unknown2: return "unknown"
                    case .empty: return ""
                    case .unknown(let rawValue): return rawValue
                    }
                }

                /// Every value this client knows, in spec order.
                public static let knownCases: [Self] = [
                    Self.passwordChanged,
                    Self.crLf,
                    Self.asteriskSlash,
                    Self.unknown2,
                    Self.empty,
                ]

                private static let byRawValue: [String: Self] = Dictionary(knownCases.map { ($0.rawValue, $0) }, uniquingKeysWith: { first, _ in first })

                // Equality follows the raw value, so `.unknown("PASSWORD_CHANGED")` equals its named case.
                public static func == (lhs: Self, rhs: Self) -> Bool {
                    lhs.rawValue == rhs.rawValue
                }

                public func hash(into hasher: inout Hasher) {
                    hasher.combine(self.rawValue)
                }

                public init(from decoder: any Decoder) throws {
                    self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
                }

                public func encode(to encoder: any Encoder) throws {
                    var container = encoder.singleValueContainer()
                    try container.encode(self.rawValue)
                }
            }
            """#
        #expect(try await generate(snippet + "\n", file: "Models.swift", declaration: "Payload") == expected)
    }

    @Test func nestedObjectsArraysAndMapsNestTheirTypes() async throws {
        let snippet = #"""
                Payload:
                  type: object
                  properties:
                    owner:
                      type: object
                      properties:
                        name: {type: string}
                    tags: {type: array, items: {type: string}}
                    scores: {type: object, additionalProperties: {type: number}}
                    String: {type: object, properties: {value: {type: string}}}
            """#
        let expected = #"""
            /// - Remark: Generated from `#/components/schemas/Payload`.
            public struct Payload: Codable, Hashable, Sendable {
                public var owner: Owner?
                public var tags: [Swift.String]?
                public var scores: [Swift.String: Double]?
                public var string: String?

                public init(
                    owner: Owner? = nil,
                    tags: [Swift.String]? = nil,
                    scores: [Swift.String: Double]? = nil,
                    string: String? = nil,
                ) {
                    self.owner = owner
                    self.tags = tags
                    self.scores = scores
                    self.string = string
                }

                enum CodingKeys: Swift.String, CodingKey {
                    case owner
                    case tags
                    case scores
                    case string = "String"
                }

                /// - Remark: Generated from `#/components/schemas/Payload/properties/owner`.
                public struct Owner: Codable, Hashable, Sendable {
                    public var name: Swift.String?

                    public init(name: Swift.String? = nil) {
                        self.name = name
                    }
                }

                /// - Remark: Generated from `#/components/schemas/Payload/properties/String`.
                public struct String: Codable, Hashable, Sendable {
                    public var value: Swift.String?

                    public init(value: Swift.String? = nil) {
                        self.value = value
                    }
                }
            }
            """#
        #expect(try await generate(snippet + "\n", file: "Models.swift", declaration: "Payload") == expected)
    }

    @Test func hostileTextStaysInsideCommentsAndLiterals() async throws {
        let snippet = #"""
                Payload:
                  type: object
                  description: "First.\rpublic let injected = 1\u2028*/ second"
                  properties:
                    code:
                      type: string
                      example: "a\"b\\c"
                      pattern: "^[a-z]+\n$"
            """#
        let expected = #"""
            /// First.
            /// public let injected = 1
            /// */ second
            ///
            /// - Remark: Generated from `#/components/schemas/Payload`.
            public struct Payload: Codable, Hashable, Sendable {
                /// - Pattern: `^[a-z]+
                /// $`
                /// - Example: `a"b\c`
                public var code: String?

                public init(code: String? = nil) {
                    self.code = code
                }
            }
            """#
        #expect(try await generate(snippet + "\n", file: "Models.swift", declaration: "Payload") == expected)
    }

    @Test func aChannelWithAParameterBecomesAValidatedSubscription() async throws {
        let snippet = #"""
                Payload:
                  type: object
                  properties:
                    value: {type: string}
            """#
        let expected = #"""
            /// Subscription to `app/{userId}/events`.
            ///
            /// - Channel: `app/{userId}/events`
            /// - Event type: `thing/changed`
            /// - Remark: Generated from `#/channels/events`.
            public struct EventsSubscription: ChannelSubscription {
                public typealias Event = Payload

                public static let template = Channels.events
                public static let eventType: String? = "thing/changed"

                /// The subscriber.
                public let userId: ChannelSegment

                public init(userId: ChannelSegment) {
                    self.userId = userId
                }

                /// Validates each value against the channel segment rules before it can form a channel path.
                public init(userId: String) throws(ChannelParameterError) {
                    self.init(userId: try ChannelSegment(userId, parameter: "userId"))
                }

                public var channel: String { "app/\(self.userId.value)/events" }
            }
            """#
        #expect(try await generate(snippet + "\n", file: "Subscriptions.swift", declaration: "EventsSubscription") == expected)
    }

    /// What only generated code needs from the runtime is `@_spi(Generated)`: the generated files
    /// import it so, and the conformances to it are marked, so apps never see them.
    @Test func theRuntimeInterfaceForGeneratedCodeIsImportedAndUsedAsSPI() async throws {
        let snippet = #"""
                Payload:
                  type: object
                  required: [eventType]
                  properties:
                    eventType: {type: string}
            """#
        let files = try await generatedFiles(
            ["Models.swift", "Subscriptions.swift", "Notifier.swift", "Channels.swift"], spec: Self.header + snippet + "\n")
        func imports(_ file: String) -> [String] {
            files[file]!.components(separatedBy: "\n").filter { $0.hasSuffix("import ChannelRuntime") }
        }
        // Models decode with their synthesized `Codable`: no runtime needed without dates.
        #expect(imports("Models.swift") == [])
        #expect(imports("Subscriptions.swift") == ["@_spi(Generated) import ChannelRuntime"])
        // Files apps read use the public API only.
        #expect(imports("Notifier.swift") == ["import ChannelRuntime"])
        #expect(imports("Channels.swift") == ["import ChannelRuntime"])
        let subscriptions = files["Subscriptions.swift"]!
        #expect(subscriptions.contains("\n@_spi(Generated) extension Payload: EventTypeReporting {}\n"))
    }

    @Test func theNotifierProtocolHasAStreamPerOperationTwoGenericStreamsASetterPerParameterAndTheConnectionsStates() async throws {
        let snippet = #"""
                Payload:
                  type: object
                  properties:
                    value: {type: string}
            """#
        let expected = #"""
            /// Typed event streams of Snippets 1.0.0, one per channel.
            public protocol SnippetsNotifierProtocol: Sendable {
                /// Events on `app/{userId}/events`.
                ///
                /// - Remark: Generated from `#/operations/eventValues`.
                func eventValues() async -> AsyncStream<Payload>

                /// The events of one instance of a channel, whatever the source's parameters
                /// (any number of instances on one connection).
                func values<Subscription: ChannelSubscription>(for subscription: Subscription) async -> AsyncStream<Subscription.Event>

                /// A channel's events for the source's parameters, each with its channel, event type,
                /// arrival time and sequence number.
                func envelopes<Subscription: ChannelSubscription>(_ subscription: Subscription.Type) async -> AsyncStream<ChannelEnvelope<Subscription.Event>>

                /// A channel's events for the source's parameters with what happened between them: status
                /// changes, gaps (events lost) and resumptions after the connection was down.
                func updates<Subscription: ChannelSubscription>(_ subscription: Subscription.Type) async -> ChannelUpdates<Subscription.Event>

                /// Sets the `{userId}` channel parameter; every open stream moves to the channels it names.
                ///
                /// - Throws: `ChannelParameterError` when the value is not a valid channel segment
                ///   (1–50 characters of A–Z, a–z, 0–9 and '-'); nothing changes then.
                func setUserId(_ userId: String) async throws(ChannelParameterError)

                /// The connection's state now, then each change (`.connecting`, `.connected`,
                /// `.reconnecting(after:because:)`, …).
                func connectionStates() async -> AsyncStream<ConnectionState>
            }
            """#
        #expect(try await generate(snippet + "\n", file: "Notifier.swift", declaration: "SnippetsNotifierProtocol") == expected)
    }

    @Test func channelConstantsListEveryChannel() async throws {
        let snippet = #"""
                Payload:
                  type: object
                  properties:
                    value: {type: string}
            """#
        let expected = #"""
            /// The channel addresses of Snippets 1.0.0.
            public enum Channels {
                /// - Remark: Generated from `#/channels/events`.
                public static let events = ChannelTemplate("app/{userId}/events")

                /// Every channel, in spec order.
                public static let all: [ChannelTemplate] = [events]
            }
            """#
        #expect(try await generate(snippet + "\n", file: "Channels.swift", declaration: "Channels") == expected)
    }

    /// The schemas of the composition snippets below.
    static let compositionSnippet = #"""
                Payload:
                  oneOf:
                    - $ref: '#/components/schemas/Added'
                    - $ref: '#/components/schemas/Node'
                  discriminator: {propertyName: kind, mapping: {thing/added: Added}}
                Added:
                  allOf:
                    - $ref: '#/components/schemas/Base'
                    - {type: object, required: [id], properties: {id: {type: string}}}
                Base: {type: object, required: [kind], properties: {kind: {type: string}}}
                Node:
                  type: object
                  required: [kind]
                  properties:
                    kind: {type: string}
                    next: {$ref: '#/components/schemas/Node'}
                  additionalProperties: {type: integer}
        """#

    /// Issue 14: `oneOf` with an OpenAPI discriminator: a case per variant, picked by the mapping key or
    /// the component name, and `unknown` keeping other JSON.
    @Test func aDiscriminatedUnionIsAnOpenEnumPickedByItsMapping() async throws {
        let expected = #"""
            /// - Remark: Generated from `#/components/schemas/Payload`.
            public enum Payload: Codable, Hashable, Sendable {
                case added(Added)
                case node(Node)
                /// A variant this client does not know yet: decoding never fails on a new kind of value,
                /// and its JSON is encoded back unchanged.
                case unknown(JSONValue)

                enum CodingKeys: String, CodingKey {
                    case tag = "kind"
                }

                public init(from decoder: any Decoder) throws {
                    switch try? decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(String.self, forKey: .tag) {
                    case "thing/added"?: self = .added(try decoder.value())
                    case "Node"?: self = .node(try decoder.value())
                    default: self = .unknown(try decoder.value())
                    }
                }

                public func encode(to encoder: any Encoder) throws {
                    switch self {
                    case .added(let value): try value.encode(to: encoder)
                    case .node(let value): try value.encode(to: encoder)
                    case .unknown(let value): try value.encode(to: encoder)
                    }
                }
            }
            """#
        let actual = try await generate(Self.compositionSnippet, file: "Models.swift", declaration: "Payload")
        #expect(actual == expected)
    }

    /// Issue 14: `allOf` of a base and an object: one struct with both sets of properties.
    @Test func anAllOfOfObjectsIsOneMergedStruct() async throws {
        let expected = #"""
            /// - Remark: Generated from `#/components/schemas/Added`.
            public struct Added: Codable, Hashable, Sendable {
                public var kind: String
                public var id: String

                public init(kind: String, id: String) {
                    self.kind = kind
                    self.id = id
                }
            }
            """#
        let actual = try await generate(Self.compositionSnippet, file: "Models.swift", declaration: "Added")
        #expect(actual == expected)
    }

    /// Issue 14: `allOf` of a union and an object has no merged form; like swift-openapi-generator,
    /// a struct holds each member, every one decoded from the whole value.
    @Test func anAllOfOfAUnionAndAnObjectHoldsEachMember() async throws {
        let schemas = #"""
                Payload:
                  description: A shape placed at a time.
                  allOf:
                    - $ref: '#/components/schemas/Shape'
                    - type: object
                      properties: {at: {type: string, format: date-time}}
                      required: [at]
                Shape:
                  oneOf:
                    - {type: object, title: Circle, properties: {radius: {type: number}}, required: [radius]}
                    - {type: object, title: Square, properties: {side: {type: number}}, required: [side]}
            """#
        let expected = #"""
            /// A shape placed at a time.
            ///
            /// - Each `allOf` member decodes the whole value, in order (`value1`, `value2`, …); objects merge into one member
            /// - Remark: Generated from `#/components/schemas/Payload`.
            public struct Payload: Codable, Hashable, Sendable {
                public var value1: Shape
                public var value2: Value2

                public init(value1: Shape, value2: Value2) {
                    self.value1 = value1
                    self.value2 = value2
                }

                public init(from decoder: any Decoder) throws {
                    self.value1 = try decoder.value()
                    self.value2 = try decoder.value()
                }

                public func encode(to encoder: any Encoder) throws {
                    try self.value1.encode(to: encoder)
                    try self.value2.encode(to: encoder)
                }

                /// - Remark: Generated from `#/components/schemas/Payload/allOf`.
                public struct Value2: Codable, Hashable, Sendable {
                    @ISO8601 public var at: Date

                    public init(at: Date) {
                        self.at = at
                    }
                }
            }
            """#
        let actual = try await generate(schemas, file: "Models.swift", declaration: "Payload")
        #expect(actual == expected)
    }

    /// Issue 14: a channel with several messages and a `send` operation.
    static let chatRoom = #"""
        asyncapi: 3.0.0
        info: {title: Snippets, version: 1.0.0}
        channels:
          room:
            address: chat/{roomId}
            parameters: {roomId: {description: The room.}}
            messages:
              joined:
                payload: {type: object, properties: {type: {const: joined}, user: {type: string}}, required: [type, user]}
              said:
                payload: {type: object, properties: {type: {const: said}, text: {type: string}}, required: [type, text]}
        operations:
          roomValues:
            action: receive
            channel: {$ref: '#/channels/room'}
          say:
            action: send
            channel: {$ref: '#/channels/room'}
        """#

    /// Issue 14: the messages of one channel are an open enum, told apart by the property each fixes.
    @Test func severalMessagesOnAChannelAreAnEnumToldApartByTheirConstProperty() async throws {
        let expected = #"""
            /// One of the messages of the channel.
            ///
            /// - Remark: Generated from `#/channels/room/messages`.
            public enum RoomMessage: Codable, Hashable, Sendable {
                case joined(JoinedPayload)
                case said(SaidPayload)
                /// A variant this client does not know yet: decoding never fails on a new kind of value,
                /// and its JSON is encoded back unchanged.
                case unknown(JSONValue)

                enum CodingKeys: String, CodingKey {
                    case tag = "type"
                }

                public init(from decoder: any Decoder) throws {
                    switch try? decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(String.self, forKey: .tag) {
                    case "joined"?: self = .joined(try decoder.value())
                    case "said"?: self = .said(try decoder.value())
                    default: self = .unknown(try decoder.value())
                    }
                }

                public func encode(to encoder: any Encoder) throws {
                    switch self {
                    case .joined(let value): try value.encode(to: encoder)
                    case .said(let value): try value.encode(to: encoder)
                    case .unknown(let value): try value.encode(to: encoder)
                    }
                }
            }
            """#
        #expect(try await generate(spec: Self.chatRoom, file: "Models.swift", declaration: "RoomMessage") == expected)
    }

    /// Issue 14: a `send` operation is a typed publish method beside the streams.
    @Test func aSendOperationIsATypedPublishMethod() async throws {
        let expected = #"""
            /// Typed event streams of Snippets 1.0.0, one per channel.
            public protocol SnippetsNotifierProtocol: Sendable {
                /// Events on `chat/{roomId}`.
                ///
                /// - Remark: Generated from `#/operations/roomValues`.
                func roomValues() async -> AsyncStream<RoomMessage>

                /// The events of one instance of a channel, whatever the source's parameters
                /// (any number of instances on one connection).
                func values<Subscription: ChannelSubscription>(for subscription: Subscription) async -> AsyncStream<Subscription.Event>

                /// A channel's events for the source's parameters, each with its channel, event type,
                /// arrival time and sequence number.
                func envelopes<Subscription: ChannelSubscription>(_ subscription: Subscription.Type) async -> AsyncStream<ChannelEnvelope<Subscription.Event>>

                /// A channel's events for the source's parameters with what happened between them: status
                /// changes, gaps (events lost) and resumptions after the connection was down.
                func updates<Subscription: ChannelSubscription>(_ subscription: Subscription.Type) async -> ChannelUpdates<Subscription.Event>

                /// Publishes to `chat/{roomId}`.
                ///
                /// - Throws: `ChannelPublishError` for 0 or more than 5 events, an event over 240 KB (nothing is
                ///   sent then), a missing channel parameter, or a refused publish.
                /// - Remark: Generated from `#/operations/say`.
                func say(_ events: [RoomMessage]) async throws(ChannelPublishError)

                /// Sets the `{roomId}` channel parameter; every open stream moves to the channels it names.
                ///
                /// - Throws: `ChannelParameterError` when the value is not a valid channel segment
                ///   (1–50 characters of A–Z, a–z, 0–9 and '-'); nothing changes then.
                func setRoomId(_ roomId: String) async throws(ChannelParameterError)

                /// The connection's state now, then each change (`.connecting`, `.connected`,
                /// `.reconnecting(after:because:)`, …).
                func connectionStates() async -> AsyncStream<ConnectionState>
            }
            """#
        #expect(try await generate(spec: Self.chatRoom, file: "Notifier.swift", declaration: "SnippetsNotifierProtocol") == expected)
    }

    /// Issue 14: a property of the type itself is boxed behind a property of the same name, and
    /// `additionalProperties` beside `properties` keeps the other keys.
    @Test func aTypeContainingItselfIsBoxedAndKeepsItsExtraProperties() async throws {
        let expected = #"""
            /// - Remark: Generated from `#/components/schemas/Node`.
            public struct Node: Codable, Hashable, Sendable {
                public var kind: String

                public var next: Node? {
                    get { _next.value }
                    set { _next = Indirect(newValue) }
                }

                fileprivate var _next: Indirect<Node?>
                /// The properties the schema does not name, by key.
                public var additionalProperties: [String: Int]

                public init(
                    kind: String,
                    next: Node? = nil,
                    additionalProperties: [String: Int] = [:],
                ) {
                    self.kind = kind
                    self._next = Indirect(next)
                    self.additionalProperties = additionalProperties
                }

                enum CodingKeys: String, CodingKey {
                    case kind
                    case next
                }

                public init(from decoder: any Decoder) throws {
                    let container = try decoder.container(keyedBy: CodingKeys.self)
                    self.kind = try container.value(forKey: .kind)
                    self._next = Indirect(try container.valueIfPresent(forKey: .next))
                    let others = try decoder.container(keyedBy: ExtraPropertyKey.self)
                    var additionalProperties: [String: Int] = [:]
                    for key in others.allKeys where CodingKeys(rawValue: key.stringValue) == nil {
                        additionalProperties[key.stringValue] = try others.value(forKey: key) as Int
                    }
                    self.additionalProperties = additionalProperties
                }

                public func encode(to encoder: any Encoder) throws {
                    var container = encoder.container(keyedBy: CodingKeys.self)
                    try container.encode(self.kind, forKey: .kind)
                    try container.encodeIfPresent(self.next, forKey: .next)
                    var others = encoder.container(keyedBy: ExtraPropertyKey.self)
                    for (key, value) in self.additionalProperties {
                        try others.encode(value, forKey: ExtraPropertyKey(key))
                    }
                }
            }
            """#
        let actual = try await generate(Self.compositionSnippet, file: "Models.swift", declaration: "Node")
        #expect(actual == expected)
    }
}

@Suite("Real-world schema spellings")
struct RealWorldSpellingTests {
    /// OpenAPI 3.1 documents write `type: [string, null]` with a YAML null as often as with `'null'`.
    @Test func aTypeListWithAYAMLNullIsOptional() async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let spec = work.appendingPathComponent("spec.yaml")
        try (SnippetTests.header + """
                Payload:
                  type: object
                  required: [tags, name]
                  properties:
                    tags: {type: [array, null], items: {type: [string, null]}}
                    name: {type: [string, 'null']}

            """).write(to: spec, atomically: true, encoding: .utf8)
        let config = try TestSupport.writeConfig(in: work, spec: spec)
        let output = work.appendingPathComponent("out")
        let result = try await TestSupport.channelgen(["generate", "--config", config.path, "--output", output.path, "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        let models = try TestSupport.contents(output.appendingPathComponent("Models.swift"))
        #expect(models.contains("public var tags: [String?]?"))  // items that may be null too (issue 46)
        #expect(models.contains("public var name: String?"))
    }
}

/// The compile guarantee rests on one place doing all escaping: the structure stage builds values,
/// and only `TextRenderer` turns spec text into Swift text.
@Suite("One renderer")
struct OneRendererTests {
    @Test func noStageButTheRendererEscapesOrQuotesSpecText() throws {
        let structure = TestSupport.packageRoot.appendingPathComponent("Sources/ChannelCodegen/Structure")
        let files = try FileManager.default.contentsOfDirectory(atPath: structure.path).filter { $0.hasSuffix(".swift") }
        #expect(files.count >= 8)
        for file in files {
            let text = try TestSupport.contents(structure.appendingPathComponent(file))
            for helper in ["swiftLiteral", "escaped(", "SwiftWriter", "Code(stringLiteral: name.description", "Code(stringLiteral: String"] {
                #expect(!text.contains(helper), "\(file) uses \(helper)")
            }
        }
        let renderer = try TestSupport.contents(TestSupport.packageRoot.appendingPathComponent("Sources/ChannelCodegen/Render/TextRenderer.swift"))
        #expect(renderer.contains("SwiftIdentifiers.isKeyword"))
    }
}
