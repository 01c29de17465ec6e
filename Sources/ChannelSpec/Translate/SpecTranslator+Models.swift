/// `generate: models`: the payload models of a document for any protocol (MQTT, Kafka, raw
/// WebSocket). Channel addresses are not held to a transport's rules and operations are not read;
/// every message payload and every schema under `components/schemas` becomes a model. Whatever
/// still cannot be a model (an Avro payload) is skipped with warnings, as in client generation.
///
/// This mode reads more of a document than client generation does (every component, the messages
/// of channels a client could not subscribe to), so it is never stricter than it: a payload or
/// component with any problem is skipped alone, with its diagnostics as warnings (`strict`: errors).
///
/// What it does not generate from is still checked, so an invalid document never passes without a
/// word: a malformed channel, parameter or operation is a warning (strict: an error), as nothing
/// generated depends on it, and a `$ref` that does not resolve is an error, as in every mode.
extension Translation {
    mutating func translateModels(_ root: Cursor) {
        if let channelsCursor = root.child("channels"), let entries = mapping(channelsCursor, "channels") {
            for (key, _, reference) in entries {
                let reported = diagnostics.all.count
                let checkpoint = schemas.checkpoint()
                guard let channel = checkedShape(ofChannel: key, reference) else { continue }
                translateMessages(ofChannel: key, channel)
                if !strict { _ = skipOutsideSubset("channel '\(key)' (its payloads)", at: reference.location, reported: reported, checkpoint: checkpoint, whateverTheError: true) }
            }
        }
        if let operationsCursor = root.child("operations"), let entries = mapping(operationsCursor, "operations") {
            for (id, _, reference) in entries { checkShape(ofOperation: id, reference) }
        }
        if let schemasCursor = root.child("components")?.child("schemas"), let entries = mapping(schemasCursor, "components/schemas") {
            for (name, _, cursor) in entries {
                let reported = diagnostics.all.count
                let checkpoint = schemas.checkpoint()
                _ = schemas.type(of: cursor, name: name, parent: nil)
                if !strict { _ = skipOutsideSubset("schema '\(name)'", at: cursor.declarationLocation, reported: reported, checkpoint: checkpoint, whateverTheError: true) }
            }
        }
    }

    private mutating func translateMessages(ofChannel key: String, _ cursor: Cursor) {
        guard let messagesCursor = cursor.child("messages"), let entries = mapping(messagesCursor, "messages of channel '\(key)'")
        else { return }
        for (messageKey, _, messageReference) in entries {
            _ = message(key: messageKey, messageReference, channelKey: key,
                        payloadName: payloadName(channel: key, message: messageKey, messageCount: entries.count))
        }
    }

    // MARK: What models are not generated from

    /// The channel `reference` leads to, its keys, address and parameters checked; nil when it does
    /// not resolve to a mapping (reported).
    private mutating func checkedShape(ofChannel key: String, _ reference: Cursor) -> Cursor? {
        guard let cursor = resolve(reference), mapping(cursor, "channel '\(key)'") != nil else { return nil }
        let reported = diagnostics.all.count
        KeyRules.channelModel.check(cursor, named: "'\(key)'", into: &diagnostics)
        if let address = cursor.node["address"], address.string == nil, address.scalar?.isNull != true {
            diagnostics.error("the 'address' of channel '\(key)' must be a string or null", at: address.location)
        }
        if let parametersCursor = cursor.child("parameters"), let entries = mapping(parametersCursor, "parameters of channel '\(key)'") {
            for (name, _, parameterReference) in entries { _ = checkedParameter(name, parameterReference) }
        }
        if !strict { diagnostics.demoteErrorsButBrokenReferences(from: reported) }
        return cursor
    }

    /// An operation's keys, action, channel and messages; `$ref`s must resolve.
    private mutating func checkShape(ofOperation id: String, _ reference: Cursor) {
        let reported = diagnostics.all.count
        defer { if !strict { diagnostics.demoteErrorsButBrokenReferences(from: reported) } }
        guard let resolved = resolve(reference), mapping(resolved, "operation '\(id)'") != nil,
              let cursor = applyingTraits(resolved, of: "operation '\(id)'") else { return }
        KeyRules.operationModel.check(cursor, named: "'\(id)'", into: &diagnostics)
        if let action = cursor.node["action"] {
            if action.string != "send" && action.string != "receive" {
                diagnostics.error("operation '\(id)' has action '\(action.scalar?.text ?? "")'; expected 'send' or 'receive'", at: action.location)
            }
        } else {
            diagnostics.error("missing required key 'action' in operation '\(id)'", at: cursor.declarationLocation)
        }
        if let channel = cursor.child("channel") {
            _ = resolve(channel)
        } else {
            diagnostics.error("missing required key 'channel' in operation '\(id)'", at: cursor.declarationLocation)
        }
        if let messages = cursor.child("messages") {
            guard messages.node.items != nil else {
                diagnostics.error("'messages' of operation '\(id)' must be a list, found \(messages.node.kindDescription)", at: messages.location)
                return
            }
            for message in messages.elements { _ = resolve(message) }
        }
    }
}
