import ChannelNaming

/// The language-neutral result of validation: what the spec means, with every element's
/// origin kept so later stages (naming, rendering) can report problems at the YAML line.
package struct ChannelAPI: Sendable {
    package var title: String
    package var version: String
    package var description: String?
    /// Notifier type name from `info.x-swift-notifier`, when the spec sets one.
    package var notifierName: String?
    package var channels: [Channel]
    /// The `receive` operations: one stream method each.
    package var operations: [ChannelOperation]
    /// The `send` operations: one publish method each.
    package var sends: [ChannelOperation] = []
    /// Named types (component schemas and inline objects/enums that need a name), in first-use order.
    package var types: [NamedType]
    /// Every spec file read (the root first).
    package var files: [String]
    /// The channel rules of the transport the client targets: parameter values are checked by them.
    package var channelRules: ChannelNamingRules = .appSyncEvents

    /// The title and version, as doc comments name the API (`Vortex 1.0.0`).
    package var displayName: String { version.isEmpty ? title : "\(title) \(version)" }

    /// Each receive operation with the channel it reads.
    package var receivers: [(operation: ChannelOperation, channel: Channel)] { withChannels(operations) }

    /// Each send operation with the channel it publishes to.
    package var publishers: [(operation: ChannelOperation, channel: Channel)] { withChannels(sends) }

    private func withChannels(_ operations: [ChannelOperation]) -> [(operation: ChannelOperation, channel: Channel)] {
        var byKey: ExactKeyDictionary<Channel> = [:]
        for channel in channels where byKey[channel.key] == nil { byKey[channel.key] = channel }
        return operations.compactMap { operation in byKey[operation.channelKey].map { (operation, $0) } }
    }
}

/// Where an IR element came from: its YAML location and a spec reference for doc comments.
package struct Origin: Sendable, Hashable {
    package var location: SourceLocation
    /// e.g. `#/channels/devicePresence` or `openapi-schemas.yaml#/components/schemas/X`.
    package var reference: String

    package init(location: SourceLocation, reference: String) {
        self.location = location
        self.reference = reference
    }
}

/// Text for a doc comment.
package struct Documentation: Sendable, Hashable {
    package var summary: String?
    package var description: String?
    /// Constraints and notes that are documented but not enforced, e.g. "Minimum: -1".
    package var notes: [String] = []
    package var isDeprecated = false

    package init(summary: String? = nil, description: String? = nil, notes: [String] = []) {
        self.summary = summary
        self.description = description
        self.notes = notes
    }
}

package struct Channel: Sendable {
    /// The key under `channels:`.
    package var key: String
    package var swiftName: String?
    package var address: ChannelAddressTemplate
    package var parameters: [ChannelParameter]
    package var message: Message
    package var documentation: Documentation
    package var origin: Origin
    /// Set when other channels have the same address: how this one's events are told from theirs.
    package var sharedAddress: SharedAddress? = nil
    /// `x-request-stream: true`: each instance is its own stream (an HTTP path requested on its
    /// own over Server-Sent Events), whose events name their message.
    package var isOwnStream = false
    /// The names of the messages marked `x-ends-stream` (own streams only), sorted.
    package var finalEventNames: [String] = []
    /// The names of the messages marked `x-stream-error` (own streams only), sorted.
    package var errorEventNames: [String] = []
}

/// Channels on one address, told apart by a top-level string property whose value names the
/// message: a channel skips the events whose value names only other channels' messages.
package struct SharedAddress: Sendable, Hashable {
    package var property: String
    /// Values naming other channels' messages and none of this channel's, sorted.
    package var otherChannelsValues: [String]
}

/// A channel address such as `vortex-app/user/{userId}/device/presenceChanged`.
package struct ChannelAddressTemplate: Sendable, Hashable {
    package enum Part: Sendable, Hashable {
        case literal(String)
        case parameter(String)
    }

    package var text: String
    /// Segments split on `/`, each a run of literal text and parameters.
    package var segments: [[Part]]
    /// The spec leaves the address open (AsyncAPI 3: absent or `null`, known only at runtime): each
    /// subscription is made with its whole channel path.
    package var isOpen = false

    /// A channel whose address the spec leaves open.
    package static let open = ChannelAddressTemplate(text: "", segments: [], isOpen: true)

    /// The address as messages and documentation show it.
    package var shown: String { isOpen ? "(open: each subscription names its channel)" : text }

    /// The address with each parameter as `{}`: two addresses of one shape name the same paths.
    /// A leading `/` is kept: `/a` and `a` are two topics on Server-Sent Events.
    package var shape: String {
        (text.hasPrefix("/") ? "/" : "") + segments.map { parts in
            parts.map { part -> String in if case .literal(let text) = part { text } else { "{}" } }.joined()
        }.joined(separator: "/")
    }

    package var parameterNames: [String] {
        segments.flatMap { $0 }.compactMap { if case .parameter(let name) = $0 { name } else { nil } }
    }
}

package struct ChannelParameter: Sendable {
    package var name: String
    /// The Swift name `names:` in channelgen.yaml gives it (its labels and the notifier's setter).
    package var swiftName: String? = nil
    package var documentation: Documentation
    package var allowedValues: [String]
    package var origin: Origin
}

package struct Message: Sendable {
    /// The key under the channel's `messages:`.
    package var key: String
    /// The message `name`: the event type the payload announces (e.g. `device/presenceChanged`).
    package var name: String?
    /// Other spellings of `name` a backend may send (`x-event-type-aliases`): declared, so accepted
    /// as this message without a word.
    package var eventTypeAliases: [String] = []
    package var payload: TypeReference
    package var documentation: Documentation
    package var origin: Origin
    /// A `text/*` message: its payload is `.string`, carried as text (not JSON) where the transport
    /// allows it (Server-Sent Events), else as a JSON string (AppSync Events).
    package var isText = false
    /// `x-ends-stream: true`: an event of this message is the stream's last.
    package var endsStream = false
    /// `x-stream-error: true`: an event of this message is the service's in-band error.
    package var isStreamError = false

    /// `name` and its aliases: every event type that announces this message.
    package var eventTypes: [String] { name.map { [$0] + eventTypeAliases } ?? [] }
}

/// A `receive` operation (a stream of the channel's events) or a `send` (a publish to it).
package struct ChannelOperation: Sendable {
    package var id: String
    package var swiftName: String?
    /// Key of the channel in `ChannelAPI.channels`.
    package var channelKey: String
    package var documentation: Documentation
    package var origin: Origin
    /// `action: send`: the app publishes to the channel.
    package var isSend = false
}

/// The type of a value: a primitive, a container, or a reference to a `NamedType`.
package indirect enum TypeReference: Sendable, Hashable {
    case string
    case dateTime
    /// `bits` from `format` (`int32`, `int64`; `nil`: the platform's `Int`); `uint32`/`uint64` are unsigned.
    case integer(bits: Int?, isUnsigned: Bool = false)
    case number(isFloat: Bool)
    case boolean
    case array(TypeReference)
    case dictionary(TypeReference)
    /// An array's item or a map's value that may be `null` (`[String?]`). A property says the same
    /// with `Property.isOptional`, so this wraps nothing else; `SchemaTranslator.elementType` decides it.
    case optional(TypeReference)
    /// A `NamedType` by its `id`.
    case named(String)
    /// Any JSON value: an untyped schema (`{}`), `JSONValue` in Swift.
    case json
}

package struct NamedType: Sendable {
    package enum Kind: Sendable {
        case object([Property])
        case stringEnum([EnumValue])
        /// `oneOf`/`anyOf`: one of several types.
        case union(Union)
        /// `allOf` of types that do not merge into one struct (a union and an object): every member
        /// decodes the whole value. Members are named `value1`, `value2`, … after their position.
        case composition([Property])
    }

    /// Unique key: the schema's file and pointer.
    package var id: String
    /// The name the spec suggests (component key, or derived from the property/message).
    package var preferredName: String
    package var swiftName: String?
    package var kind: Kind
    package var documentation: Documentation
    package var origin: Origin
    /// The `id` of the type this one is nested in (inline schemas), `nil` for top-level types.
    package var parent: String?
    /// For an object: the type of the properties it does not name (`additionalProperties` beside
    /// `properties`), kept by key; `nil` when they are ignored.
    package var extraProperties: TypeReference? = nil
    /// An object with `additionalProperties: false`: a value with a key it does not declare is not
    /// its own, so a union never chooses it for one (decoded alone, such keys are ignored).
    package var rejectsOtherKeys = false
}

/// A value of one of several types (`oneOf`/`anyOf`), told apart by a property or by trying each.
package struct Union: Sendable {
    package enum Decoding: Sendable, Hashable {
        /// By a string property of the (object) value: its value names the variant. An OpenAPI or
        /// AsyncAPI `discriminator`, or a property each variant fixes with `const`.
        case property(String)
        /// By a property some variants fix (`const`, or an enum of one value), each to its own
        /// value: a value one of them fixes chooses it; any other value, or none, is decoded as
        /// `firstThatDecodes` among the variants that fix none.
        case fixedProperty(String)
        /// Each variant in order; of those that decode, the one that declares the most of the
        /// value's keys wins (the first of equals), so a variant that accepts anything does not
        /// take a value another reads whole. A variant that reads every key ends the search.
        case firstThatDecodes
    }

    package var decoding: Decoding
    package var variants: [UnionVariant]
    /// The messages of an own stream: the name the transport gives an event (its `event:` field)
    /// chooses the variant (`UnionVariant.eventName`) before `decoding` is asked.
    package var selectsByEventName = false
}

package struct UnionVariant: Sendable {
    /// The name the spec suggests for the case: the component's key, the title, or the type.
    package var preferredName: String
    package var type: TypeReference
    /// With `.property` decoding, the values that select this variant.
    package var tags: [String]
    package var origin: Origin
    /// The case name `names:` in channelgen.yaml gives it.
    package var swiftName: String? = nil
    /// With `Union.selectsByEventName`, the event name that selects this variant.
    package var eventName: String? = nil
}

package struct Property: Sendable {
    package var jsonName: String
    package var swiftName: String?
    package var type: TypeReference
    /// The one value the schema allows (`const`, or an enum of one string), for telling union variants apart.
    package var constant: String? = nil
    /// Absent from `required`, `nullable: true` or `type: [T, 'null']`: absent and `null` both decode to `nil`.
    package var isOptional: Bool
    /// Required and nullable: `nil` is encoded as `null`, the key kept, as the schema requires it.
    package var encodesNull = false
    package var documentation: Documentation
    package var origin: Origin
}

package struct EnumValue: Sendable {
    package var value: String
    package var location: SourceLocation
    /// The case name `names:` in channelgen.yaml gives it.
    package var swiftName: String? = nil
}

/// Whose side an AsyncAPI document describes. AsyncAPI 3 operations are the described
/// application's: a document of the client says `receive` for what the client gets; a document
/// of the server says `send` for it.
package enum SpecPerspective: String, Sendable, CaseIterable {
    /// The document describes the client: `receive` operations are streams, `send` ones publishes.
    case client
    /// The document describes the server: `send` operations are the client's streams, `receive`
    /// ones its publishes.
    case server
}
