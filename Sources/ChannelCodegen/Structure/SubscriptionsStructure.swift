import ChannelSpec

/// `Subscriptions.swift`: one `ChannelSubscription` per channel, carrying its validated parameters.
struct SubscriptionsStructure {
    let api: ChannelAPI
    let names: SwiftNaming
    let types: SwiftTypes
    let access: AccessModifier?

    func file(header: [String]) -> SwiftFile {
        var declarations = names.channelNames.channels.map(subscription)
        // Payloads with a required `eventType` string report it, and so do the enums of several
        // messages chosen by a property: the runtime counts the event types nobody declared.
        var reported: Set<String> = []
        for channel in api.channels {
            guard case .named(let id) = channel.message.payload, let type = types.namedTypes[id], reported.insert(id).inserted else { continue }
            if reportsEventType(type) {
                declarations.append(Declaration(spi: types.spi(for: access), .type(TypeDeclaration(
                    keyword: .extension, name: names.qualifiedName(ofType: id), conformances: [types.runtime("EventTypeReporting")]))))
            } else if let tagged = taggedMessageUnion(type) {
                declarations.append(messageUnionReporting(type, tagged))
            }
        }
        return SwiftFile(header: header, imports: [.runtimeForGeneratedCode, .foundation], declarations: declarations)
    }

    /// The event types `channel`'s messages declare, when they are more than its message name (the
    /// runtime's default): the name's aliases, or the values that choose among several messages.
    private func declaredEventTypes(_ channel: Channel) -> [String]? {
        if channel.message.name != nil {
            return channel.message.eventTypeAliases.isEmpty ? nil : channel.message.eventTypes
        }
        guard case .named(let id) = channel.message.payload, let type = types.namedTypes[id] else { return nil }
        // An own stream's events name their message: the names are what is declared.
        if case .union(let union) = type.kind, union.selectsByEventName { return union.variants.compactMap(\.eventName) }
        guard let tagged = taggedMessageUnion(type) else { return nil }
        return tagged.union.variants.flatMap(\.tags)
    }

    /// The enum of a channel's messages chosen by a property, its cases and that property; `nil` for
    /// other types, and for an enum with a case named `eventType` (the reporting property would clash).
    private func taggedMessageUnion(_ type: NamedType) -> (union: Union, property: String, cases: [Identifier])? {
        guard case .union(let union) = type.kind, case .property(let property) = union.decoding,
              union.variants.contains(where: { !$0.tags.isEmpty }),
              let cases = names.cases[type.id], !cases.contains(where: { $0.name == "eventType" }) else { return nil }
        return (union, property, cases)
    }

    /// `EventTypeReporting` for the enum of a channel's messages chosen by a property: a known case
    /// reports its message's event type, `unknown` the value that chose none.
    private func messageUnionReporting(_ type: NamedType, _ tagged: (union: Union, property: String, cases: [Identifier])) -> Declaration {
        let (union, property, cases) = tagged
        let string = types.string
        let known = zip(union.variants, cases).map { variant, name in (pattern: ".\(name)" as Code, value: Code.literal(variant.tags.first ?? "")) }
        // `unknown`: the value that chose no case, or "" when the event has none.
        let unknown: [Statement] = [
            .code("guard case .string(let type)? = value[\(literal: property)] else { return \(literal: "") }"), .code("return type"),
        ]
        let body: [Statement]
        if known.count <= ModelsStructure.largestCheckedSwitch {
            body = [.switch("self", known.map { SwitchCase(pattern: $0.pattern, body: [.code("return \($0.value)")]) }
                + [SwitchCase(pattern: ".unknown(let value)", body: unknown)])]
        } else {
            body = known.map { .code("if case \($0.pattern) = self { return \($0.value) }") }
                + [.code("guard case .unknown(let value) = self else { return \(literal: "") }")] + unknown
        }
        return Declaration(spi: types.spi(for: access), .type(TypeDeclaration(
            keyword: .extension, name: names.qualifiedName(ofType: type.id), conformances: [types.runtime("EventTypeReporting")],
            members: [Declaration(.variable(Variable(
                access: access, binding: .var, name: Identifier("eventType"), type: string, getter: body)))])))
    }

    private func reportsEventType(_ type: NamedType) -> Bool {
        guard case .object(let properties) = type.kind,
              let index = properties.firstIndex(where: { $0.jsonName == "eventType" }) else { return false }
        let property = properties[index]
        return property.type == .string && !property.isOptional && names.properties[type.id]?[index].name == "eventType"
    }

    private func subscription(_ named: SwiftNaming.NamedChannel) -> Declaration {
        let channel = named.channel
        let segment = types.runtime("ChannelSegment")
        let parameterError = types.runtime("ChannelParameterError")
        let string = types.string
        let parameters = Array(zip(channel.parameters, named.parameters))
        // A parameter named `self` needs another local name inside the initializers.
        let locals = parameters.map { $0.1.name == "self" ? Identifier("self_") : $0.1 }

        var members: [Declaration] = [
            Declaration(.typeAlias(TypeAlias(access: access, name: Identifier("Event"), type: types.type(channel.message.payload)))),
            Declaration(.variable(Variable(
                access: access, isStatic: true, binding: .let, name: Identifier("template"),
                value: .code("\(names.channelsNamespace).\(named.constant)")))),
            Declaration(.variable(Variable(
                access: access, isStatic: true, binding: .let, name: Identifier("eventType"), type: "\(string)?",
                value: .code(channel.message.name.map(Code.literal) ?? "nil")))),
        ]
        // What only the runtime reads (`@_spi(Generated)`), each where the spec sets it.
        func runtimeFact(_ name: String, _ type: Code, _ value: Expression, _ documentation: String) {
            members.append(Declaration(
                documentation: DocComment([documentation]), spi: types.spi(for: access),
                .variable(Variable(access: access, isStatic: true, binding: .let, name: Identifier(name), type: type, value: value))))
        }
        let stringSet: Code = "\(types.swift("Set"))<\(string)>"
        if let declared = declaredEventTypes(channel) {
            runtimeFact("eventTypes", stringSet, .array(declared.map(Code.literal)), "Every event type the spec declares for the channel's messages.")
        }
        if channel.message.isText, api.channelRules == .serverSentEvents {
            runtimeFact("eventsAreText", types.swift("Bool"), .code("true"), "A `text/*` message: each event is the text as the server sent it.")
        }
        if channel.isOwnStream {
            runtimeFact("isOwnStream", types.swift("Bool"), .code("true"), "Each instance is its own stream (`x-request-stream`), whose events name their message.")
        }
        if !channel.finalEventNames.isEmpty {
            runtimeFact("finalEventNames", stringSet, .array(channel.finalEventNames.map(Code.literal)),
                        "The messages that end the stream (`x-ends-stream`): it finishes after one of them.")
        }
        if !channel.errorEventNames.isEmpty {
            runtimeFact("errorEventNames", stringSet, .array(channel.errorEventNames.map(Code.literal)),
                        "The messages that are the service's in-band errors (`x-stream-error`).")
        }
        if let shared = channel.sharedAddress {
            let routing = types.runtime("SharedAddressRouting")
            let values = Code.joined(shared.otherChannelsValues.map { "\(literal: $0)" }, separator: ", ")
            runtimeFact("sharedAddress", "\(routing)?", .code("\(routing)(property: \(literal: shared.property), otherChannelsValues: [\(values)])"),
                        "Other channels have this address: their events are told apart by `\(shared.property)`.")
        }
        if channel.address.isOpen {
            members += openAddressMembers(channel)
            return subscriptionDeclaration(named, members: members)
        }
        members += parameters.map { parameter, name in
            Declaration(
                documentation: SwiftTypes.documentation(parameter.documentation, remark: nil),
                .variable(Variable(access: access, binding: .let, name: name, type: segment)))
        }
        members.append(Declaration(.function(Function(
            access: access, name: .initializer,
            parameters: zip(parameters, locals).map { parameter, local in
                Parameter(label: parameter.1, localName: local == parameter.1 ? nil : local, type: segment)
            },
            body: zip(parameters, locals).map { parameter, local in .code("self.\(parameter.1) = \(local)") }))))
        if !parameters.isEmpty {
            let arguments = zip(parameters, locals).map { parameter, local -> Code in
                "\(parameter.1): \(types.channelSegment("\(local)", parameter: parameter.0.name))"
            }
            members.append(Declaration(
                documentation: DocComment(["Validates each value against the channel segment rules before it can form a channel path."]),
                .function(Function(
                    access: access, name: .initializer,
                    parameters: zip(parameters, locals).map { parameter, local in
                        Parameter(label: parameter.1, localName: local == parameter.1 ? nil : local, type: string)
                    },
                    effects: "throws(\(parameterError))",
                    body: [.code("self.init(\(Code.joined(arguments, separator: ", ")))")]))))
        }
        members.append(Declaration(.variable(Variable(
            access: access, binding: .var, name: Identifier("channel"), type: string, getter: [.code(channelPath(named))]))))
        return subscriptionDeclaration(named, members: members)
    }

    private func subscriptionDeclaration(_ named: SwiftNaming.NamedChannel, members: [Declaration]) -> Declaration {
        let channel = named.channel
        let shownAddress = channel.address.isOpen ? "given by each instance (the spec leaves the address open)" : "`\(channel.address.text)`"
        return Declaration(
            documentation: SwiftTypes.documentation(
                channel.documentation, fallback: "Subscription to \(shownAddress).",
                notes: ["Channel: \(shownAddress)"] + (channel.message.name.map { ["Event type: `\($0)`"] } ?? []),
                remark: channel.origin.reference),
            .type(TypeDeclaration(
                access: access, keyword: .struct, name: .identifier(named.subscription),
                conformances: [types.runtime("ChannelSubscription")], members: members)))
    }

    /// A channel whose address the spec leaves open (known only at runtime): each instance is made
    /// with its whole path, checked by the target transport's rules; there is nothing for the
    /// source's parameters to fill in.
    private func openAddressMembers(_ channel: Channel) -> [Declaration] {
        let string = types.string
        let segment = types.runtime("ChannelSegment")
        return [
            Declaration(
                documentation: DocComment(["The channel path this instance subscribes to."]),
                .variable(Variable(access: access, binding: .let, name: Identifier("channel"), type: string))),
            Declaration(
                documentation: DocComment([
                    "Checks `channel` by the channel rules of \(api.channelRules.transportName) before it can be subscribed to.",
                ]),
                .function(Function(
                    access: access, name: .initializer,
                    parameters: [Parameter(label: Identifier("channel"), type: string)],
                    effects: "throws(\(types.runtime("ChannelPathError")))",
                    body: [
                        .code("try \(types.runtime("ChannelPathError")).check(channel, rules: \(types.channelRulesCode), allowingWildcard: true)"),
                        .code("self.channel = channel"),
                    ]))),
            Declaration(
                documentation: DocComment(["The spec leaves the address open: no parameters name it, so make instances with `init(channel:)`."]),
                spi: types.spi(for: access),
                .function(Function(
                    access: access, isStatic: true, name: .function(Identifier("channel")),
                    parameters: [Parameter(label: Identifier("for"), localName: Identifier("parameters"), type: "[\(string): \(segment)]")],
                    effects: "throws(\(types.runtime("ChannelParameterError")))",
                    returnType: string,
                    body: [.code("throw .missing(parameter: \(literal: "channel"), channel: \(literal: channel.origin.reference))")]))),
        ]
    }

    /// The concrete path: the address with each parameter's validated value interpolated.
    private func channelPath(_ named: SwiftNaming.NamedChannel) -> Code {
        let channel = named.channel
        let byName = Dictionary(uniqueKeysWithValues: zip(channel.parameters.map(\.name), named.parameters))
        var parts: [Code.InterpolatedPart] = channel.address.text.hasPrefix("/") ? [.text("/")] : []
        for (index, segment) in channel.address.segments.enumerated() {
            if index > 0 { parts.append(.text("/")) }
            for part in segment {
                switch part {
                case .literal(let text): parts.append(.text(text))
                case .parameter(let name): parts.append(.code("self.\(byName[name]!).value"))
                }
            }
        }
        return Code(pieces: [.interpolatedString(parts)])
    }
}
