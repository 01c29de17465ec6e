import ChannelSpec

/// `Mocks.swift` (`generate: mocks`): a test double of the notifier protocol. Tests push typed
/// events with `mock.devicePresence.send(_:)`; every consumer of the matching method receives them.
struct MocksStructure {
    let api: ChannelAPI
    let names: SwiftNaming
    let types: SwiftTypes
    let access: AccessModifier?
    /// The module holding the client; `nil` when the mocks are compiled into the client's module.
    let clientModule: Identifier?

    func file(header: [String]) -> SwiftFile {
        let broadcaster = types.runtimeTesting("EventBroadcaster")
        let delivery = Identifier("delivery"), connection = Identifier("connection")
        var members: [Declaration] = [
            Declaration(
                documentation: DocComment(["When sent events reach the streams: at once, at `flush()`, or after a delay on a clock."]),
                .variable(Variable(access: access, binding: .let, name: delivery, type: "\(types.runtimeTesting("MockScheduler"))"))),
            Declaration(
                documentation: DocComment(["The connection state `connectionStates()` reports; `.connected` at first. Send others\n(`.reconnecting(after:because:)`, …) to test how the app shows them."]),
                .variable(Variable(
                    access: access, binding: .let, name: connection,
                    value: .code("\(types.runtimeTesting("StateBroadcaster"))<\(types.runtime("ConnectionState"))>(.connected)")))),
        ]
        // Broadcasters and records: property name, element type; built in `init` on the one scheduler.
        var broadcasters: [(name: Identifier, element: Code, documentation: String)] = names.channelNames.receivers.map { named in
            (named.mockProperty, types.type(named.channel.channel.message.payload), "Events for `\(named.method.name)()`.")
        }
        broadcasters += names.channelNames.publishers.map { named in
            (named.mockProperty, "[\(types.type(named.channel.channel.message.payload))]",
             "Every batch of events passed to `\(named.method.name)(_:)`, in order.")
        }
        broadcasters += names.notifierParameters.map { parameter in
            (parameter.mockChanges, types.string,
             "Every valid value passed to `\(parameter.setter.name)(_:)` (the `{\(parameter.name)}` parameter), in order.")
        }
        members += broadcasters.map { name, element, documentation in
            Declaration(
                documentation: DocComment([documentation]),
                .variable(Variable(access: access, binding: .let, name: name, type: "\(broadcaster)<\(element)>")))
        }
        members.append(Declaration(
            documentation: DocComment(["A mock whose events reach the streams as `delivery` says (at once by default)."]),
            .function(Function(
                access: access, name: .initializer,
                parameters: [Parameter(label: delivery, type: types.runtimeTesting("MockDelivery"), defaultValue: ".immediate")],
                body: [.code("self.\(delivery) = \(types.runtimeTesting("MockScheduler"))(\(delivery))")]
                    + broadcasters.map { .code("self.\($0.name) = \(broadcaster)(scheduler: self.\(delivery))") }))))
        members.append(Declaration(
            documentation: DocComment(["Hands out every event waiting for its delivery (`.manual`, or `.delayed` before its time)."]),
            .function(Function(access: access, name: .function(Identifier("flush")), body: [.code("self.\(delivery).flush()")]))))
        members.append(Declaration(
            documentation: DocComment(["Back to a new mock's state between tests: every stream ends, what was sent, recorded\nor waiting is forgotten, and the connection is `.connected` again."]),
            .function(Function(
                access: access, name: .function(Identifier("reset")),
                body: [.code("self.\(delivery).discardPending()"), .code("self.\(connection).reset()")]
                    + broadcasters.map { .code("self.\($0.name).reset()") }))))
        members.append(NotifierStructure.connectionStatesMethod(types: types, access: access, body: [.code("self.\(connection).stream()")]))
        members += names.channelNames.receivers.map { named in
            let (property, channel) = (named.mockProperty, named.channel.channel)
            let open = channel.address.isOpen
            return Declaration(
                documentation: open ? DocComment(["Every instance gets the events sent to `\(property.name)`."]) : nil,
                .function(Function(
                    access: access, name: .function(named.method),
                    parameters: open
                        ? [Parameter(label: Identifier("for"), localName: Identifier("subscription"), type: "\(named.channel.subscription)")]
                        : [],
                    effects: "async", returnType: "\(types.swift("AsyncStream"))<\(types.type(channel.message.payload))>",
                    body: [.code("self.\(property).stream()")])))
        }
        if !names.channelNames.receivers.isEmpty { members += instanceAndEnvelopeMethods() }
        members += names.channelNames.publishers.map { named in
            let (property, channel) = (named.mockProperty, named.channel.channel)
            return Declaration(
                documentation: DocComment(["Checks the event count like the real notifier, then records the events in `\(property.name)`."]),
                .function(Function(
                    access: access, name: .function(named.method),
                    parameters: [Parameter(label: nil, localName: Identifier("events"), type: "[\(types.type(channel.message.payload))]")],
                    effects: "async throws(\(types.runtime("ChannelPublishError")))",
                    body: [
                        .block("guard (1...5).contains(events.count) else", [.code("throw .eventCount(events.count)")]),
                        .code("self.\(property).send(events)"),
                    ])))
        }
        members += names.notifierParameters.map { parameter in
            let local = parameter.swiftName.name == "self" ? Identifier("value") : parameter.swiftName
            return Declaration(
                documentation: DocComment(["Validates like the real notifier, then records the value."]),
                .function(Function(
                    access: access, name: .function(parameter.setter),
                    parameters: [Parameter(label: nil, localName: local, type: types.string)],
                    effects: "async throws(\(types.runtime("ChannelParameterError")))",
                    body: [
                        .code("_ = \(types.channelSegment("\(local)", parameter: parameter.name))"),
                        .code("self.\(parameter.mockChanges).send(\(local))"),
                    ])))
        }

        var example = "```swift\n"
        if let first = api.operations.first, let property = names.channelNames.mockProperties[first.id] {
            example += """
                let notifier = \(names.mockType.name)()           // or (delivery: .manual), then notifier.flush()
                // … hand `notifier` to the code under test; an event sent before it listens waits for it …
                notifier.\(property.name).send(event)
                notifier.connection.send(.reconnecting(after: .seconds(2), because: .dropped))
                notifier.send(.resumed(after: .seconds(30)))    // to every `updates(_:)` stream

                """
        }
        example += "```"
        let mock = Declaration(
            documentation: DocComment([
                "A test double of `\(names.notifierProtocol.name)` for app tests: push typed events into its streams\nand inspect the parameters the app set, with no connection at all.",
                example,
            ]),
            .type(TypeDeclaration(
                access: access, keyword: .finalClass, name: .identifier(names.mockType),
                conformances: [.identifier(names.notifierProtocol)], members: members)))
        // The mock's building blocks (broadcasters, the delivery schedule) are test support, not the
        // runtime apps ship: ChannelRuntimeTesting, whose interface for generated mocks is `@_spi(Generated)`.
        let imports = [Import.runtime, .runtimeTestingForGeneratedMocks, .foundation] + (clientModule.map { [Import(module: $0)] } ?? [])
        return SwiftFile(header: header, imports: imports, declarations: [mock])
    }

    /// `values(for:)` and `envelopes(_:)` read the broadcaster of the subscription's channel
    /// (its first receive operation's).
    private func instanceAndEnvelopeMethods() -> [Declaration] {
        var seen: Set<String> = []
        let cases: [SwitchCase] = names.channelNames.receivers.compactMap { named in
            guard seen.insert(named.channel.channel.key).inserted else { return nil }
            return SwitchCase(
                pattern: "is \(named.channel.subscription).Type",
                body: [.code("broadcaster = self.\(named.mockProperty)")])
        }
        let eventBroadcaster = types.runtimeTesting("EventBroadcaster")
        var methods = NotifierStructure.instanceAndEnvelopeMethods(
            types: types, access: access,
            values: [.code("self.broadcaster(of: Subscription.self).stream()")],
            envelopes: [.code("self.broadcaster(of: Subscription.self).envelopes(channel: Subscription.template.address, eventType: Subscription.eventType)")],
            updates: [.code("self.broadcaster(of: Subscription.self).updates()")])
        methods[0].documentation = DocComment(["Every instance gets the events sent to its channel's broadcaster."])
        methods[1].documentation = DocComment(["The events sent to the channel's broadcaster, in envelopes numbered from 1."])
        methods[2].documentation = DocComment(["The events sent to the channel's broadcaster, and what `send(_:)` says happened between them."])
        var seenChannels: Set<String> = []
        let receiving = names.channelNames.receivers.compactMap { named in
            seenChannels.insert(named.channel.channel.key).inserted ? named.mockProperty : nil
        }
        methods.append(Declaration(
            documentation: DocComment([
                "Tells every `updates(_:)` stream of a status, a gap or a resumption, in order with the events\n(`.resumed(after: .seconds(30))`: the app should catch up).",
            ]),
            .function(Function(
                access: access, name: .function(Identifier("send")),
                parameters: [Parameter(label: nil, localName: Identifier("update"), type: types.runtimeTesting("MockUpdate"))],
                body: receiving.map { .code("self.\($0).send(update)") }))))
        methods.append(Declaration(
            documentation: DocComment(["A subscription of another API is a mistake in the test: it stops the test with its name."]),
            .function(Function(
                access: .private, name: .function(Identifier("broadcaster")), genericParameters: "<Subscription: \(types.runtime("ChannelSubscription"))>",
                parameters: [Parameter(label: Identifier("of"), localName: Identifier("subscription"), type: "Subscription.Type")],
                returnType: "\(eventBroadcaster)<Subscription.Event>",
                body: [
                    .code("let broadcaster: (any \(types.swift("Sendable")))?"),
                    .switch("subscription", cases + [SwitchCase(pattern: nil, body: [.code("broadcaster = nil")])]),
                    .block("guard let typed = broadcaster as? \(eventBroadcaster)<Subscription.Event> else", [
                        .code("preconditionFailure(\"\\(subscription) is not a channel of \(names.notifierProtocol)\")"),
                    ]),
                    .code("return typed"),
                ]))))
        return methods
    }
}
