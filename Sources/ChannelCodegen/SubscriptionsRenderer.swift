import ChannelSpec

/// `Subscriptions.swift`: one `ChannelSubscription` per channel, carrying its validated parameters.
struct SubscriptionsRenderer {
    let api: ChannelAPI
    let names: SwiftNaming
    let models: ModelsRenderer
    let access: String

    func render(header: String) -> String {
        var writer = SwiftWriter(header: header)
        writer.line("import ChannelRuntime")
        writer.line("import Foundation")
        for channel in api.channels {
            writer.line()
            render(channel, into: &writer)
        }
        // Payloads with a required `eventType` string report it, so the runtime can drop mismatches.
        var reported: Set<String> = []
        for channel in api.channels {
            guard case .named(let id) = channel.message.payload, reportsEventType(id), reported.insert(id).inserted,
                  let name = names.types[id]?.qualified else { continue }
            writer.line()
            writer.line("extension \(name): EventTypeReporting {}")
        }
        return writer.text
    }

    private func reportsEventType(_ id: String) -> Bool {
        guard let type = api.types.first(where: { $0.id == id }), case .object(let properties) = type.kind,
              let index = properties.firstIndex(where: { $0.jsonName == "eventType" }) else { return false }
        let property = properties[index]
        return property.type == .string && !property.isOptional && names.properties[id]?[index] == "eventType"
    }

    private func render(_ channel: Channel, into writer: inout SwiftWriter) {
        let typeName = names.subscriptions[channel.key]!
        let parameterNames = names.parameters[channel.key] ?? []
        let parameters = Array(zip(channel.parameters, parameterNames))
        var docs = channel.documentation
        docs.notes = ["Channel: `\(channel.address.text)`"] + (channel.message.name.map { ["Event type: `\($0)`"] } ?? [])
        writer.documentation(docs, fallback: "Subscription to `\(channel.address.text)`.", remark: channel.origin.reference)
        writer.block("\(access)struct \(typeName): ChannelSubscription") { writer in
            writer.line("\(access)typealias Event = \(models.swiftType(channel.message.payload, in: nil))")
            writer.line()
            writer.line("\(access)static let template = \(names.channelsNamespace).\(SwiftIdentifiers.escaped(names.channelConstants[channel.key]!))")
            writer.line("\(access)static let eventType: String? = \(channel.message.name.map(\.swiftLiteral) ?? "nil")")
            writer.line()
            for (parameter, name) in parameters {
                writer.documentation(parameter.documentation, remark: nil)
                writer.line("\(access)let \(SwiftIdentifiers.escaped(name)): ChannelSegment")
            }
            if !parameters.isEmpty { writer.line() }

            let signature = parameters.map { "\(label($0.1)): ChannelSegment" }.joined(separator: ", ")
            writer.block("\(access)init(\(signature))") { writer in
                for (_, name) in parameters {
                    writer.line("self.\(SwiftIdentifiers.escaped(name)) = \(local(name))")
                }
            }
            if !parameters.isEmpty {
                writer.line()
                writer.line("/// Validates each value against the channel segment rules before it can form a channel path.")
                let stringSignature = parameters.map { "\(label($0.1)): String" }.joined(separator: ", ")
                writer.block("\(access)init(\(stringSignature)) throws(ChannelParameterError)") { writer in
                    let arguments = parameters.map { parameter, name in
                        "\(SwiftIdentifiers.escaped(name)): try ChannelSegment(\(local(name)), parameter: \(parameter.name.swiftLiteral))"
                    }
                    writer.line("self.init(\(arguments.joined(separator: ", ")))")
                }
            }
            writer.line()
            writer.block("\(access)init(parameters: [String: ChannelSegment]) throws(ChannelParameterError)") { writer in
                if parameters.isEmpty { writer.line("self.init()") ; return }
                for (parameter, name) in parameters {
                    writer.block("guard let \(local(name)) = parameters[\(parameter.name.swiftLiteral)] else") { writer in
                        writer.line("throw .missing(parameter: \(parameter.name.swiftLiteral), channel: Self.template.address)")
                    }
                }
                writer.line("self.init(\(parameters.map { "\(SwiftIdentifiers.escaped($0.1)): \(local($0.1))" }.joined(separator: ", ")))")
            }
            writer.line()
            let dictionary = parameters.isEmpty ? "[:]" : "[" + parameters.map { "\($0.0.name.swiftLiteral): self.\(SwiftIdentifiers.escaped($0.1))" }.joined(separator: ", ") + "]"
            writer.line("\(access)var parameters: [String: ChannelSegment] { \(dictionary) }")
            writer.line()
            writer.line("\(access)var channel: String { \(channelPath(channel, parameterNames: parameterNames)) }")
        }
    }

    /// An initializer parameter: the label, plus another internal name where the label is `self`
    /// (a parameter named `self` would shadow `self`).
    private func label(_ name: String) -> String {
        name == "self" ? "`self` self_" : SwiftIdentifiers.escaped(name)
    }

    private func local(_ name: String) -> String {
        name == "self" ? "self_" : SwiftIdentifiers.escaped(name)
    }

    /// The concrete path as string interpolation of the validated segments.
    private func channelPath(_ channel: Channel, parameterNames: [String]) -> String {
        let byName = Dictionary(uniqueKeysWithValues: zip(channel.parameters.map(\.name), parameterNames))
        var literal = ""
        if channel.address.text.hasPrefix("/") { literal += "/" }
        literal += channel.address.segments.map { parts in
            parts.map { part -> String in
                switch part {
                case .literal(let text): return text
                case .parameter(let name): return "\\(self.\(SwiftIdentifiers.escaped(byName[name] ?? name)).value)"
                }
            }.joined()
        }.joined(separator: "/")
        return "\"\(literal)\""
    }
}
