import ChannelSpec

/// Swift names for everything in a `ChannelAPI`, decided once before any declaration is built.
///
/// The rule (DESIGN §4): names come from the spec through `SwiftIdentifiers`; where the mapping
/// makes two names collide (case folding, dropped characters, keywords, or a name the generator
/// itself declares in that scope such as `CodingKeys`, `unknown`, `init`), the later one gets the
/// first free numeric suffix (`name2`, `name3`, …) and a warning names both places. `x-swift-name`
/// values are claimed before derived names, so they keep their spelling; only two explicit names
/// that clash are an error.
struct SwiftNaming: Sendable {
    struct TypeName {
        /// The name in its own scope, e.g. `LicensePhase`.
        var local: Identifier
        /// The path from the top level, e.g. `[LicenseStateOutput, LicensePhase]`.
        var path: [Identifier]
    }

    struct NotifierParameter {
        /// The spec's parameter name (`userId`), the key in the event source.
        var name: String
        /// The Swift name (`userId`), also the setter's argument.
        var swiftName: Identifier
        var setter: Identifier
        /// The mock's record of values set (`userIdChanges`).
        var mockChanges: Identifier
        var location: SourceLocation
    }

    /// A channel with its names: its constant in `Channels`, its subscription type, its parameters in order.
    struct NamedChannel: Sendable {
        var channel: Channel
        var constant: Identifier
        var subscription: Identifier
        var parameters: [Identifier]
    }

    /// An operation with its channel and names: the notifier's method, the mock's record of it.
    struct NamedOperation: Sendable {
        var operation: ChannelOperation
        var channel: NamedChannel
        var method: Identifier
        var mockProperty: Identifier
    }

    /// A type to declare with its name and the types nested in it.
    struct TypeDeclarationNames: Sendable {
        var type: NamedType
        var name: TypeName
        var nested: [TypeDeclarationNames]
    }

    /// Which properties are stored boxed and which unions are `indirect` (types that contain themselves).
    let recursion: Recursion
    /// The passes, in the order they ran; each read the ones before it.
    let topLevel: TopLevelNames
    let members: MemberNaming
    let typeNames: TypeNaming
    let channelNames: ChannelNaming
    private(set) var diagnostics = Diagnostics()

    var notifier: Identifier { topLevel.notifier }
    var notifierProtocol: Identifier { topLevel.notifierProtocol }
    var channelsNamespace: Identifier { topLevel.channelsNamespace }
    var mockType: Identifier { topLevel.mockType }
    var types: [String: TypeName] { typeNames.types }
    /// Type id → Swift names of its properties, in order.
    var properties: [String: [Identifier]] { members.properties }
    /// Type id → Swift case names of its values, in order.
    var cases: [String: [Identifier]] { members.cases }
    /// Type id → property index → the stored property holding a boxed property's value.
    var boxStorage: [String: [Int: Identifier]] { members.boxStorage }
    /// Type id → the parts a wide object keeps its properties in (see `WideObjects`).
    var wideParts: [String: [WidePart]] { typeNames.wideParts }
    /// Every type name the generated module declares, at any depth: standard-library, Foundation
    /// and runtime types with one of these names are written module-qualified (`Swift.String`).
    var declaredTypeNames: Set<String> { typeNames.declaredTypeNames }
    /// Every channel parameter in first-use order; the notifier holds their values.
    var notifierParameters: [NotifierParameter] { channelNames.notifierParameters }

    /// Top-level names the generated code relies on: modules it qualifies with, the subscription's
    /// `Event` (a spec type of that name could not be named inside a subscription).
    static let reservedTopLevel: [(String, String)] = [
        ("Swift", "the standard library's module name"), ("Foundation", "the Foundation module's name"),
        ("ChannelRuntime", "the runtime module's name"), ("ChannelRuntimeTesting", "the mocks' support module's name"),
        ("Event", "each subscription's payload type alias"),
        ("CodingKeys", "the coding keys declared inside structs"),
        ("ExtraPropertyKey", "the coding key of properties a schema does not name"),
        ("Indirect", "the box that lets a type contain itself"),
        ("InPlaceDecoding", "the guard against an allOf that contains itself"), ("_Concurrency", "the concurrency module's name"),
    ]
    /// Types an app's own code names, by module: generated files go into the app's module, so a
    /// top-level type of one of these names would shadow it there (`Result<Int, any Error>` beside
    /// a schema named `Result` no longer compiles). A spec type of such a name gets a suffix and a
    /// warning; `x-swift-name` or `names:` chooses another.
    static let standardTypeNames: [(module: String, names: [String])] = [
        ("Swift", [
            "Result", "Error", "Never", "Optional", "Array", "Dictionary", "Set", "String", "Substring", "Character", "Int",
            "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64", "Double", "Float", "Bool", "Void",
            "Codable", "Decodable", "Encodable", "Hashable", "Equatable", "Comparable", "Identifiable", "Sendable", "Sequence",
            "Collection", "Range", "Duration", "Clock", "Task", "TaskGroup", "AsyncStream", "AsyncSequence", "Actor", "MainActor",
            "CustomStringConvertible",
        ]),
        ("Foundation", [
            "Data", "Date", "URL", "UUID", "Decimal", "Locale", "TimeZone", "Calendar", "Notification", "NotificationCenter",
            "JSONDecoder", "JSONEncoder", "URLSession", "URLRequest", "DateFormatter", "Bundle", "FileManager", "Measurement",
            "Timer", "ProcessInfo",
        ]),
        ("ChannelRuntime", [
            "JSONValue", "ChannelEventHub", "ChannelUpdate", "ChannelUpdates", "ChannelEnvelope", "SubscriptionStatus",
            "ConnectionState", "ServiceError", "ChannelEndpoint", "ChannelAuthorization", "SwitchableConnection",
        ]),
    ]

    /// Type names that mean something else after a `.` (`Outer.Type` is a metatype) or cannot be declared.
    static let reservedTypeNames = ["Type", "Protocol", "Self", "Any"]

    /// Runs the passes top to bottom: `names:` applied, the top-level scope, each type's members,
    /// nested types, then channels and operations.
    init(api: ChannelAPI, config: GeneratorConfig) {
        var diagnostics = Diagnostics()
        var overrides: ExactKeyDictionary<String> = [:]
        for override in config.nameOverrides { overrides[override.specName] = override.swiftName }
        let api = NameOverrides.applying(overrides, to: api)
        NameOverrides.warnAboutUnused(config.nameOverrides, in: api, into: &diagnostics)
        recursion = Recursion(api: api)
        topLevel = TopLevelNames(api: api, config: config, diagnostics: &diagnostics)
        members = MemberNaming(api: api, recursion: recursion, diagnostics: &diagnostics)
        typeNames = TypeNaming(api: api, topLevel: topLevel, members: members, diagnostics: &diagnostics)
        channelNames = ChannelNaming(api: api, topLevel: topLevel, diagnostics: &diagnostics)
        self.diagnostics = diagnostics
    }

    static func candidate(_ type: NamedType) -> Scope.Candidate {
        .init(typeName(type.swiftName ?? type.preferredName), explicit: type.swiftName != nil,
              location: type.origin.location, original: type.swiftName ?? type.preferredName)
    }

    /// UpperCamel, with `Value` appended to names that mean something else after a `.`
    /// (`Outer.Type` is a metatype) or are keywords (`Self`, `Any`): a `type` property's enum is `TypeValue`.
    static func typeName(_ name: String) -> String {
        let type = SwiftIdentifiers.upperCamel(name)
        return reservedTypeNames.contains(type) ? type + "Value" : type
    }

    /// The type written from the top level (`Outer.Inner`).
    func qualifiedName(ofType id: String) -> Code {
        guard let path = types[id]?.path else { return "Never" }
        return Code.joined(path.map(Code.identifier), separator: ".")
    }
}
