/// Which keys an AsyncAPI object may carry in the channelgen subset. Keys that change what
/// generated code means but are not supported are errors that name the construct; a few
/// transport-only keys are accepted with a warning; documentation keys are accepted.
/// `x-` extensions are always allowed (that is what they are for).
struct KeyRules {
    let object: String
    /// Keys channelgen reads or that only document (descriptions, tags, servers…).
    let accepted: Set<String>
    /// Known constructs outside the subset: key → why.
    var unsupported: [String: String] = [:]
    /// Known constructs that do not affect generated code but are worth a warning: key → why.
    var ignored: [String: String] = [:]
    /// Whether an unknown key is a warning (strict: an error) rather than an error: JSON Schema
    /// ignores keywords it does not know, and vendors' schemas carry their own.
    var unknownKeysAreIgnored = false

    func check(_ cursor: Cursor, named name: String, into diagnostics: inout Diagnostics) {
        guard let entries = cursor.node.entries else { return }
        for entry in entries where !entry.key.hasPrefix("x-") && !accepted.contains(entry.key) {
            if let reason = unsupported[entry.key] {
                diagnostics.unsupported("'\(entry.key)' in \(object) \(name) is not supported: \(reason)", at: entry.keyLocation)
            } else if let reason = ignored[entry.key] {
                diagnostics.warning("'\(entry.key)' in \(object) \(name) is ignored: \(reason)", at: entry.keyLocation)
            } else if unknownKeysAreIgnored {
                let why = object == "schema" ? "as JSON Schema ignores keywords it does not know" : "as it changes nothing generated"
                let hint = object == "schema" ? Self.schemaHints[entry.key] ?? "check its spelling" : "check its spelling"
                diagnostics.strictWarning(
                    "unknown keyword '\(entry.key)' in \(object) \(name) is ignored, \(why); \(hint)",
                    at: entry.keyLocation)
            } else {
                diagnostics.error(
                    "unknown key '\(entry.key)' in \(object) \(name) (expected one of: \(accepted.sorted().joined(separator: ", ")))",
                    at: entry.keyLocation)
            }
        }
    }
}

extension KeyRules {
    /// Unknown schema keys with a likely cause, and what to say about it.
    static let schemaHints = [
        // A 3.x multi-format payload written in a 2.x document.
        "schema": "in AsyncAPI 2.x a payload is itself a schema (the 'schema' wrapper is AsyncAPI 3's)",
        // Tuples of JSON Schema 2020-12, which AsyncAPI's draft-07 schemas do not have.
        "prefixItems": "it is JSON Schema 2020-12's (a tuple), not draft-07's, which AsyncAPI schemas follow: 'items' alone types the elements",
    ]

    static let document = KeyRules(
        object: "document",
        accepted: ["asyncapi", "id", "info", "servers", "defaultContentType", "channels", "operations", "components", "tags", "externalDocs"])

    static let info = KeyRules(
        object: "info",
        accepted: ["title", "version", "description", "termsOfService", "contact", "license", "tags", "externalDocs"])

    static let channel = KeyRules(
        object: "channel",
        accepted: ["address", "messages", "parameters", "title", "summary", "description", "servers", "tags", "externalDocs"],
        ignored: ["bindings": "channelgen's transports have no per-channel protocol bindings"])

    /// A channel read for its messages' payload models alone (`generate: models`): any protocol's bindings.
    static let channelModel = KeyRules(object: "channel", accepted: channel.accepted.union(["bindings"]))

    /// Real documents put JSON Schema keywords (`format`, `pattern`, …) on 3.0 parameters; they
    /// change nothing generated (a parameter is a validated channel segment), so they are ignored.
    static let parameter = KeyRules(
        object: "parameter",
        accepted: ["description", "enum", "default", "examples", "schema"],  // `schema`: AsyncAPI 2.x
        ignored: ["location": "the app sets each parameter; where the value also appears in a message is not used"],
        unknownKeysAreIgnored: true)

    static let operation = KeyRules(
        object: "operation",
        accepted: ["action", "channel", "messages", "title", "summary", "description", "security", "tags", "externalDocs"],
        ignored: [
            "bindings": "channelgen's transports have no per-operation protocol bindings",
            // The operation's own channel is still served; a reply channel is served by its own operation.
            "reply": "request/reply is not modelled; the operation is generated for its own channel",
        ])

    /// An operation checked, not generated (`generate: models`): any protocol's bindings, replies.
    static let operationModel = KeyRules(object: "operation", accepted: operation.accepted.union(["bindings", "reply"]))

    static let message = KeyRules(
        object: "message",
        accepted: [
            "name", "payload", "title", "summary", "description", "contentType", "tags", "externalDocs", "examples", "correlationId",
            "messageId", "schemaFormat", "deprecated",  // AsyncAPI 2.x
        ],
        ignored: [
            "bindings": "channelgen's transports have no per-message protocol bindings",
            // The payload is what a stream delivers; a transport's headers are not part of it.
            "headers": "the payload is generated; message headers are not part of the delivered event",
        ])

    /// A message read for its payload model alone (`generate: models`).
    static let messageModel = KeyRules(
        object: "message",
        accepted: message.accepted.union(["headers", "bindings"]))

    /// AsyncAPI 3's wrapper of a payload in another format; the official schema allows other keys.
    static let multiFormatSchema = KeyRules(object: "payload", accepted: ["schemaFormat", "schema"], unknownKeysAreIgnored: true)

    /// JSON Schema keywords. Validation keywords are documented in doc comments, not enforced.
    static let schema = KeyRules(
        object: "schema",
        accepted: Set([
            "type", "properties", "required", "enum", "const", "format", "items", "additionalProperties", "nullable",
            "description", "title", "$ref",
            "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "pattern", "minLength", "maxLength",
            "minItems", "maxItems", "uniqueItems", "minProperties", "maxProperties", "default", "example", "examples",
            "deprecated", "readOnly", "writeOnly", "externalDocs", "xml", "$schema", "$id", "$comment",
            "contentEncoding", "contentMediaType", "allOf", "oneOf", "anyOf", "discriminator", "patternProperties",
        ] + SchemaTranslator.constraintKeywords.map(\.key)),
        unknownKeysAreIgnored: true)
}
