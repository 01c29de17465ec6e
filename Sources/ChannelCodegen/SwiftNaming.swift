import ChannelSpec

/// Swift names for everything in a `ChannelAPI`, decided once before rendering. Two spec
/// names that map to one Swift identifier in the same scope are an error at both locations.
struct SwiftNaming {
    struct TypeName {
        /// The name in its own scope, e.g. `LicensePhase`.
        var local: String
        /// The name from the top level, e.g. `LicenseStateOutput.LicensePhase`.
        var qualified: String
    }

    var notifier: String
    var notifierProtocol: String
    var channelsNamespace = "Channels"
    var types: [String: TypeName] = [:]
    /// Type id → Swift names of its properties, in order.
    var properties: [String: [String]] = [:]
    /// Type id → Swift case names of its values, in order.
    var cases: [String: [String]] = [:]
    /// Channel key → constant name in `Channels`, and subscription type name.
    var channelConstants: [String: String] = [:]
    var subscriptions: [String: String] = [:]
    /// Channel key → Swift names of its parameters, in order.
    var parameters: [String: [String]] = [:]
    /// Operation id → notifier method name.
    var methods: [String: String] = [:]
    /// Every channel parameter in first-use order: the spec name and its Swift name. The notifier
    /// holds their values (`setUserId(_:)`).
    var notifierParameters: [(name: String, swiftName: String)] = []
    var mockType: String
    /// Operation id → the mock's broadcaster property (`devicePresenceValues` → `devicePresence`).
    var mockProperties: [String: String] = [:]

    private(set) var diagnostics = Diagnostics()

    init(api: ChannelAPI, config: GeneratorConfig) {
        let notifierName = config.notifierName ?? api.notifierName ?? SwiftIdentifiers.upperCamel(api.title) + "Notifier"
        notifier = notifierName
        notifierProtocol = notifierName + "Protocol"
        mockType = "Mock" + notifierName

        // One scope for every top-level declaration of the generated module.
        var topLevel = Scope(what: "type")
        topLevel.reserve(notifier, "the notifier")
        topLevel.reserve(notifierProtocol, "the notifier protocol")
        topLevel.reserve(channelsNamespace, "the channel constants")
        topLevel.reserve(mockType, "the mock notifier")

        var nested: [String: Scope] = [:]
        for type in api.types {
            let local = Self.typeName(type.swiftName ?? type.preferredName, nested: type.parent != nil)
            if let parent = type.parent, let parentName = types[parent] {
                var scope = nested[parent] ?? Scope(what: "nested type")
                scope.reserve(parentName.local, "its enclosing type")
                if let clash = scope.claim(local, type.origin.location) { report(clash) }
                nested[parent] = scope
                types[type.id] = TypeName(local: local, qualified: parentName.qualified + "." + local)
            } else {
                if let clash = topLevel.claim(local, type.origin.location) { report(clash) }
                types[type.id] = TypeName(local: local, qualified: local)
            }
            switch type.kind {
            case .object(let members):
                var scope = Scope(what: "property")
                scope.reserve("init", "the initializer")
                properties[type.id] = members.map { member in
                    let name = member.swiftName ?? SwiftIdentifiers.lowerCamel(member.jsonName)
                    if let clash = scope.claim(name, member.origin.location) { report(clash) }
                    return name
                }
            case .stringEnum(let values):
                var scope = Scope(what: "enum case")
                scope.reserve("unknown", "the fallback case for values this client does not know")
                cases[type.id] = values.map { value in
                    var name = value.value.isEmpty ? "empty" : SwiftIdentifiers.lowerCamel(value.value)
                    if name == "unknown" { name = "unknownValue" }
                    if let clash = scope.claim(name, value.location) { report(clash) }
                    return name
                }
            }
        }

        var constants = Scope(what: "channel constant")
        constants.reserve("all", "the list of every channel")
        for channel in api.channels {
            let base = channel.swiftName ?? channel.key
            let constant = SwiftIdentifiers.lowerCamel(base)
            if let clash = constants.claim(constant, channel.origin.location) { report(clash) }
            channelConstants[channel.key] = constant
            let subscription = SwiftIdentifiers.upperCamel(base) + "Subscription"
            if let clash = topLevel.claim(subscription, channel.origin.location) { report(clash) }
            subscriptions[channel.key] = subscription
            var parameterScope = Scope(what: "parameter")
            parameters[channel.key] = channel.parameters.map { parameter in
                let name = SwiftIdentifiers.lowerCamel(parameter.name)
                if let clash = parameterScope.claim(name, parameter.origin.location) { report(clash) }
                return name
            }
        }

        var methodScope = Scope(what: "notifier method")
        methodScope.reserve("source", "the notifier's event source")
        var seenParameters: Set<String> = []
        for channel in api.channels {
            for (parameter, swiftName) in zip(channel.parameters, parameters[channel.key] ?? []) where seenParameters.insert(parameter.name).inserted {
                notifierParameters.append((parameter.name, swiftName))
                let setter = "set" + SwiftIdentifiers.upperCamel(swiftName)
                if let clash = methodScope.claim(setter, parameter.origin.location) { report(clash) }
            }
        }
        var mockScope = Scope(what: "mock property")
        for (_, swiftName) in notifierParameters {
            mockScope.reserve(swiftName + "Changes", "a parameter's recorded changes")
        }
        for operation in api.operations {
            let name = operation.swiftName ?? SwiftIdentifiers.lowerCamel(operation.id)
            if let clash = methodScope.claim(name, operation.origin.location) { report(clash) }
            methods[operation.id] = name
            let property = name.hasSuffix("Values") && name.count > 6 ? String(name.dropLast(6)) : name + "Events"
            if let clash = mockScope.claim(property, operation.origin.location) { report(clash) }
            mockProperties[operation.id] = property
        }
    }

    private static func typeName(_ name: String, nested: Bool) -> String {
        let type = SwiftIdentifiers.upperCamel(name)
        return SwiftIdentifiers.reservedTypeNames.contains(type) || SwiftIdentifiers.keywords.contains(type) ? type + "Value" : type
    }

    private mutating func report(_ clash: Scope.Clash) {
        diagnostics.append(.error(
            "\(clash.what) name '\(clash.name)' is used twice; the other is \(clash.otherDescription) (rename one, or set x-swift-name)",
            at: clash.location))
        if let other = clash.otherLocation {
            diagnostics.append(.note("'\(clash.name)' is also declared here", at: other))
        }
    }
}

/// The names taken in one Swift scope.
private struct Scope {
    struct Clash {
        var what: String
        var name: String
        var location: SourceLocation
        var otherLocation: SourceLocation?
        var otherDescription: String
    }

    let what: String
    private var taken: [String: (location: SourceLocation?, description: String)] = [:]

    init(what: String) { self.what = what }

    mutating func reserve(_ name: String, _ description: String) {
        taken[name] = (nil, description)
    }

    /// Takes `name`; returns the clash when it was already taken.
    mutating func claim(_ name: String, _ location: SourceLocation) -> Clash? {
        if let existing = taken[name] {
            let otherDescription = existing.location.map { "at \($0)" } ?? existing.description
            return Clash(what: what, name: name, location: location, otherLocation: existing.location, otherDescription: otherDescription)
        }
        taken[name] = (location, "")
        return nil
    }
}
