import ChannelSpec

/// Compares two resolved specs (IR plus the Swift names the generator gives them), not their text:
/// reordering keys, editing descriptions or moving a schema to another file change nothing.
///
/// Types are compared where the old and new spec use them: from each channel's payload down
/// through properties, arrays and maps, so a schema shared by several channels is reported once.
///
/// The wire verdict asks what shipped apps subscribe to and decode (paths after parameter
/// substitution, JSON shapes and value sets); the source verdict asks whether code written against
/// the old generated Swift still compiles (names, argument labels and order, types).
///
/// Rules (wire / source):
/// - channel removed: breaking / breaking; added: compatible / breaking (a new requirement of the
///   notifier protocol: hand-written conformers stop compiling); an open-address channel's key
///   renamed (the same receive operation): compatible / breaking; key renamed with the
///   address kept: the same channel (its subscription type is renamed: compatible / breaking);
/// - address changed: breaking / compatible (breaking when the parameter count changes too);
///   parameter renamed: compatible / breaking when its Swift name changes, else compatible on both;
///   an allowed value removed: breaking / compatible; an open address given or taken: breaking / breaking;
/// - on a shared address, a value of another channel's messages that shipped apps do not skip (a
///   channel added there, a `const` tag changed): breaking / compatible; text ↔ JSON: breaking / compatible;
/// - a union becoming a struct that holds it (`properties` beside `oneOf`): compatible / breaking;
/// - a property key respelled in another Unicode normalization: compatible / breaking;
/// - message name (event type) changed, or its aliases: compatible / compatible (a channel's only
///   message is delivered whatever its event type says; an undeclared one is counted and shown);
///   one message becoming several (an enum of messages) or back: compatible / breaking;
/// - a type changed: compatible / breaking when shipped apps decode every new value (string → date
///   or enum, enum → string, number → integer or float, a narrower integer), else breaking / breaking;
/// - notifier method, type, property or case renamed (`x-swift-name`, keys): compatible / breaking;
/// - property removed: breaking if it was required, else compatible / breaking;
///   added: compatible / breaking if required (a new init parameter), else compatible;
///   reordered: compatible / breaking (the initializer's arguments move);
///   optional → required: compatible / breaking; required → optional: breaking / breaking;
/// - enum value removed: compatible (generated enums are open: `unknown(String)`) / breaking;
///   added: compatible / breaking (an exhaustive `switch` needs the new case, as for a union variant);
///   respelled with the same Swift case (`NEW` → `new`): breaking (read as `.unknown`) / compatible;
/// - a message leaving a channel of several: breaking / breaking (as a removed channel); a union kept
///   to one variant (`oneOf: [Cat, Dog]` → `[Cat]`): compatible (it decodes as `.cat`) / breaking;
/// - the config's settings (`compareSettings`): `transport:` breaking / compatible; `generate:`
///   compatible / breaking; `perspective:` breaking / breaking; a narrower `accessModifier:`
///   compatible / breaking; `names:` and `notifier:` reach the Swift names compared above.
/// - array items or map values that may be `null`: breaking / breaking; no longer `null`: compatible / breaking.
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
    /// Old unions that are a channel's messages: a variant leaving one is a message leaving the channel.
    private var messageUnions: Set<String> = []

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
        diff.compareSettings(old, new)
        return .success(diff.run())
    }

    /// What the two configs set beyond names (`names:` and `notifier:` reach the generated names,
    /// which `run()` compares): how the client connects, what the target generates, whose side the
    /// document describes, and who may see the generated code.
    mutating func compareSettings(_ before: GeneratorConfig, _ after: GeneratorConfig) {
        let notifier = new.names.notifier.name
        func location(_ key: String) -> SourceLocation? { after.keyLocations[key] ?? before.keyLocations[key] }
        if before.transport != after.transport {
            record(.breaking, .compatible, location("transport"), notifier,
                   "the transport changes from \(before.transport.rawValue) to \(after.transport.rawValue) (transport:): "
                       + "shipped apps connect to \(Self.service(before.transport)), the new client to \(Self.service(after.transport)), whose channel rules differ")
        }
        if before.mode != after.mode {
            record(.compatible, .breaking, location("generate"), notifier,
                   "the target generates \(Self.output(after.mode)) instead of \(Self.output(before.mode)) (generate:): code using what is no longer generated stops compiling")
        }
        if before.perspective != after.perspective {
            record(.breaking, .breaking, location("perspective"), notifier,
                   "the document is read from the \(after.perspective.rawValue)'s side, no longer the \(before.perspective.rawValue)'s (perspective:): "
                       + "what the client received it now publishes, and the other way round")
        }
        let rank: [GeneratorConfig.AccessModifier: Int] = [.internal: 0, .package: 1, .public: 2]
        if rank[after.accessModifier]! < rank[before.accessModifier]! {
            record(.compatible, .breaking, location("accessModifier"), notifier,
                   "the generated code becomes \(after.accessModifier.rawValue) (it was \(before.accessModifier.rawValue); accessModifier:): code outside "
                       + (after.accessModifier == .internal ? "the target" : "the package") + " no longer sees it")
        }
    }

    private static func service(_ transport: GeneratorConfig.Transport) -> String {
        switch transport {
        case .appsync: "AWS AppSync Events"
        case .sse: "a Server-Sent Events hub"
        }
    }

    private static func output(_ mode: GeneratorConfig.Mode) -> String {
        switch mode {
        case .client: "the client (models, channels, subscriptions, notifier)"
        case .mocks: "a mock notifier"
        case .models: "payload models only"
        }
    }

    mutating func run() -> [SpecChange] {
        if old.names.notifier != new.names.notifier {
            record(.compatible, .breaking, new.api.channels.first?.origin.location, old.names.notifier.name,
                   "the notifier is renamed to \(new.names.notifier.name)")
        }
        let oldChannels = Dictionary(old.api.receivers.map { ($0.channel.key, $0) }, uniquingKeysWith: { first, _ in first })
        var newChannels = Dictionary(new.api.receivers.map { ($0.channel.key, $0) }, uniquingKeysWith: { first, _ in first })
        for (key, receiver) in oldChannels.sorted(by: { $0.key < $1.key }) where newChannels[key] == nil {
            // A channel key renamed with the address kept is the same channel on the wire.
            let candidates = newChannels.values.filter { oldChannels[$0.channel.key] == nil }
            if let renamed = Self.sameAddress(as: receiver.channel, among: candidates) ?? Self.sameOpenChannel(as: receiver, among: candidates) {
                compareChannel(receiver, renamed)
                newChannels[renamed.channel.key] = nil
                continue
            }
            record(.breaking, .breaking, receiver.channel.origin.location, method(old, receiver.operation) + "()",
                   "channel '\(key)' (\(receiver.channel.address.shown)) is removed: shipped apps subscribe to nothing, code calling it no longer compiles")
        }
        for (key, receiver) in newChannels.sorted(by: { $0.key < $1.key }) {
            guard let before = oldChannels[key] else {
                // The method is a requirement of the notifier protocol, with no default a hand-written
                // conformer (a demo mode, a preview's notifier) could inherit: it stops compiling.
                record(.compatible, .breaking, receiver.channel.origin.location, method(new, receiver.operation) + "()",
                       "channel '\(key)' (\(receiver.channel.address.shown)) is added: "
                           + "types conforming to \(new.names.notifierProtocol.name) must implement the new method")
                continue
            }
            compareChannel(before, receiver)
        }
        return changes.sorted { ($0.isBreaking ? 0 : 1, $0.location?.description ?? "", $0.symbol, $0.reason) < ($1.isBreaking ? 0 : 1, $1.location?.description ?? "", $1.symbol, $1.reason) }
    }

    // MARK: Channels

    /// The one receiver among `candidates` whose channel has `channel`'s address (parameters as
    /// placeholders), or `nil` when none or several do.
    private static func sameAddress(
        as channel: Channel, among candidates: [(operation: ChannelOperation, channel: Channel)]
    ) -> (operation: ChannelOperation, channel: Channel)? {
        guard !channel.address.isOpen else { return nil }
        let matches = candidates.filter { !$0.channel.address.isOpen && $0.channel.address.shape == channel.address.shape }
        return matches.count == 1 ? matches[0] : nil
    }

    /// An open-address channel (each subscription names its path) renamed: the one candidate, also
    /// open, that the same receive operation reads. Its paths come from the app, so nothing changes on the wire.
    private static func sameOpenChannel(
        as receiver: (operation: ChannelOperation, channel: Channel), among candidates: [(operation: ChannelOperation, channel: Channel)]
    ) -> (operation: ChannelOperation, channel: Channel)? {
        guard receiver.channel.address.isOpen else { return nil }
        let matches = candidates.filter { $0.channel.address.isOpen && $0.operation.id.unicodeScalars.elementsEqual(receiver.operation.id.unicodeScalars) }
        return matches.count == 1 ? matches[0] : nil
    }

    private func method(_ side: Side, _ operation: ChannelOperation) -> String {
        "\(side.names.notifier.name).\(side.names.channelNames.methods[operation.id]?.name ?? operation.id)"
    }

    private mutating func compareChannel(_ before: (operation: ChannelOperation, channel: Channel), _ after: (operation: ChannelOperation, channel: Channel)) {
        let channel = after.channel
        let location = channel.origin.location
        let methodName = method(new, after.operation)
        if old.names.channelNames.methods[before.operation.id] != new.names.channelNames.methods[after.operation.id] {
            record(.compatible, .breaking, after.operation.origin.location, method(old, before.operation) + "()",
                   "the notifier method is renamed to \(methodName)()")
        }
        let subscription = new.names.channelNames.subscriptions[channel.key]?.name ?? channel.key
        if let oldSubscription = old.names.channelNames.subscriptions[before.channel.key]?.name, oldSubscription != subscription {
            record(.compatible, .breaking, location, oldSubscription, "the subscription type is renamed to \(subscription)")
        }
        if let oldConstant = old.names.channelNames.channelConstants[before.channel.key], let newConstant = new.names.channelNames.channelConstants[channel.key],
           oldConstant != newConstant {
            record(.compatible, .breaking, location, "\(old.names.channelsNamespace).\(oldConstant.name)",
                   "the channel constant is renamed to \(new.names.channelsNamespace).\(newConstant.name)")
        }
        compareAddress(before.channel, channel, subscription: subscription)
        compareSharedAddress(before.channel, channel, subscription: subscription)
        compareOwnStream(before.channel, channel, subscription: subscription)
        compareMessages(before.channel, channel, subscription: subscription)
    }

    /// How the channel is carried (`x-request-stream`) and which events end it or are errors: the
    /// same Swift, but shipped apps request, end and retry the stream the old way.
    private mutating func compareOwnStream(_ before: Channel, _ channel: Channel, subscription: String) {
        let location = channel.origin.location
        if before.isOwnStream != channel.isOwnStream {
            record(.breaking, .compatible, location, subscription, channel.isOwnStream
                ? "each instance becomes its own request (x-request-stream): shipped apps look for its events on the shared stream"
                : "the channel joins the shared stream (x-request-stream removed): shipped apps request each instance on its own")
        }
        func names(_ values: [String]) -> String { values.isEmpty ? "none" : values.map { "'\($0)'" }.joined(separator: ", ") }
        if before.finalEventNames != channel.finalEventNames {
            record(.breaking, .compatible, location, subscription,
                   "the events that end the stream change from \(names(before.finalEventNames)) to \(names(channel.finalEventNames)) (x-ends-stream): "
                       + "shipped apps end, or keep, the stream the old way")
        }
        if before.errorEventNames != channel.errorEventNames {
            record(.breaking, .compatible, location, subscription,
                   "the in-band error events change from \(names(before.errorEventNames)) to \(names(channel.errorEventNames)) (x-stream-error): "
                       + "shipped apps re-authorize, back off or give up the old way")
        }
    }

    /// Channels on one address: a shipped app's stream skips the events whose property names the
    /// other channels' messages (as it knew them) and takes the rest as its own. A value it does not
    /// know as another channel's (a channel added on the address, a tag changed) reaches it.
    private mutating func compareSharedAddress(_ before: Channel, _ channel: Channel, subscription: String) {
        guard let now = channel.sharedAddress else { return }  // alone now: nobody else's events arrive
        let skipped = before.sharedAddress.map { $0.property == now.property ? Set($0.otherChannelsValues) : [] } ?? []
        let unknown = now.otherChannelsValues.filter { !skipped.contains($0) }
        guard !unknown.isEmpty else { return }
        record(.breaking, .compatible, channel.origin.location, subscription,
               "the channel's address is shared with messages whose '\(now.property)' is \(unknown.map { "'\($0)'" }.joined(separator: ", ")): "
                   + "shipped apps take those events as this channel's own")
    }

    /// The wire verdict from the paths apps subscribe to (parameters as placeholders), the source
    /// verdict from the Swift names of the parameters (initializer labels, notifier setters).
    private mutating func compareAddress(_ before: Channel, _ channel: Channel, subscription: String) {
        let location = channel.origin.location
        let oldParameters = before.address.parameterNames
        let newParameters = channel.address.parameterNames
        if before.address.isOpen != channel.address.isOpen {
            record(.breaking, .breaking, location, subscription,
                   "the address changes from \(before.address.shown) to \(channel.address.shown): "
                       + "another channel on the wire, and the subscription is made another way (`init(channel:)` only for an open address)")
            return
        }
        if oldParameters.count != newParameters.count {
            record(.breaking, .breaking, location, subscription,
                   "the address parameters change from (\(oldParameters.joined(separator: ", "))) to (\(newParameters.joined(separator: ", "))): another channel on the wire, another initializer")
            return
        }
        if before.address.shape != channel.address.shape {
            record(.breaking, .compatible, location, subscription,
                   "the address changes from '\(before.address.shown)' to '\(channel.address.shown)': shipped apps subscribe where nothing is published")
        }
        if oldParameters != newParameters {
            let oldSwift = (old.names.channelNames.parameters[before.key] ?? []).map(\.name)
            let newSwift = (new.names.channelNames.parameters[channel.key] ?? []).map(\.name)
            let renamed = "the address parameters are renamed from (\(oldParameters.joined(separator: ", "))) to (\(newParameters.joined(separator: ", ")))"
            if oldSwift != newSwift {
                record(.compatible, .breaking, location, subscription,
                       renamed + ": the same paths, but the initializer's labels and the notifier's setters change")
            } else {
                record(.compatible, .compatible, location, subscription, renamed + " in the spec only: the same paths and Swift names")
            }
        }
        // Parameters by position: a renamed parameter keeps its allowed values.
        for (oldParameter, parameter) in zip(before.parameters, channel.parameters) {
            let removed = oldParameter.allowedValues.filter { !parameter.allowedValues.contains($0) }
            if !parameter.allowedValues.isEmpty, !removed.isEmpty {
                record(.breaking, .compatible, parameter.origin.location, "\(subscription).\(parameter.name)",
                       "allowed values \(removed.map { "'\($0)'" }.joined(separator: ", ")) are removed: apps using them are refused")
            }
        }
    }

    /// A channel's events: one message's payload, or an enum of several messages.
    private mutating func compareMessages(_ before: Channel, _ channel: Channel, subscription: String) {
        let symbol = "\(subscription).Event"
        let location = channel.message.origin.location
        switch (messageVariants(of: before, old), messageVariants(of: channel, new)) {
        case (nil, let variants?):
            // One message became several: the kept one's events decode as before in shipped apps.
            record(.compatible, .breaking, location, symbol,
                   "the channel gains messages: its events become \(describe(channel.message.payload, new)), an enum of \(variants.count) messages; "
                       + "shipped apps keep decoding '\(before.message.key)' and drop the others")
            if let kept = variants.first(where: { $0.preferredName == before.message.key }) {
                compare(before.message.payload, kept.type, symbol: symbol, location: kept.origin.location)
            }
        case (let variants?, nil):
            let gone = variants.map(\.preferredName).filter { $0 != channel.message.key }
            record(.breaking, .breaking, location, symbol,
                   "the channel keeps one message ('\(channel.message.key)'): its events are \(describe(channel.message.payload, new)), no longer an enum of messages; "
                       + "\(gone.map { "'\($0)'" }.joined(separator: ", ")) leave the channel: shipped apps wait for events that no longer come")
            if let kept = variants.first(where: { $0.preferredName == channel.message.key }) {
                compare(kept.type, channel.message.payload, symbol: symbol, location: location)
            } else {
                record(.breaking, .compatible, location, symbol, "message '\(channel.message.key)' is new: shipped apps decode none of the channel's events")
            }
        default:
            if before.message.isText != channel.message.isText {
                record(.breaking, .compatible, location, subscription,
                       "the message becomes \(channel.message.isText ? "text" : "JSON") (it was \(before.message.isText ? "text" : "JSON")): shipped apps read its events the other way")
            }
            // A channel's only message is delivered whatever its event type says; a spelling a build
            // does not declare is counted and shown as `.degraded`, not dropped.
            if before.message.name != channel.message.name {
                record(.compatible, .compatible, location, subscription,
                       "the message name (event type) changes from '\(before.message.name ?? "none")' to '\(channel.message.name ?? "none")': "
                           + "shipped apps still deliver its events and count the new name as undeclared (status .degraded)")
            } else if before.message.eventTypeAliases != channel.message.eventTypeAliases {
                let added = channel.message.eventTypeAliases.filter { !before.message.eventTypeAliases.contains($0) }
                let removed = before.message.eventTypeAliases.filter { !channel.message.eventTypeAliases.contains($0) }
                let changes = added.map { "+'\($0)'" } + removed.map { "−'\($0)'" }
                record(.compatible, .compatible, location, subscription,
                       "the event type's aliases change (\(changes.joined(separator: ", "))): events of a spelling a build does not declare are still delivered, counted as undeclared")
            }
            if messageVariants(of: before, old) != nil, case .named(let id) = before.message.payload { messageUnions.insert(id) }
            compare(before.message.payload, channel.message.payload, symbol: symbol, location: location)
        }
    }

    /// The messages of a channel that carries several (an enum with a case per message), or `nil`.
    private func messageVariants(of channel: Channel, _ side: Side) -> [UnionVariant]? {
        guard channel.message.key == "messages", channel.message.name == nil, case .named(let id) = channel.message.payload,
              case .union(let union)? = side.types[id]?.kind else { return nil }
        return union.variants
    }

    // MARK: Types

    private func describe(_ type: TypeReference, _ side: Side) -> String {
        switch type {
        case .string: "String"
        case .dateTime: "Date"
        case .integer(let bits, let isUnsigned): (isUnsigned ? "U" : "") + (bits.map { "Int\($0)" } ?? "Int")
        case .number(let isFloat): isFloat ? "Float" : "Double"
        case .boolean: "Bool"
        case .json: "JSONValue"
        case .array(let element): "[\(describe(element, side))]"
        case .dictionary(let value): "[String: \(describe(value, side))]"
        case .optional(let wrapped): "\(describe(wrapped, side))?"
        case .named(let id): side.typeName(id)
        }
    }

    private mutating func compare(_ before: TypeReference, _ after: TypeReference, symbol: String, location: SourceLocation) {
        switch (before, after) {
        case (.array(let oldElement), .array(let newElement)), (.dictionary(let oldElement), .dictionary(let newElement)),
             (.optional(let oldElement), .optional(let newElement)):
            compare(oldElement, newElement, symbol: symbol, location: location)
        case (.optional(let wrapped), _) where wrapped == after, (_, .optional(let wrapped)) where wrapped == before:
            // Items or values that may be `null`, or no longer: an app decoding optionals reads
            // every value; one decoding non-optionals fails on the first `null`.
            let nullable = after == .optional(before)
            record(nullable ? .breaking : .compatible, .breaking, location, symbol,
                   "the type changes from \(describe(before, old)) to \(describe(after, new)): "
                       + (nullable ? "shipped apps fail to decode an event holding null there" : "shipped apps decode every new value"))
        case (.named(let oldID), .named(let newID)):
            guard let oldType = old.types[oldID], let newType = new.types[newID] else { return }
            compareNamed(oldType, newType, symbol: symbol, location: location)
        default:
            guard before != after else { return }
            let change = "the type changes from \(describe(before, old)) to \(describe(after, new))"
            if decodesEveryValue(of: after, as: before) {
                record(.compatible, .breaking, location, symbol, change + ": shipped apps decode every new value")
            } else {
                record(.breaking, .breaking, location, symbol, change)
            }
        }
    }

    /// Whether a shipped app decoding `before` reads every value `after` allows: a `String` or an
    /// open enum reads any string (a date, an enum value), a `Double` any number, a wider integer a
    /// narrower one, and a `JSONValue` anything.
    private func decodesEveryValue(of after: TypeReference, as before: TypeReference) -> Bool {
        switch (before, after) {
        case (.json, _):
            return true
        case (.optional(let wrapped), _):
            return wrapped == after || decodesEveryValue(of: after, as: wrapped)
        case (.string, .dateTime), (.number(isFloat: false), .integer), (.number(isFloat: false), .number(isFloat: true)):
            return true
        case (.integer(let oldBits, let oldUnsigned), .integer(let newBits, let newUnsigned)):
            // A signed type holds an unsigned one's values only with a bit to spare; an unsigned one never holds negatives.
            if oldUnsigned == newUnsigned { return (oldBits ?? 64) >= (newBits ?? 64) }
            return !oldUnsigned && (oldBits ?? 64) > (newBits ?? 64)
        case (.string, .named(let id)):
            return isStringEnum(id, new)
        case (.named(let id), .string), (.named(let id), .dateTime):
            return isStringEnum(id, old)
        default:
            return false
        }
    }

    /// Generated enums are open (`unknown(String)`): any string decodes.
    private func isStringEnum(_ id: String, _ side: Side) -> Bool {
        if case .stringEnum? = side.types[id]?.kind { true } else { false }
    }

    private mutating func compareNamed(_ before: NamedType, _ after: NamedType, symbol: String, location: SourceLocation) {
        guard compared.insert([before.id, after.id]).inserted else { return }
        let oldName = old.typeName(before.id), newName = new.typeName(after.id)
        if case .union(let union) = before.kind, !Self.isUnion(after), let (name, kept) = keptVariant(of: union, unionID: before.id, as: after) {
            // `oneOf: [Cat, Dog]` → `[Cat]`: the one variant's type. Shipped apps decode every new
            // value as that case; code using the enum no longer compiles.
            record(.compatible, .breaking, location, symbol,
                   "the union keeps one variant ('\(name)'): its values are \(newName), no longer the enum \(oldName); shipped apps decode them as .\(name)")
            compareNamed(kept, after, symbol: symbol, location: location)
            return
        }
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
        case (.union, .composition(let members)):
            // `properties` beside the union: a struct holding the union, decoded from the same JSON.
            if let held = members.first(where: { if case .named(let id) = $0.type, case .union? = new.types[id]?.kind { true } else { false } }),
               case .named(let heldID) = held.type, let heldType = new.types[heldID] {
                record(.compatible, .breaking, location, symbol,
                       "the union becomes \(newName), a struct holding it and more properties: shipped apps decode the same JSON; code using the enum no longer compiles")
                compareNamed(before, heldType, symbol: symbol, location: location)
            } else {
                record(.breaking, .breaking, location, symbol, "the type changes from \(oldName) to \(newName) (an object became an enum or back)")
            }
        default:
            record(.breaking, .breaking, location, symbol, "the type changes from \(oldName) to \(newName) (an object became an enum or back)")
        }
    }

    private static func isUnion(_ type: NamedType) -> Bool {
        if case .union = type.kind { true } else { false }
    }

    /// The variant of an old union whose type is the new type (by its Swift name), with its case name.
    private func keptVariant(of union: Union, unionID: String, as after: NamedType) -> (String, NamedType)? {
        let cases = (old.names.cases[unionID] ?? []).map(\.name)
        let newName = new.typeName(after.id)
        for (index, variant) in union.variants.enumerated() {
            guard case .named(let id) = variant.type, let type = old.types[id], old.typeName(id) == newName else { continue }
            return (cases.indices.contains(index) ? cases[index] : variant.preferredName, type)
        }
        return nil
    }

    private mutating func compareProperties(_ before: [Property], _ after: [Property], oldType: NamedType, newType: NamedType) {
        let typeName = new.typeName(newType.id)
        let oldNames = old.names.properties[oldType.id] ?? []
        let newNames = new.names.properties[newType.id] ?? []
        func swiftName(_ names: [Identifier], _ properties: [Property], _ property: Property) -> String {
            properties.firstIndex { $0.jsonName.unicodeScalars.elementsEqual(property.jsonName.unicodeScalars) }.flatMap { names.indices.contains($0) ? names[$0].name : nil } ?? property.jsonName
        }
        // JSON keys compared by Unicode scalars, as they are on the wire; a key written in another
        // normalization (`café` as `cafe` + U+0301) is the same key to shipped apps' JSONDecoder
        // (Swift's `String ==`), but another Swift name.
        func same(_ a: String, _ b: String) -> Bool { a.unicodeScalars.elementsEqual(b.unicodeScalars) }
        for property in before where !after.contains(where: { same($0.jsonName, property.jsonName) }) {
            if let respelled = after.first(where: { $0.jsonName == property.jsonName }) {
                record(.compatible, .breaking, respelled.origin.location, "\(typeName).\(swiftName(oldNames, before, property))",
                       "the key '\(property.jsonName)' is written in another Unicode normalization: shipped apps still read it; its Swift name is another identifier")
                continue
            }
            let name = swiftName(oldNames, before, property)
            record(property.isOptional ? .compatible : .breaking, .breaking, newType.origin.location, "\(typeName).\(name)",
                   property.isOptional
                       ? "optional property '\(property.jsonName)' is removed: shipped apps decode it as nil; code using it no longer compiles"
                       : "required property '\(property.jsonName)' is removed: shipped apps fail to decode every event")
        }
        for property in after {
            let name = swiftName(newNames, after, property)
            let symbol = "\(typeName).\(name)"
            guard let previous = before.first(where: { same($0.jsonName, property.jsonName) }) else {
                if before.contains(where: { $0.jsonName == property.jsonName }) { continue }  // reported above
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
        // The memberwise initializer takes the properties in order: reordering them moves its arguments.
        let keptBefore = before.map(\.jsonName).filter { name in after.contains { same($0.jsonName, name) } }
        let keptAfter = after.map(\.jsonName).filter { name in before.contains { same($0.jsonName, name) } }
        if keptBefore != keptAfter {
            record(.compatible, .breaking, newType.origin.location, "\(typeName).init",
                   "the properties are reordered (\(keptAfter.joined(separator: ", "))): the initializer's arguments change order")
        }
    }

    private mutating func compareValues(_ before: [EnumValue], _ after: [EnumValue], oldType: NamedType, newType: NamedType) {
        let typeName = new.typeName(newType.id)
        let oldCases = old.names.cases[oldType.id] ?? []
        let newCases = new.names.cases[newType.id] ?? []
        // A value respelled with the same Swift case (`NEW` → `new`, both `.new`): code compiles,
        // but shipped apps read the new spelling as `.unknown`, not as the case they handle.
        var respelled: Set<String> = []
        for (index, value) in before.enumerated() where !after.contains(where: { $0.value == value.value }) {
            guard oldCases.indices.contains(index),
                  let newIndex = newCases.firstIndex(where: { $0 == oldCases[index] }), after.indices.contains(newIndex),
                  !before.contains(where: { $0.value == after[newIndex].value }) else { continue }
            let spelling = after[newIndex].value
            respelled.formUnion([value.value, spelling])
            record(.breaking, .compatible, after[newIndex].location, "\(typeName).\(newCases[newIndex].name)",
                   "enum value '\(value.value)' is respelled '\(spelling)', the same case: code compiles; shipped apps decode '\(spelling)' as .unknown(\"\(spelling)\"), not .\(oldCases[index].name)")
        }
        for (index, value) in before.enumerated() where !after.contains(where: { $0.value == value.value }) && !respelled.contains(value.value) {
            let name = oldCases.indices.contains(index) ? oldCases[index].name : value.value
            record(.compatible, .breaking, newType.origin.location, "\(typeName).\(name)",
                   "enum value '\(value.value)' is removed: shipped apps decode it as .unknown if it is still sent; code naming the case no longer compiles")
        }
        for (index, value) in after.enumerated() where !respelled.contains(value.value) {
            let name = newCases.indices.contains(index) ? newCases[index].name : value.value
            guard let oldIndex = before.firstIndex(where: { $0.value == value.value }) else {
                record(.compatible, .breaking, value.location, "\(typeName).\(name)",
                       "enum value '\(value.value)' is added: shipped apps decode it as .unknown(\"\(value.value)\"); an exhaustive switch needs the new case")
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
            if messageUnions.contains(oldType.id) {
                // As a removed channel: the app's loop over those events waits for ever.
                record(.breaking, .breaking, newType.origin.location, "\(typeName).\(name)",
                       "message '\(name)' leaves the channel: shipped apps wait for its events, which no longer come; code naming the case no longer compiles")
            } else {
                record(.compatible, .breaking, newType.origin.location, "\(typeName).\(name)",
                       "variant '\(name)' is removed: shipped apps decode it as .unknown if it is still sent; code naming the case no longer compiles")
            }
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
        case .fixedProperty(let name): "by '\(name)', else by trying the variants that do not fix it"
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
