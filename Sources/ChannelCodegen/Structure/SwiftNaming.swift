import ChannelSpec

/// Swift names for everything in a `ChannelAPI`, decided once before any declaration is built.
///
/// The rule (DESIGN §4): names come from the spec through `SwiftIdentifiers`; where the mapping
/// makes two names collide (case folding, dropped characters, keywords, or a name the generator
/// itself declares in that scope such as `CodingKeys`, `unknown`, `init`), the later one gets the
/// first free numeric suffix (`name2`, `name3`, …) and a warning names both places. `x-swift-name`
/// values are claimed before derived names, so they keep their spelling; only two explicit names
/// that clash are an error.
struct SwiftNaming {
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

    var notifier: Identifier
    var notifierProtocol: Identifier
    var channelsNamespace = Identifier("Channels")
    var mockType: Identifier
    var types: [String: TypeName] = [:]
    /// Type id → Swift names of its properties, in order.
    var properties: [String: [Identifier]] = [:]
    /// Type id → Swift case names of its values, in order.
    var cases: [String: [Identifier]] = [:]
    /// Which properties are stored boxed and which unions are `indirect` (types that contain themselves).
    let recursion: Recursion
    /// Type id → property index → the stored property holding a boxed property's value.
    var boxStorage: [String: [Int: Identifier]] = [:]
    /// Type id → the parts a wide object keeps its properties in (see `WideObjects`).
    var wideParts: [String: [WidePart]] = [:]
    /// Channel key → constant in `Channels`, subscription type, and parameter names in order (keys by
    /// Unicode scalars, as every spec name).
    var channelConstants: ExactKeyDictionary<Identifier> = [:]
    var subscriptions: ExactKeyDictionary<Identifier> = [:]
    var parameters: ExactKeyDictionary<[Identifier]> = [:]
    /// Operation id → notifier method, and the mock's broadcaster (`devicePresenceValues` → `devicePresence`).
    var methods: ExactKeyDictionary<Identifier> = [:]
    var mockProperties: ExactKeyDictionary<Identifier> = [:]
    /// Every channel parameter in first-use order; the notifier holds their values.
    var notifierParameters: [NotifierParameter] = []
    /// Every type name the generated module declares, at any depth: standard-library, Foundation
    /// and runtime types with one of these names are written module-qualified (`Swift.String`).
    private(set) var declaredTypeNames: Set<String> = []

    private(set) var diagnostics = Diagnostics()

    /// Top-level names the generated code relies on: modules it qualifies with, the subscription's
    /// `Event` (a spec type of that name could not be named inside a subscription).
    static let reservedTopLevel: [(String, String)] = [
        ("Swift", "the standard library's module name"), ("Foundation", "the Foundation module's name"),
        ("ChannelRuntime", "the runtime module's name"), ("Event", "each subscription's payload type alias"),
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

    init(api: ChannelAPI, config: GeneratorConfig) {
        var diagnostics = Diagnostics()
        var overrides: ExactKeyDictionary<String> = [:]
        for override in config.nameOverrides { overrides[override.specName] = override.swiftName }
        let api = Self.applying(overrides, to: api)
        Self.warnAboutUnusedOverrides(config.nameOverrides, in: api, into: &diagnostics)
        recursion = Recursion(api: api)
        let rootLocation = api.channels.first?.origin.location
            ?? api.types.first?.origin.location ?? SourceLocation(file: api.files.first ?? "", line: 1, column: 1)
        let notifierName = config.notifierName.map(Self.typeName) ?? api.notifierName.map(Self.typeName)
            ?? SwiftIdentifiers.upperCamel(api.title) + "Notifier"
        var topLevel = Scope(what: "type")
        topLevel.reserve(channelsNamespace.name, "the channel constants")
        for (name, description) in Self.reservedTopLevel { topLevel.reserve(name, description) }
        for (module, names) in Self.standardTypeNames {
            for name in names { topLevel.reserve(name, "\(module)'s '\(name)', which the app's own code in this module would no longer see") }
        }
        // Not the client module's name: the mocks must name every type as the client run did, and
        // that run does not know it. A type named like its module still compiles in the mocks,
        // which refer to it unqualified.
        let notifierCandidate = Scope.Candidate(notifierName, explicit: false, location: rootLocation, what: "notifier type")
        notifier = Identifier(topLevel.claim([notifierCandidate], &diagnostics)[0])
        notifierProtocol = Identifier(notifier.name + "Protocol")
        mockType = Identifier("Mock" + notifier.name)
        topLevel.reserve(notifierProtocol.name, "the notifier protocol")
        topLevel.reserve(mockType.name, "the mock notifier")

        // Subscriptions first: a channel's API keeps its name when a schema happens to share it.
        let subscriptionNames = topLevel.claim(api.channels.map { channel in
            .init(SwiftIdentifiers.upperCamel(channel.swiftName ?? channel.key) + "Subscription",
                  explicit: channel.swiftName != nil, location: channel.origin.location, what: "subscription type")
        }, &diagnostics)
        for (channel, name) in zip(api.channels, subscriptionNames) { subscriptions[channel.key] = Identifier(name) }

        // Types, scope by scope: top-level types share one scope, each object's nested types another.
        let topLevelTypes = api.types.filter { $0.parent == nil }
        for (type, name) in zip(topLevelTypes, topLevel.claim(topLevelTypes.map(Self.candidate), &diagnostics)) {
            types[type.id] = TypeName(local: Identifier(name), path: [Identifier(name)])
        }
        // Members first: a nested type must not take a property's name (`日付`, `_1abc` read the same
        // in both cases, and a property and a type of one name are ambiguous). Each type's members are
        // a scope of their own, so a large API names them on all cores; the results are kept in order.
        let boxed = recursion.boxedProperties
        let memberNames: @Sendable (NamedType) -> MemberNames = { Self.memberNames(of: $0, boxed: boxed[$0.id]) }
        let allMemberNames = Generator.isLarge(api) ? api.types.concurrentMap(memberNames) : api.types.map(memberNames)
        var partStorage: [String: [Identifier]] = [:]
        for (type, names) in zip(api.types, allMemberNames) {
            if let names = names.properties { properties[type.id] = names }
            if let storage = names.boxStorage { boxStorage[type.id] = storage }
            if let storage = names.partStorage { partStorage[type.id] = storage }
            if let names = names.cases { cases[type.id] = names }
            diagnostics.append(contentsOf: names.diagnostics.all)
        }

        // A nested type never shadows a type visible where it is declared, so a path from the top
        // level (`Outer.Inner`) always means what it says. Parents come before their children in
        // `api.types`, so each parent is named when its children are.
        let children = Dictionary(grouping: api.types.filter { $0.parent != nil }, by: { $0.parent! })
        // The names visible inside a type: the top level's, then each enclosing type's nested names.
        var visibleInside: [String: [Set<String>]] = [:]
        // The standard types reserved above are not declared here: a nested type may take their
        // names (`Payload.String`), which the generated code qualifies (`Swift.String`).
        let topLevelNames = [topLevel.names.subtracting(Self.standardTypeNames.flatMap(\.names))]
        for type in api.types {
            guard let parent = types[type.id] else { continue }
            let visible = visibleInside[type.id] ?? topLevelNames
            let nested = children[type.id] ?? []
            let parts = partStorage[type.id] ?? []
            guard !nested.isEmpty || !parts.isEmpty else { continue }
            var scope = Scope(what: "nested type", visible: visible, visibleDescription: "a type visible in '\(parent.local.name)'")
            scope.reserve(parent.local.name, "its enclosing type")
            for property in properties[type.id] ?? [] { scope.reserve(property.name, "a property of '\(parent.local.name)'") }
            if case .union = type.kind {
                for name in cases[type.id] ?? [] { scope.reserve(name.name, "a case of '\(parent.local.name)'") }
            }
            scope.reserve("CodingKeys", "the coding keys the generator declares")
            let names = scope.claim(nested.map(Self.candidate), &diagnostics)
            // A wide object's part types, after the spec's nested types: they never shadow a name
            // its properties' types are written with.
            let partTypes = scope.claim(parts.indices.map { index in
                .init("Part\(index)", explicit: false, location: type.origin.location, isInternal: true)
            }, &diagnostics)
            if !parts.isEmpty {
                wideParts[type.id] = zip(zip(parts, partTypes), WideObjects.partRanges(propertyCount: properties[type.id]?.count ?? 0)).map {
                    WidePart(storage: $0.0, type: Identifier($0.1), properties: $1)
                }
            }
            let siblings = Set(names + partTypes)
            for (child, name) in zip(nested, names) {
                types[child.id] = TypeName(local: Identifier(name), path: parent.path + [Identifier(name)])
                visibleInside[child.id] = visible + [siblings]
            }
        }
        declaredTypeNames = Set(types.values.map(\.local.name) + subscriptionNames + [
            notifier.name, notifierProtocol.name, mockType.name, channelsNamespace.name, "CodingKeys",
        ])

        var constants = Scope(what: "channel constant")
        constants.reserve("all", "the list of every channel")
        let constantNames = constants.claim(api.channels.map { channel in
            .init(SwiftIdentifiers.lowerCamel(channel.swiftName ?? channel.key), explicit: channel.swiftName != nil,
                  location: channel.origin.location, original: channel.swiftName ?? channel.key)
        }, &diagnostics)
        for (channel, name) in zip(api.channels, constantNames) {
            channelConstants[channel.key] = Identifier(name)
            var scope = Scope(what: "channel parameter")
            for member in ["template", "eventType", "parameters", "channel"] {
                scope.reserve(member, "a member of every subscription")
            }
            parameters[channel.key] = scope.claim(channel.parameters.map { parameter in
                .init(SwiftIdentifiers.lowerCamel(parameter.swiftName ?? parameter.name), explicit: parameter.swiftName != nil,
                      location: parameter.origin.location, original: parameter.swiftName ?? parameter.name)
            }, &diagnostics).map(Identifier.init)
        }

        // The notifier: one setter per distinct parameter, one method per receive operation.
        // By Swift's `String ==`, as the runtime keys parameter values: `été` written two ways is one parameter.
        var seen: [String: SourceLocation] = [:]
        var distinct: [ChannelParameter] = []
        for channel in api.channels {
            for parameter in channel.parameters where seen[parameter.name] == nil {
                seen[parameter.name] = parameter.origin.location
                distinct.append(parameter)
            }
        }
        var methodScope = Scope(what: "notifier method")
        methodScope.reserve("source", "the notifier's event source")
        methodScope.reserve("values", "the notifier's stream of one channel instance")
        methodScope.reserve("envelopes", "the notifier's stream of envelopes")
        methodScope.reserve("connectionStates", "the notifier's stream of connection states")
        // `updates(_:)` and the mock's `send(_:)` overload an operation's method of that name (other
        // parameters); `flush()` and `reset()` would clash with one.
        for name in ["flush", "reset"] { methodScope.reserve(name, "a method of the generated mock") }
        // Method bodies name subscription types in expressions (`XSubscription.self`).
        for name in subscriptionNames { methodScope.reserve(name, "a subscription type") }
        let setterNames = methodScope.claim(distinct.map { parameter in
            .init("set" + SwiftIdentifiers.upperCamel(parameter.swiftName ?? parameter.name), explicit: false, location: parameter.origin.location,
                  original: parameter.swiftName ?? parameter.name, what: "parameter setter")
        }, &diagnostics)
        let methodNames = methodScope.claim(api.operations.map { operation in
            .init(SwiftIdentifiers.lowerCamel(operation.swiftName ?? operation.id), explicit: operation.swiftName != nil,
                  location: operation.origin.location, original: operation.swiftName ?? operation.id)
        }, &diagnostics)
        for (operation, name) in zip(api.operations, methodNames) { methods[operation.id] = Identifier(name) }
        // Publish methods: named by their operation as written (`sendChatMessage`).
        let publishNames = methodScope.claim(api.sends.map { operation in
            .init(SwiftIdentifiers.lowerCamel(operation.swiftName ?? operation.id), explicit: operation.swiftName != nil,
                  location: operation.origin.location, original: operation.swiftName ?? operation.id, what: "publish method")
        }, &diagnostics)
        for (operation, name) in zip(api.sends, publishNames) { methods[operation.id] = Identifier(name) }

        var mockScope = Scope(what: "mock property")
        mockScope.reserve("broadcaster", "the mock's broadcaster lookup")
        mockScope.reserve("delivery", "the mock's delivery mode")
        mockScope.reserve("connection", "the mock's connection state")
        for name in ["flush", "reset", "send", "connectionStates", "updates", "values", "envelopes"] {
            mockScope.reserve(name, "a method of the generated mock")
        }
        let changeNames = mockScope.claim(distinct.map { parameter in
            .init(SwiftIdentifiers.lowerCamel(parameter.swiftName ?? parameter.name) + "Changes", explicit: false, location: parameter.origin.location,
                  original: parameter.swiftName ?? parameter.name, what: "mock parameter record")
        }, &diagnostics)
        let broadcasterNames = mockScope.claim(methodNames.map { name in
            name.hasSuffix("Values") && name.count > 6 ? String(name.dropLast(6)) : name + "Events"
        }.enumerated().map { index, name in
            .init(name, explicit: false, location: api.operations[index].origin.location, original: api.operations[index].id)
        }, &diagnostics)
        for (operation, name) in zip(api.operations, broadcasterNames) { mockProperties[operation.id] = Identifier(name) }
        let publishedNames = mockScope.claim(publishNames.enumerated().map { index, name in
            .init(name + "Published", explicit: false, location: api.sends[index].origin.location, original: api.sends[index].id,
                  what: "mock publish record")
        }, &diagnostics)
        for (operation, name) in zip(api.sends, publishedNames) { mockProperties[operation.id] = Identifier(name) }
        for (index, parameter) in distinct.enumerated() {
            notifierParameters.append(NotifierParameter(
                name: parameter.name, swiftName: Identifier(SwiftIdentifiers.lowerCamel(parameter.swiftName ?? parameter.name)),
                setter: Identifier(setterNames[index]), mockChanges: Identifier(changeNames[index]),
                location: parameter.origin.location))
        }
        self.diagnostics = diagnostics
    }

    /// The IR with `names:` applied as `x-swift-name`s where the spec gives none (enum values,
    /// union variants and channel parameters, which have no `x-swift-name`, take the override alone).
    /// A member is matched as `Type.member` first (the type as the spec names it), then by its name
    /// alone, which matches that name in every type.
    private static func applying(_ overrides: ExactKeyDictionary<String>, to api: ChannelAPI) -> ChannelAPI {
        guard overrides.count > 0 else { return api }
        var api = api
        for index in api.channels.indices {
            if api.channels[index].swiftName == nil { api.channels[index].swiftName = overrides[api.channels[index].key] }
            for parameter in api.channels[index].parameters.indices {
                api.channels[index].parameters[parameter].swiftName = overrides[api.channels[index].parameters[parameter].name]
            }
        }
        for index in api.operations.indices where api.operations[index].swiftName == nil {
            api.operations[index].swiftName = overrides[api.operations[index].id]
        }
        for index in api.sends.indices where api.sends[index].swiftName == nil {
            api.sends[index].swiftName = overrides[api.sends[index].id]
        }
        for index in api.types.indices {
            if api.types[index].swiftName == nil { api.types[index].swiftName = overrides[api.types[index].preferredName] }
            let typeName = api.types[index].preferredName
            func override(_ member: String) -> String? { overrides[typeName + "." + member] ?? overrides[member] }
            switch api.types[index].kind {
            case .object(var properties):
                for member in properties.indices where properties[member].swiftName == nil {
                    properties[member].swiftName = override(properties[member].jsonName)
                }
                api.types[index].kind = .object(properties)
            case .composition(var members):
                for member in members.indices where members[member].swiftName == nil {
                    members[member].swiftName = override(members[member].jsonName)
                }
                api.types[index].kind = .composition(members)
            case .stringEnum(var values):
                for value in values.indices { values[value].swiftName = override(values[value].value) }
                api.types[index].kind = .stringEnum(values)
            case .union(var union):
                for variant in union.variants.indices { union.variants[variant].swiftName = override(union.variants[variant].preferredName) }
                api.types[index].kind = .union(union)
            }
        }
        return api
    }

    /// A `names:` entry that matches no name of the spec is a typo, not a silent no-op.
    private static func warnAboutUnusedOverrides(_ overrides: [GeneratorConfig.NameOverride], in api: ChannelAPI, into diagnostics: inout Diagnostics) {
        guard !overrides.isEmpty else { return }
        var names: Set<String> = []
        func add(_ name: String) { names.insert(exactKey(name)) }
        for channel in api.channels {
            add(channel.key)
            channel.parameters.forEach { add($0.name) }
        }
        (api.operations + api.sends).forEach { add($0.id) }
        for type in api.types {
            add(type.preferredName)
            let members: [String]
            switch type.kind {
            case .object(let properties), .composition(let properties): members = properties.map(\.jsonName)
            case .stringEnum(let values): members = values.map(\.value)
            case .union(let union): members = union.variants.map(\.preferredName)
            }
            for member in members {
                add(member)
                add(type.preferredName + "." + member)
            }
        }
        for override in overrides where !names.contains(exactKey(override.specName)) {
            diagnostics.warning(
                "'\(override.specName)' in 'names' matches no channel, parameter, operation, type, property, enum value or variant of the spec, "
                    + "nor a 'Type.member'; it is ignored",
                at: override.location)
        }
    }

    /// The Swift names of one type's members: properties (and boxed storage), enum or union cases.
    struct MemberNames: Sendable {
        var properties: [Identifier]?
        var boxStorage: [Int: Identifier]?
        /// A wide object's stored parts (see `WideObjects`).
        var partStorage: [Identifier]?
        var cases: [Identifier]?
        var diagnostics = Diagnostics()
    }

    private static func memberNames(of type: NamedType, boxed: Set<Int>?) -> MemberNames {
        var result = MemberNames()
        switch type.kind {
        case .object(let members), .composition(let members):
            var scope = Scope(what: "property")
            scope.reserve("hashValue", "Hashable's hash value")
            if type.extraProperties != nil { scope.reserve("additionalProperties", "the properties the schema does not name") }
            let names = scope.claim(members.map { member in
                .init(SwiftIdentifiers.lowerCamel(member.swiftName ?? member.jsonName), explicit: member.swiftName != nil,
                      location: member.origin.location, original: member.swiftName ?? member.jsonName)
            }, &result.diagnostics)
            result.properties = names.map(Identifier.init)
            if let boxed = boxed?.sorted() {
                let storage = scope.claim(boxed.map { index in
                    .init("_" + names[index], explicit: false, location: members[index].origin.location,
                          original: members[index].jsonName, what: "boxed property storage")
                }, &result.diagnostics)
                result.boxStorage = Dictionary(uniqueKeysWithValues: zip(boxed, storage.map(Identifier.init)))
            }
            if WideObjects.isWide(type, boxed: boxed) {
                result.partStorage = scope.claim(WideObjects.partRanges(propertyCount: members.count).indices.map { index in
                    .init("part\(index)", explicit: false, location: type.origin.location, isInternal: true)
                }, &result.diagnostics).map(Identifier.init)
            }
        case .stringEnum(let values):
            var scope = Scope(what: "enum case", hint: "the value on the wire is unchanged")
            scope.reserve("unknown", "the case for values this client does not know")
            for name in ["knownCases", "byRawValue", "rawValue", "hashValue"] { scope.reserve(name, "a member the generator declares") }
            result.cases = scope.claim(values.map { value in
                .init(SwiftIdentifiers.lowerCamel(value.swiftName ?? value.value), explicit: value.swiftName != nil,
                      location: value.location, original: value.swiftName ?? value.value)
            }, &result.diagnostics).map(Identifier.init)
        case .union(let union):
            var scope = Scope(what: "union case")
            scope.reserve("unknown", "the case for variants this client does not know")
            scope.reserve("hashValue", "Hashable's hash value")
            result.cases = scope.claim(union.variants.map { variant in
                .init(SwiftIdentifiers.lowerCamel(variant.swiftName ?? variant.preferredName), explicit: variant.swiftName != nil,
                      location: variant.origin.location, original: variant.swiftName ?? variant.preferredName)
            }, &result.diagnostics).map(Identifier.init)
        }
        return result
    }

    private static func candidate(_ type: NamedType) -> Scope.Candidate {
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

/// The names taken in one Swift scope.
struct Scope {
    struct Candidate {
        var name: String
        var isExplicit: Bool
        var location: SourceLocation
        /// How the spec spells it, for messages.
        var original: String
        var what: String?
        /// A name the generator makes up for itself (a wide object's parts) is renamed without a
        /// warning: there is nothing for the user to choose.
        var isInternal = false

        init(_ name: String, explicit: Bool, location: SourceLocation, original: String? = nil, what: String? = nil, isInternal: Bool = false) {
            self.name = name
            self.isExplicit = explicit
            self.location = location
            self.original = original ?? name
            self.what = what
            self.isInternal = isInternal
        }
    }

    private struct Owner {
        var location: SourceLocation?
        var description: String
        var isExplicit: Bool
    }

    let what: String
    /// How the user can choose the name, ending each rename warning.
    let hint: String
    private var taken: [String: Owner] = [:]
    /// Names declared in enclosing scopes that this scope's names must not shadow.
    private let visible: [Set<String>]
    private let visibleDescription: String

    init(what: String, hint: String = "set x-swift-name to choose", visible: [Set<String>] = [], visibleDescription: String = "") {
        self.what = what
        self.hint = hint
        self.visible = visible
        self.visibleDescription = visibleDescription
    }

    /// Who holds `name` here, if anyone.
    private func owner(of name: String) -> Owner? {
        if let owner = taken[name] { return owner }
        if visible.contains(where: { $0.contains(name) }) {
            return Owner(location: nil, description: visibleDescription, isExplicit: false)
        }
        return nil
    }

    /// Every name taken or reserved.
    var names: Set<String> { Set(taken.keys) }

    mutating func reserve(_ name: String, _ description: String) {
        taken[name] = Owner(location: nil, description: description, isExplicit: false)
    }

    /// Claims every candidate, explicit names first; returns the final names in candidate order.
    mutating func claim(_ candidates: [Candidate], _ diagnostics: inout Diagnostics) -> [String] {
        var result = [String](repeating: "", count: candidates.count)
        // Room for them all at once: growing the table as they come rehashed it a dozen times.
        taken.reserveCapacity(taken.count + candidates.count)
        for pass in [true, false] {
            for (index, candidate) in candidates.enumerated() where candidate.isExplicit == pass {
                result[index] = claim(candidate, &diagnostics)
            }
        }
        return result
    }

    private mutating func claim(_ candidate: Candidate, _ diagnostics: inout Diagnostics) -> String {
        let what = candidate.what ?? self.what
        guard let holder = owner(of: candidate.name) else {
            taken[candidate.name] = Owner(location: candidate.location, description: "", isExplicit: candidate.isExplicit)
            return candidate.name
        }
        let other = holder.location.map { "the \(what) at \($0)" } ?? holder.description
        if candidate.isExplicit && holder.isExplicit {
            diagnostics.error("x-swift-name '\(candidate.name)' is used twice in one scope; the other is \(other)", at: candidate.location)
            if let location = holder.location { diagnostics.append(.note("'\(candidate.name)' is also declared here", at: location)) }
            return candidate.name
        }
        var suffix = 2
        while owner(of: "\(candidate.name)\(suffix)") != nil { suffix += 1 }
        let unique = "\(candidate.name)\(suffix)"
        taken[unique] = Owner(location: candidate.location, description: "", isExplicit: candidate.isExplicit)
        if candidate.isInternal { return unique }
        diagnostics.warning(
            "\(what) '\(candidate.original)' is named '\(unique)' in Swift: '\(candidate.name)' is taken by \(other) (\(hint))",
            at: candidate.location)
        return unique
    }
}
