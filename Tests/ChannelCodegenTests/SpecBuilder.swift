/// A small AsyncAPI document with every place a name or a text can go, for hostile-name and
/// random-spec tests. Each field is spec text exactly as a user could write it.
struct SpecBuilder {
    struct Schema {
        var name: String
        var xSwiftName: String? = nil
        var description = "A payload."
        var properties: [PropertySpec]
    }

    struct PropertySpec {
        var name: String
        /// YAML for the property's schema (a flow mapping or a block under the key).
        var schema: String
        var required = false
    }

    struct ChannelSpec {
        var key: String
        /// `nil`: no `address` (AsyncAPI 3: open, known only at runtime).
        var address: String?
        var parameters: [String]
        var operationId: String
        var messageName: String?
        var payload: String
        var description = "A channel."
        var xSwiftName: String? = nil
        /// `send`: the operation is a typed publish method instead of a stream.
        var isSend = false
        /// More messages on the channel (key, name, payload schema): the channel then carries an enum of them.
        var moreMessages: [(key: String, name: String?, payload: String)] = []
        /// Messages written out as YAML flow mappings (no payload, binary or text content).
        var writtenMessages: [(key: String, yaml: String)] = []
        /// `x-request-stream: true`: each instance of the channel is its own stream.
        var isOwnStream = false
        /// Keys of the messages marked `x-ends-stream: true` and `x-stream-error: true`.
        var finalMessageKeys: [String] = []
        var errorMessageKeys: [String] = []

        /// The `x-ends-stream`/`x-stream-error` lines of the message `key` (compared by scalars, as keys are).
        func flagLines(ofMessage key: String) -> [String] {
            let marked = { (keys: [String]) in keys.contains { $0.unicodeScalars.elementsEqual(key.unicodeScalars) } }
            return (marked(finalMessageKeys) ? ["        x-ends-stream: true"] : []) + (marked(errorMessageKeys) ? ["        x-stream-error: true"] : [])
        }
    }

    var title = "Hostile events"
    var text = "Plain text."
    var channels: [ChannelSpec]
    var schemas: [Schema]
    /// More component schemas, as written (a name and a YAML flow mapping).
    var rawSchemas: [(name: String, yaml: String)] = []
    var notifier: String? = nil

    static func y(_ text: String) -> String { TypeCheckSupport.yaml(text) }

    /// The common one-channel, one-schema shape with `properties` on the payload.
    static func single(schema: String = "Payload", properties: [PropertySpec], text: String = "Plain text.") -> SpecBuilder {
        SpecBuilder(
            text: text,
            channels: [ChannelSpec(key: "events", address: "ns/{userId}/events", parameters: ["userId"], operationId: "eventValues",
                                   messageName: "event/changed", payload: schema)],
            schemas: [Schema(name: schema, properties: properties)])
    }

    var yaml: String {
        let y = Self.y
        var lines = [
            "asyncapi: 3.0.0",
            "info:",
            "  title: \(y(title))",
            "  version: \(y("1.0.0"))",
            "  description: \(y(text))",
        ]
        if let notifier { lines.append("  x-swift-notifier: \(y(notifier))") }
        lines.append("channels:")
        for channel in channels {
            lines.append("  \(y(channel.key)):")
            if let address = channel.address { lines.append("    address: \(y(address))") }
            lines.append("    description: \(y(channel.description + " " + text))")
            if let name = channel.xSwiftName { lines.append("    x-swift-name: \(y(name))") }
            if channel.isOwnStream { lines.append("    x-request-stream: true") }
            if !channel.parameters.isEmpty {
                lines.append("    parameters:")
                for parameter in channel.parameters {
                    lines.append("      \(y(parameter)): {description: \(y(text))}")
                }
            }
            lines.append("    messages:")
            lines.append("      message:")
            if let name = channel.messageName { lines.append("        name: \(y(name))") }
            lines.append("        summary: \(y(text))")
            lines.append("        payload: {$ref: \(TypeCheckSupport.reference("components/schemas", channel.payload))}")
            lines += channel.flagLines(ofMessage: "message")
            for message in channel.moreMessages {
                lines.append("      \(y(message.key)):")
                if let name = message.name { lines.append("        name: \(y(name))") }
                lines.append("        payload: {$ref: \(TypeCheckSupport.reference("components/schemas", message.payload))}")
                lines += channel.flagLines(ofMessage: message.key)
            }
            for message in channel.writtenMessages { lines.append("      \(y(message.key)): \(message.yaml)") }
        }
        lines.append("operations:")
        for channel in channels {
            lines.append("  \(y(channel.operationId)):")
            lines.append("    action: \(channel.isSend ? "send" : "receive")")
            lines.append("    summary: \(y(text))")
            lines.append("    channel: {$ref: \(TypeCheckSupport.reference("channels", channel.key))}")
        }
        lines.append("components:")
        lines.append("  schemas:")
        for schema in schemas {
            lines.append("    \(y(schema.name)):")
            lines.append("      type: object")
            lines.append("      description: \(y(schema.description + " " + text))")
            if let name = schema.xSwiftName { lines.append("      x-swift-name: \(y(name))") }
            let required = schema.properties.filter(\.required).map { y($0.name) }
            if !required.isEmpty { lines.append("      required: [\(required.joined(separator: ", "))]") }
            if schema.properties.isEmpty { continue }
            lines.append("      properties:")
            for property in schema.properties {
                lines.append("        \(y(property.name)): \(property.schema)")
            }
        }
        for (name, yaml) in rawSchemas { lines.append("    \(y(name)): \(yaml)") }
        return lines.joined(separator: "\n") + "\n"
    }
}
