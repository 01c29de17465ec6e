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
        let broadcaster = types.runtime("EventBroadcaster")
        var members: [Declaration] = api.receivers.map { operation, channel in
            Declaration(
                documentation: DocComment(["Events for `\(names.methods[operation.id]!.name)()`."]),
                .variable(Variable(
                    access: access, binding: .let, name: names.mockProperties[operation.id]!,
                    value: .code("\(broadcaster)<\(types.type(channel.message.payload))>()"))))
        }
        members += api.publishers.map { operation, channel in
            Declaration(
                documentation: DocComment(["Every batch of events passed to `\(names.methods[operation.id]!.name)(_:)`, in order."]),
                .variable(Variable(
                    access: access, binding: .let, name: names.mockProperties[operation.id]!,
                    value: .code("\(broadcaster)<[\(types.type(channel.message.payload))]>()"))))
        }
        members += names.notifierParameters.map { parameter in
            Declaration(
                documentation: DocComment([
                    "Every valid value passed to `\(parameter.setter.name)(_:)` (the `{\(parameter.name)}` parameter), in order.",
                ]),
                .variable(Variable(access: access, binding: .let, name: parameter.mockChanges, value: .code("\(broadcaster)<\(types.string)>()"))))
        }
        members.append(Declaration(.function(Function(access: access, name: .initializer, body: []))))
        members += api.receivers.flatMap { operation, channel in
            let payload = types.type(channel.message.payload)
            let stream = types.swift("AsyncStream")
            let subscription = names.subscriptions[channel.key]!
            let property = names.mockProperties[operation.id]!
            let forInstance = Declaration(
                documentation: DocComment(["Every instance gets the events sent to `\(property.name)`."]),
                .function(Function(
                    access: access, name: .function(names.methods[operation.id]!),
                    parameters: [Parameter(label: Identifier("for"), localName: Identifier("subscription"), type: "\(subscription)")],
                    effects: "async", returnType: "\(stream)<\(payload)>", body: [.code("self.\(property).stream()")])))
            if channel.address.isOpen { return [forInstance] }
            return [
                Declaration(.function(Function(
                    access: access, name: .function(names.methods[operation.id]!), effects: "async",
                    returnType: "\(stream)<\(payload)>", body: [.code("self.\(property).stream()")]))),
                forInstance,
                Declaration(
                    documentation: DocComment(["The events sent to `\(property.name)`, in envelopes numbered from 1."]),
                    .function(Function(
                        access: access, name: .function(names.envelopeMethods[operation.id]!), effects: "async",
                        returnType: "\(stream)<\(types.runtime("ChannelEnvelope"))<\(payload)>>",
                        body: [.code("self.\(property).envelopes(channel: \(subscription).template.address, eventType: \(subscription).eventType)")]))),
            ]
        }
        members += api.publishers.map { operation, channel in
            let property = names.mockProperties[operation.id]!
            return Declaration(
                documentation: DocComment(["Checks the event count like the real notifier, then records the events in `\(property.name)`."]),
                .function(Function(
                    access: access, name: .function(names.methods[operation.id]!),
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
        if let first = api.operations.first, let property = names.mockProperties[first.id] {
            example += """
                let notifier = \(names.mockType.name)()
                // … hand `notifier` to the code under test, wait for `notifier.\(property.name).consumerCount > 0` …
                notifier.\(property.name).send(event)

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
        let imports = [Import.runtime, .foundation] + (clientModule.map { [Import(module: $0)] } ?? [])
        return SwiftFile(header: header, imports: imports, declarations: [mock])
    }
}
