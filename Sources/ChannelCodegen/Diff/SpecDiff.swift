import ChannelSpec

/// Compares two resolved specs (IR plus the Swift names the generator gives them), not their text:
/// reordering keys, editing descriptions or moving a schema to another file change nothing.
///
/// Types are compared where the old and new spec use them: from each channel's payload down
/// through properties, arrays and maps, so a schema shared by several channels is reported once.
///
/// Rules (wire / source):
/// - channel removed: breaking / breaking; added: compatible / compatible;
/// - address changed: breaking / compatible (breaking when the parameters change too);
///   parameter added or removed: breaking / breaking; an allowed value removed: breaking / compatible;
/// - message name (event type) changed: breaking / compatible; payload type changed: breaking / breaking;
/// - notifier method, type, property or case renamed (`x-swift-name`, keys): compatible / breaking;
/// - property removed: breaking if it was required, else compatible / breaking;
///   added: compatible / breaking if required (a new init parameter), else compatible;
///   optional → required: compatible / breaking; required → optional: breaking / breaking;
///   type changed: breaking / breaking;
/// - enum value removed: compatible (generated enums are open: `unknown(String)`) / breaking;
///   added: compatible / compatible.
package struct SpecDiff {
    /// One side: the IR and its names.
    struct Side {
        let api: ChannelAPI
        let names: SwiftNaming
        let types: [String: NamedType]

        init(api: ChannelAPI, names: SwiftNaming) {
            self.api = api
            self.names = names
            types = Dictionary(api.types.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        }

        func typeName(_ id: String) -> String { names.types[id].map { $0.path.map(\.name).joined(separator: ".") } ?? id }
    }

    private let old: Side
    private let new: Side
    private var changes: [SpecChange] = []
    private var compared: Set<[String]> = []

    init(old: Side, new: Side) {
        self.old = old
        self.new = new
    }

    // MARK: Entry points

    /// The changes from the spec `old` configures to the spec `new` configures, or the diagnostics
    /// of whichever does not generate.
    package static func compare(old: GeneratorConfig, new: GeneratorConfig) -> Result<[SpecChange], SpecDiffFailure> {
        let oldNamed: Generator.Named
        switch Generator.name(config: old) {
        case .success(let named): oldNamed = named
        case .failure(let failed): return .failure(SpecDiffFailure(side: .old, diagnostics: failed.result.diagnostics))
        }
        let newNamed: Generator.Named
        switch Generator.name(config: new) {
        case .success(let named): newNamed = named
        case .failure(let failed): return .failure(SpecDiffFailure(side: .new, diagnostics: failed.result.diagnostics))
        }
        var diff = SpecDiff(old: Side(api: oldNamed.api, names: oldNamed.names), new: Side(api: newNamed.api, names: newNamed.names))
        return .success(diff.run())
    }

    mutating func run() -> [SpecChange] {
        if old.names.notifier != new.names.notifier {
            record(.compatible, .breaking, new.api.channels.first?.origin.location, old.names.notifier.name,
                   "the notifier is renamed to \(new.names.notifier.name)")
        }
        let oldChannels = Dictionary(old.api.receivers.map { ($0.channel.key, $0) }, uniquingKeysWith: { first, _ in first })
        let newChannels = Dictionary(new.api.receivers.map { ($0.channel.key, $0) }, uniquingKeysWith: { first, _ in first })
        for (key, receiver) in oldChannels.sorted(by: { $0.key < $1.key }) where newChannels[key] == nil {
            record(.breaking, .breaking, receiver.channel.origin.location, method(old, receiver.operation) + "()",
                   "channel '\(key)' (\(receiver.channel.address.text)) is removed: shipped apps subscribe to nothing, code calling it no longer compiles")
        }
        for (key, receiver) in newChannels.sorted(by: { $0.key < $1.key }) {
            guard let before = oldChannels[key] else {
                record(.compatible, .compatible, receiver.channel.origin.location, method(new, receiver.operation) + "()",
                       "channel '\(key)' (\(receiver.channel.address.text)) is added")
                continue
            }
            compareChannel(before, receiver)
        }
        return changes.sorted { ($0.isBreaking ? 0 : 1, $0.location?.description ?? "", $0.symbol, $0.reason) < ($1.isBreaking ? 0 : 1, $1.location?.description ?? "", $1.symbol, $1.reason) }
    }

    // MARK: Channels

    private func method(_ side: Side, _ operation: ChannelOperation) -> String {
        "\(side.names.notifier.name).\(side.names.methods[operation.id]?.name ?? operation.id)"
    }

    private mutating func compareChannel(_ before: (operation: ChannelOperation, channel: Channel), _ after: (operation: ChannelOperation, channel: Channel)) {
        let channel = after.channel
        let location = channel.origin.location
        let methodName = method(new, after.operation)
        if old.names.methods[before.operation.id] != new.names.methods[after.operation.id] {
            record(.compatible, .breaking, after.operation.origin.location, method(old, before.operation) + "()",
                   "the notifier method is renamed to \(methodName)()")
        }
        let subscription = new.names.subscriptions[channel.key]?.name ?? channel.key
        if let oldSubscription = old.names.subscriptions[channel.key]?.name, oldSubscription != subscription {
            record(.compatible, .breaking, location, oldSubscription, "the subscription type is renamed to \(subscription)")
        }
        let oldParameters = before.channel.address.parameterNames
        let newParameters = channel.address.parameterNames
        if oldParameters != newParameters {
            record(.breaking, .breaking, location, subscription,
                   "the address parameters change from (\(oldParameters.joined(separator: ", "))) to (\(newParameters.joined(separator: ", "))): another channel on the wire, another initializer")
        } else if before.channel.address.text != channel.address.text {
            record(.breaking, .compatible, location, subscription,
                   "the address changes from '\(before.channel.address.text)' to '\(channel.address.text)': shipped apps subscribe where nothing is published")
        } else {
            for parameter in channel.parameters {
                guard let oldParameter = before.channel.parameters.first(where: { $0.name == parameter.name }) else { continue }
                let removed = oldParameter.allowedValues.filter { !parameter.allowedValues.contains($0) }
                if !parameter.allowedValues.isEmpty, !removed.isEmpty {
                    record(.breaking, .compatible, parameter.origin.location, "\(subscription).\(parameter.name)",
                           "allowed values \(removed.map { "'\($0)'" }.joined(separator: ", ")) are removed: apps using them are refused")
                }
            }
        }
        if before.channel.message.name != channel.message.name {
            record(.breaking, .compatible, channel.message.origin.location, subscription,
                   "the message name (event type) changes from '\(before.channel.message.name ?? "none")' to '\(channel.message.name ?? "none")'")
        }
        compare(before.channel.message.payload, channel.message.payload, symbol: "\(subscription).Event", location: channel.message.origin.location)
    }

    // MARK: Types

    private func describe(_ type: TypeReference, _ side: Side) -> String {
        switch type {
        case .string: "String"
        case .dateTime: "Date"
        case .integer(let bits): bits.map { "Int\($0)" } ?? "Int"
        case .number(let isFloat): isFloat ? "Float" : "Double"
        case .boolean: "Bool"
        case .json: "JSONValue"
        case .array(let element): "[\(describe(element, side))]"
        case .dictionary(let value): "[String: \(describe(value, side))]"
        case .named(let id): side.typeName(id)
        }
    }

    private mutating func compare(_ before: TypeReference, _ after: TypeReference, symbol: String, location: SourceLocation) {
        switch (before, after) {
        case (.array(let oldElement), .array(let newElement)), (.dictionary(let oldElement), .dictionary(let newElement)):
            compare(oldElement, newElement, symbol: symbol, location: location)
        case (.named(let oldID), .named(let newID)):
            guard let oldType = old.types[oldID], let newType = new.types[newID] else { return }
            compareNamed(oldType, newType, symbol: symbol, location: location)
        default:
            if before != after {
                record(.breaking, .breaking, location, symbol, "the type changes from \(describe(before, old)) to \(describe(after, new))")
            }
        }
    }

    private mutating func compareNamed(_ before: NamedType, _ after: NamedType, symbol: String, location: SourceLocation) {
        guard compared.insert([before.id, after.id]).inserted else { return }
        let oldName = old.typeName(before.id), newName = new.typeName(after.id)
        if oldName != newName {
            record(.compatible, .breaking, after.origin.location, oldName, "the type is renamed to \(newName)")
        }
        switch (before.kind, after.kind) {
        case (.object(let oldProperties), .object(let newProperties)):
            compareProperties(oldProperties, newProperties, oldType: before, newType: after)
            compareExtras(before.extraProperties, after.extraProperties, symbol: "\(newName).additionalProperties", location: after.origin.location)
        case (.composition(let oldMembers), .composition(let newMembers)):
            compareProperties(oldMembers, newMembers, oldType: before, newType: after)
        case (.stringEnum(let oldValues), .stringEnum(let newValues)):
            compareValues(oldValues, newValues, oldType: before, newType: after)
        case (.union(let oldUnion), .union(let newUnion)):
            compareVariants(oldUnion, newUnion, oldType: before, newType: after)
        default:
            record(.breaking, .breaking, location, symbol, "the type changes from \(oldName) to \(newName) (an object became an enum or back)")
        }
    }

    private mutating func compareProperties(_ before: [Property], _ after: [Property], oldType: NamedType, newType: NamedType) {
        let typeName = new.typeName(newType.id)
        let oldNames = old.names.properties[oldType.id] ?? []
        let newNames = new.names.properties[newType.id] ?? []
        func swiftName(_ names: [Identifier], _ properties: [Property], _ property: Property) -> String {
            properties.firstIndex { $0.jsonName == property.jsonName }.flatMap { names.indices.contains($0) ? names[$0].name : nil } ?? property.jsonName
        }
        for property in before where !after.contains(where: { $0.jsonName == property.jsonName }) {
            let name = swiftName(oldNames, before, property)
            record(property.isOptional ? .compatible : .breaking, .breaking, newType.origin.location, "\(typeName).\(name)",
                   property.isOptional
                       ? "optional property '\(property.jsonName)' is removed: shipped apps decode it as nil; code using it no longer compiles"
                       : "required property '\(property.jsonName)' is removed: shipped apps fail to decode every event")
        }
        for property in after {
            let name = swiftName(newNames, after, property)
            let symbol = "\(typeName).\(name)"
            guard let previous = before.first(where: { $0.jsonName == property.jsonName }) else {
                if property.isOptional {
                    record(.compatible, .compatible, property.origin.location, symbol, "optional property '\(property.jsonName)' is added")
                } else {
                    record(.compatible, .breaking, property.origin.location, symbol,
                           "required property '\(property.jsonName)' is added: shipped apps ignore it; the initializer gains a parameter")
                }
                continue
            }
            let oldName = swiftName(oldNames, before, previous)
            if oldName != name {
                record(.compatible, .breaking, property.origin.location, "\(old.typeName(oldType.id)).\(oldName)", "the property is renamed to \(name) in Swift (same JSON key)")
            }
            switch (previous.isOptional, property.isOptional) {
            case (true, false):
                record(.compatible, .breaking, property.origin.location, symbol, "'\(property.jsonName)' becomes required: always sent, but its Swift type is no longer optional")
            case (false, true):
                record(.breaking, .breaking, property.origin.location, symbol, "'\(property.jsonName)' becomes optional: shipped apps fail to decode events without it")
            default:
                break
            }
            compare(previous.type, property.type, symbol: symbol, location: property.origin.location)
        }
    }

    private mutating func compareValues(_ before: [EnumValue], _ after: [EnumValue], oldType: NamedType, newType: NamedType) {
        let typeName = new.typeName(newType.id)
        let oldCases = old.names.cases[oldType.id] ?? []
        let newCases = new.names.cases[newType.id] ?? []
        for (index, value) in before.enumerated() where !after.contains(where: { $0.value == value.value }) {
            let name = oldCases.indices.contains(index) ? oldCases[index].name : value.value
            record(.compatible, .breaking, newType.origin.location, "\(typeName).\(name)",
                   "enum value '\(value.value)' is removed: shipped apps decode it as .unknown if it is still sent; code naming the case no longer compiles")
        }
        for (index, value) in after.enumerated() {
            let name = newCases.indices.contains(index) ? newCases[index].name : value.value
            guard let oldIndex = before.firstIndex(where: { $0.value == value.value }) else {
                record(.compatible, .compatible, value.location, "\(typeName).\(name)",
                       "enum value '\(value.value)' is added: shipped apps decode it as .unknown(\"\(value.value)\")")
                continue
            }
            let oldName = oldCases.indices.contains(oldIndex) ? oldCases[oldIndex].name : value.value
            if oldName != name {
                record(.compatible, .breaking, value.location, "\(old.typeName(oldType.id)).\(oldName)", "the case is renamed to \(name)")
            }
        }
    }

    /// Variants are matched by case name; a matched variant's type is compared like a property's.
    private mutating func compareVariants(_ before: Union, _ after: Union, oldType: NamedType, newType: NamedType) {
        let typeName = new.typeName(newType.id)
        let oldCases = (old.names.cases[oldType.id] ?? []).map(\.name)
        let newCases = (new.names.cases[newType.id] ?? []).map(\.name)
        if before.decoding != after.decoding {
            record(.breaking, .compatible, newType.origin.location, typeName,
                   "the union is told apart differently (\(Self.describe(before.decoding)) → \(Self.describe(after.decoding))): shipped apps may pick another variant or none")
        }
        for name in oldCases where !newCases.contains(name) {
            record(.compatible, .breaking, newType.origin.location, "\(typeName).\(name)",
                   "variant '\(name)' is removed: shipped apps decode it as .unknown if it is still sent; code naming the case no longer compiles")
        }
        for (index, name) in newCases.enumerated() {
            let variant = after.variants[index]
            guard let oldIndex = oldCases.firstIndex(of: name), before.variants.indices.contains(oldIndex) else {
                record(.compatible, .breaking, variant.origin.location, "\(typeName).\(name)",
                       "variant '\(name)' is added: shipped apps decode it as .unknown; an exhaustive switch needs the new case")
                continue
            }
            let previous = before.variants[oldIndex]
            if before.decoding == after.decoding, Set(previous.tags) != Set(variant.tags) {
                record(.breaking, .compatible, variant.origin.location, "\(typeName).\(name)",
                       "variant '\(name)' is recognized by other values (\(previous.tags.joined(separator: ", ")) → \(variant.tags.joined(separator: ", ")))")
            }
            compare(previous.type, variant.type, symbol: "\(typeName).\(name)", location: variant.origin.location)
        }
    }

    /// The properties a schema does not name: kept (typed) or ignored.
    private mutating func compareExtras(_ before: TypeReference?, _ after: TypeReference?, symbol: String, location: SourceLocation) {
        switch (before, after) {
        case (nil, nil):
            break
        case (nil, _?):
            record(.compatible, .compatible, location, symbol, "other properties are kept: shipped apps ignore them")
        case (_?, nil):
            record(.compatible, .breaking, location, symbol, "other properties are no longer kept: code using them no longer compiles")
        case (let old?, let new?):
            compare(old, new, symbol: symbol, location: location)
        }
    }

    private static func describe(_ decoding: Union.Decoding) -> String {
        switch decoding {
        case .property(let name): "by '\(name)'"
        case .firstThatDecodes: "by trying each variant"
        }
    }

    private mutating func record(_ wire: SpecChange.Verdict, _ source: SpecChange.Verdict, _ location: SourceLocation?, _ symbol: String, _ reason: String) {
        changes.append(SpecChange(wire: wire, source: source, location: location, symbol: symbol, reason: reason))
    }
}

/// A diff that could not be made: one of the specs does not generate.
package struct SpecDiffFailure: Error, Sendable {
    package enum Side: String, Sendable { case old, new }
    package var side: Side
    package var diagnostics: [Diagnostic]
}
