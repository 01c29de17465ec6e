import ChannelSpec

/// `Mocks.swift` (`generate: mocks`): a test double of the notifier protocol. Tests push typed
/// events with `mock.devicePresence.send(_:)`; every consumer of the matching method receives them.
struct MocksRenderer {
    let api: ChannelAPI
    let names: SwiftNaming
    let models: ModelsRenderer
    let access: String
    let clientModule: String

    func render(header: String) -> String {
        var writer = SwiftWriter(header: header)
        writer.line("import ChannelRuntime")
        writer.line("import Foundation")
        writer.line("import \(clientModule)")
        writer.line()
        writer.line("/// A test double of `\(names.notifierProtocol)` for app tests: push typed events into its streams")
        writer.line("/// and inspect the parameters the app set, with no connection at all.")
        writer.line("///")
        writer.line("/// ```swift")
        if let first = api.operations.first, let property = names.mockProperties[first.id] {
            writer.line("/// let notifier = \(names.mockType)()")
            writer.line("/// // … hand `notifier` to the code under test, wait for `notifier.\(property).consumerCount > 0` …")
            writer.line("/// notifier.\(property).send(event)")
        }
        writer.line("/// ```")
        writer.block("\(access)final class \(names.mockType): \(names.notifierProtocol)") { writer in
            for (operation, channel) in api.receivers {
                let method = names.methods[operation.id]!
                writer.line("/// Events for `\(method)()`.")
                writer.line("\(access)let \(SwiftIdentifiers.escaped(names.mockProperties[operation.id]!)) = EventBroadcaster<\(models.swiftType(channel.message.payload, in: nil))>()")
            }
            for (parameter, swiftName) in names.notifierParameters {
                writer.line("/// Every valid value passed to `set\(SwiftIdentifiers.upperCamel(swiftName))(_:)` (the `{\(parameter)}` parameter), in order.")
                writer.line("\(access)let \(swiftName)Changes = EventBroadcaster<String>()")
            }
            writer.line()
            writer.line("\(access)init() {}")
            for (operation, channel) in api.receivers {
                let method = names.methods[operation.id]!
                writer.line()
                writer.block("\(access)func \(SwiftIdentifiers.escaped(method))() async -> AsyncStream<\(models.swiftType(channel.message.payload, in: nil))>") { writer in
                    writer.line("\(SwiftIdentifiers.escaped(names.mockProperties[operation.id]!)).stream()")
                }
            }
            for (parameter, swiftName) in names.notifierParameters {
                let local = swiftName == "self" ? "value" : SwiftIdentifiers.escaped(swiftName)
                writer.line()
                writer.line("/// Validates like the real notifier, then records the value.")
                writer.block("\(access)func set\(SwiftIdentifiers.upperCamel(swiftName))(_ \(local): String) async throws(ChannelParameterError)") { writer in
                    writer.line("_ = try ChannelSegment(\(local), parameter: \(parameter.swiftLiteral))")
                    writer.line("\(swiftName)Changes.send(\(local))")
                }
            }
        }
        return writer.text
    }
}
