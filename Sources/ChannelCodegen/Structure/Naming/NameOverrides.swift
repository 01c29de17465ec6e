import ChannelSpec

/// `names:` in channelgen.yaml: the Swift names a config gives the spec's, applied to the IR
/// before any name is chosen, and those that match nothing warned about.
enum NameOverrides {
    /// The IR with `names:` applied as `x-swift-name`s where the spec gives none (enum values,
    /// union variants and channel parameters, which have no `x-swift-name`, take the override alone).
    /// A member is matched as `Type.member` first (the type as the spec names it), then by its name
    /// alone, which matches that name in every type.
    static func applying(_ overrides: ExactKeyDictionary<String>, to api: ChannelAPI) -> ChannelAPI {
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
    static func warnAboutUnused(_ overrides: [GeneratorConfig.NameOverride], in api: ChannelAPI, into diagnostics: inout Diagnostics) {
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
}
