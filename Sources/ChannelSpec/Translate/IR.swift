/// The language-neutral result of validation: what the spec means, with every element's
/// origin kept so later stages (naming, rendering) can report problems at the YAML line.
public struct ChannelAPI: Sendable {
    public var title: String
    public var version: String
    public var description: String?
    /// Notifier type name from `info.x-swift-notifier`, when the spec sets one.
    public var notifierName: String?
    public var channels: [Channel]
    public var operations: [ReceiveOperation]
    /// Named types (component schemas and inline objects/enums that need a name), in first-use order.
    public var types: [NamedType]
    /// Every spec file read (the root first).
    public var files: [String]

    /// Each receive operation with the channel it reads.
    public var receivers: [(operation: ReceiveOperation, channel: Channel)] {
        let byKey = Dictionary(channels.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        return operations.compactMap { operation in byKey[operation.channelKey].map { (operation, $0) } }
    }
}

/// Where an IR element came from: its YAML location and a spec reference for doc comments.
public struct Origin: Sendable, Hashable {
    public var location: SourceLocation
    /// e.g. `#/channels/devicePresence` or `openapi-schemas.yaml#/components/schemas/X`.
    public var reference: String

    public init(location: SourceLocation, reference: String) {
        self.location = location
        self.reference = reference
    }
}

/// Text for a doc comment.
public struct Documentation: Sendable, Hashable {
    public var summary: String?
    public var description: String?
    /// Constraints and notes that are documented but not enforced, e.g. "Minimum: -1".
    public var notes: [String] = []
    public var isDeprecated = false

    public init(summary: String? = nil, description: String? = nil, notes: [String] = []) {
        self.summary = summary
        self.description = description
        self.notes = notes
    }
}

public struct Channel: Sendable {
    /// The key under `channels:`.
    public var key: String
    public var swiftName: String?
    public var address: ChannelAddressTemplate
    public var parameters: [ChannelParameter]
    public var message: Message
    public var documentation: Documentation
    public var origin: Origin
}

/// A channel address such as `vortex-app/user/{userId}/device/presenceChanged`.
public struct ChannelAddressTemplate: Sendable, Hashable {
    public enum Part: Sendable, Hashable {
        case literal(String)
        case parameter(String)
    }

    public var text: String
    /// Segments split on `/`, each a run of literal text and parameters.
    public var segments: [[Part]]

    public var parameterNames: [String] {
        segments.flatMap { $0 }.compactMap { if case .parameter(let name) = $0 { name } else { nil } }
    }
}

public struct ChannelParameter: Sendable {
    public var name: String
    public var documentation: Documentation
    public var allowedValues: [String]
    public var origin: Origin
}

public struct Message: Sendable {
    /// The key under the channel's `messages:`.
    public var key: String
    /// The message `name`: the event type the payload announces (e.g. `device/presenceChanged`).
    public var name: String?
    public var payload: TypeReference
    public var documentation: Documentation
    public var origin: Origin
}

public struct ReceiveOperation: Sendable {
    public var id: String
    public var swiftName: String?
    /// Key of the channel in `ChannelAPI.channels`.
    public var channelKey: String
    public var documentation: Documentation
    public var origin: Origin
}

/// The type of a value: a primitive, a container, or a reference to a `NamedType`.
public indirect enum TypeReference: Sendable, Hashable {
    case string
    case dateTime
    case integer(bits: Int?)
    case number(isFloat: Bool)
    case boolean
    case array(TypeReference)
    case dictionary(TypeReference)
    /// A `NamedType` by its `id`.
    case named(String)
}

public struct NamedType: Sendable {
    public enum Kind: Sendable {
        case object([Property])
        case stringEnum([EnumValue])
    }

    /// Unique key: the schema's file and pointer.
    public var id: String
    /// The name the spec suggests (component key, or derived from the property/message).
    public var preferredName: String
    public var swiftName: String?
    public var kind: Kind
    public var documentation: Documentation
    public var origin: Origin
    /// The `id` of the type this one is nested in (inline schemas), `nil` for top-level types.
    public var parent: String?
}

public struct Property: Sendable {
    public var jsonName: String
    public var swiftName: String?
    public var type: TypeReference
    /// Absent from `required`, `nullable: true` or `type: [T, 'null']`: absent and `null` both decode to `nil`.
    public var isOptional: Bool
    public var documentation: Documentation
    public var origin: Origin
}

public struct EnumValue: Sendable {
    public var value: String
    public var location: SourceLocation
}
