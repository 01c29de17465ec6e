import ChannelSpec

/// `Notifier.swift`: a protocol with one `AsyncStream` method per receive operation, and the
/// notifier that serves them from a `ChannelEventSource` (the runtime connection or a test double).
struct NotifierStructure {
    let api: ChannelAPI
    let names: SwiftNaming
    let types: SwiftTypes
    let access: AccessModifier?

    func file(header: [String]) -> SwiftFile {
        let source = types.runtime("ChannelEventSource")
        let protocolDeclaration = Declaration(
            documentation: SwiftTypes.documentation(
                Documentation(summary: "Typed event streams of \(api.displayName), one per channel.", description: api.description),
                remark: nil),
            .type(TypeDeclaration(
                access: access, keyword: .protocol, name: .identifier(names.notifierProtocol), conformances: [types.swift("Sendable")],
                members: names.channelNames.receivers.map { method($0, implemented: false) }
                    + (names.channelNames.receivers.isEmpty ? [] : Self.instanceAndEnvelopeMethods(types: types, access: nil))
                    + names.channelNames.publishers.map { publishMethod($0, implemented: false) }
                    + names.notifierParameters.map { setter($0, body: nil) }
                    + [Self.connectionStatesMethod(types: types, access: nil, body: nil)])))

        var members: [Declaration] = [
            Declaration(.variable(Variable(access: access, binding: .let, name: Identifier("source"), type: "any \(source)"))),
            Declaration(.function(Function(
                access: access, name: .initializer,
                parameters: [Parameter(label: Identifier("source"), type: "any \(source)")],
                body: [.code("self.source = source")]))),
        ]
        members += names.channelNames.receivers.map { method($0, implemented: true) }
        if !names.channelNames.receivers.isEmpty {
            members += Self.instanceAndEnvelopeMethods(
                types: types, access: access,
                values: [.code("await self.source.events(for: subscription)")],
                envelopes: [.code("await self.source.envelopes(subscription)")],
                updates: [.code("await self.source.updates(subscription)")])
        }
        members += names.channelNames.publishers.map { publishMethod($0, implemented: true) }
        members += names.notifierParameters.map { parameter in
            setter(parameter, body: [
                .code("await self.source.setParameter(\(literal: parameter.name), to: \(types.channelSegment("\(local(parameter))", parameter: parameter.name)))"),
            ])
        }
        members.append(Self.connectionStatesMethod(types: types, access: access, body: [.code("await self.source.connectionStateUpdates()")]))
        let notifier = Declaration(
            documentation: DocComment([
                "Serves every stream of `\(names.notifierProtocol.name)` from one `ChannelEventSource`.",
                "Each method returns a stream of typed events for the source's current parameters\n(such as the signed-in user id); streams stay open across reconnects.",
            ]),
            .type(TypeDeclaration(
                access: access, keyword: .finalClass, name: .identifier(names.notifier),
                conformances: [.identifier(names.notifierProtocol)], members: members)))
        return SwiftFile(
            header: header, imports: [.runtime, .foundation],
            declarations: [protocolDeclaration, notifier])
    }

    /// One method per receive operation: its events for the source's parameters, or, where the
    /// address is open, for the channel instance the caller names.
    private func method(_ named: SwiftNaming.NamedOperation, implemented: Bool) -> Declaration {
        let (operation, channel, subscription) = (named.operation, named.channel.channel, named.channel.subscription)
        let returnType: Code = "\(types.swift("AsyncStream"))<\(types.type(channel.message.payload))>"
        // No source parameters name an open address: only its instances can be subscribed to.
        guard channel.address.isOpen else {
            return Declaration(
                documentation: SwiftTypes.documentation(
                    operation.documentation, fallback: "Events on `\(channel.address.text)`.", remark: operation.origin.reference),
                isDeprecated: operation.documentation.isDeprecated,
                .function(Function(
                    access: implemented ? access : nil, name: .function(named.method), effects: "async",
                    returnType: returnType, body: implemented ? [.code("await self.source.events(\(subscription).self)")] : nil)))
        }
        return Declaration(
            documentation: SwiftTypes.documentation(
                operation.documentation, fallback: "Events on the channel `subscription` names.",
                notes: ["Note: The spec leaves the channel's address open: each instance names its channel."],
                remark: operation.origin.reference),
            isDeprecated: operation.documentation.isDeprecated,
            .function(Function(
                access: implemented ? access : nil, name: .function(named.method),
                parameters: [Parameter(label: Identifier("for"), localName: Identifier("subscription"), type: "\(subscription)")],
                effects: "async", returnType: returnType,
                body: implemented ? [.code("await self.source.events(for: subscription)")] : nil)))
    }

    /// Three generic methods serve every receive operation: one instance of a channel whatever the
    /// source's parameters, a channel's events in envelopes (channel, event type, arrival, sequence),
    /// and its updates (events with statuses, gaps and resumptions).
    static func instanceAndEnvelopeMethods(
        types: SwiftTypes, access: AccessModifier?, values: [Statement]? = nil, envelopes: [Statement]? = nil, updates: [Statement]? = nil
    ) -> [Declaration] {
        let stream = types.swift("AsyncStream")
        let subscription = types.runtime("ChannelSubscription")
        return [
            Declaration(
                documentation: DocComment([
                    "The events of one instance of a channel, whatever the source's parameters\n(any number of instances on one connection).",
                ]),
                .function(Function(
                    access: access, name: .function(Identifier("values")), genericParameters: "<Subscription: \(subscription)>",
                    parameters: [Parameter(label: Identifier("for"), localName: Identifier("subscription"), type: "Subscription")],
                    effects: "async", returnType: "\(stream)<Subscription.Event>", body: values))),
            Declaration(
                documentation: DocComment([
                    "A channel's events for the source's parameters, each with its channel, event type,\narrival time and sequence number.",
                ]),
                .function(Function(
                    access: access, name: .function(Identifier("envelopes")), genericParameters: "<Subscription: \(subscription)>",
                    parameters: [Parameter(label: nil, localName: Identifier("subscription"), type: "Subscription.Type")],
                    effects: "async", returnType: "\(stream)<\(types.runtime("ChannelEnvelope"))<Subscription.Event>>",
                    body: envelopes))),
            Declaration(
                documentation: DocComment([
                    "A channel's events for the source's parameters with what happened between them: status\nchanges, gaps (events lost) and resumptions after the connection was down.",
                ]),
                .function(Function(
                    access: access, name: .function(Identifier("updates")), genericParameters: "<Subscription: \(subscription)>",
                    parameters: [Parameter(label: nil, localName: Identifier("subscription"), type: "Subscription.Type")],
                    effects: "async", returnType: "\(types.runtime("ChannelUpdates"))<Subscription.Event>",
                    body: updates))),
        ]
    }

    /// The connection's state and its changes, so app code (a "reconnecting" banner) reads it
    /// through the protocol, and the mock can drive it in tests.
    static func connectionStatesMethod(types: SwiftTypes, access: AccessModifier?, body: [Statement]?) -> Declaration {
        Declaration(
            documentation: DocComment([
                "The connection's state now, then each change (`.connecting`, `.connected`,\n`.reconnecting(after:because:)`, …).",
            ]),
            .function(Function(
                access: access, name: .function(Identifier("connectionStates")), effects: "async",
                returnType: "\(types.swift("AsyncStream"))<\(types.runtime("ConnectionState"))>", body: body)))
    }

    /// A `send` operation: publishes typed events to the channel for the source's parameters.
    private func publishMethod(_ named: SwiftNaming.NamedOperation, implemented: Bool) -> Declaration {
        let (operation, channel, subscription) = (named.operation, named.channel.channel, named.channel.subscription)
        return Declaration(
            documentation: SwiftTypes.documentation(
                operation.documentation, fallback: "Publishes to `\(channel.address.text)`.",
                notes: ["Throws: `ChannelPublishError` for 0 or more than 5 events, an event over 240 KB (nothing is\n  sent then), a missing channel parameter, or a refused publish."],
                remark: operation.origin.reference),
            isDeprecated: operation.documentation.isDeprecated,
            .function(Function(
                access: implemented ? access : nil, name: .function(named.method),
                parameters: [Parameter(label: nil, localName: Identifier("events"), type: "[\(types.type(channel.message.payload))]")],
                effects: "async throws(\(types.runtime("ChannelPublishError")))",
                body: implemented ? [.code("try await self.source.publish(events, to: \(subscription).self)")] : nil)))
    }

    /// The setter's argument: the parameter's Swift name, or `value` where that name is `self`.
    private func local(_ parameter: SwiftNaming.NotifierParameter) -> Identifier {
        parameter.swiftName.name == "self" ? Identifier("value") : parameter.swiftName
    }

    private func setter(_ parameter: SwiftNaming.NotifierParameter, body: [Statement]?) -> Declaration {
        Declaration(
            documentation: DocComment([
                "Sets the `{\(parameter.name)}` channel parameter; every open stream moves to the channels it names.",
                "- Throws: `ChannelParameterError` when the value is not a valid channel segment\n  (1–50 characters of A–Z, a–z, 0–9 and '-'); nothing changes then.",
            ]),
            .function(Function(
                access: body == nil ? nil : access, name: .function(parameter.setter),
                parameters: [Parameter(label: nil, localName: local(parameter), type: types.string)],
                effects: "async throws(\(types.runtime("ChannelParameterError")))", body: body)))
    }
}
