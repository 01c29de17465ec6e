import ChannelSpec

/// `Notifier.swift`: a protocol with one `AsyncStream` method per receive operation, and the
/// notifier that serves them from a `ChannelEventSource` (the runtime connection or a test double).
struct NotifierRenderer {
    let api: ChannelAPI
    let names: SwiftNaming
    let models: ModelsRenderer
    let access: String

    func render(header: String) -> String {
        var writer = SwiftWriter(header: header)
        writer.line("import ChannelRuntime")
        writer.line("import Foundation")
        writer.line()
        let methods = api.receivers.map { ($0.operation, $0.channel, names.methods[$0.operation.id]!) }

        writer.documentation(
            Documentation(summary: "Typed event streams of \(api.title) \(api.version), one per channel.", description: api.description),
            remark: nil)
        writer.block("\(access)protocol \(names.notifierProtocol): Sendable") { writer in
            for (index, (operation, channel, name)) in methods.enumerated() {
                if index > 0 { writer.line() }
                writer.documentation(operation.documentation, fallback: "Events on `\(channel.address.text)`.", remark: operation.origin.reference)
                writer.line("func \(SwiftIdentifiers.escaped(name))() async -> AsyncStream<\(eventType(channel))>")
            }
            for (parameter, swiftName) in names.notifierParameters {
                writer.line()
                setterDocumentation(parameter, swiftName, into: &writer)
                writer.line("func \(setter(swiftName))(_ \(local(swiftName)): String) async throws(ChannelParameterError)")
            }
        }
        writer.line()
        writer.line("/// Serves every stream of `\(names.notifierProtocol)` from one `ChannelEventSource`.")
        writer.line("///")
        writer.line("/// Each method returns a stream of typed events for the source's current parameters")
        writer.line("/// (such as the signed-in user id); streams stay open across reconnects.")
        writer.block("\(access)final class \(names.notifier): \(names.notifierProtocol)") { writer in
            writer.line("\(access)let source: any ChannelEventSource")
            writer.line()
            writer.block("\(access)init(source: any ChannelEventSource)") { writer in
                writer.line("self.source = source")
            }
            for (operation, channel, name) in methods {
                writer.line()
                writer.documentation(operation.documentation, fallback: "Events on `\(channel.address.text)`.", remark: operation.origin.reference)
                writer.block("\(access)func \(SwiftIdentifiers.escaped(name))() async -> AsyncStream<\(eventType(channel))>") { writer in
                    writer.line("await source.events(\(names.subscriptions[channel.key]!).self)")
                }
            }
            for (parameter, swiftName) in names.notifierParameters {
                writer.line()
                setterDocumentation(parameter, swiftName, into: &writer)
                writer.block("\(access)func \(setter(swiftName))(_ \(local(swiftName)): String) async throws(ChannelParameterError)") { writer in
                    writer.line("await source.setParameter(\(parameter.swiftLiteral), to: try ChannelSegment(\(local(swiftName)), parameter: \(parameter.swiftLiteral)))")
                }
            }
        }
        return writer.text
    }

    private func setter(_ swiftName: String) -> String { "set" + SwiftIdentifiers.upperCamel(swiftName) }

    private func local(_ swiftName: String) -> String { swiftName == "self" ? "value" : SwiftIdentifiers.escaped(swiftName) }

    private func setterDocumentation(_ parameter: String, _ swiftName: String, into writer: inout SwiftWriter) {
        writer.line("/// Sets the `{\(parameter)}` channel parameter; every open stream moves to the channels it names.")
        writer.line("///")
        writer.line("/// - Throws: `ChannelParameterError` when the value is not a valid channel segment")
        writer.line("///   (1–50 characters of A–Z, a–z, 0–9 and '-'); nothing changes then.")
    }

    private func eventType(_ channel: Channel) -> String {
        models.swiftType(channel.message.payload, in: nil)
    }
}
