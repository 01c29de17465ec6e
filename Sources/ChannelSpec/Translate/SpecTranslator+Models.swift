/// `generate: models`: the payload models of a document for any protocol (MQTT, Kafka, raw
/// WebSocket). Channel addresses are not held to a transport's rules and operations are not read;
/// every message payload and every schema under `components/schemas` becomes a model. Whatever
/// still cannot be a model (an Avro payload) is skipped with warnings, as in client generation.
///
/// This mode reads more of a document than client generation does (every component, the messages
/// of channels a client could not subscribe to), so it is never stricter than it: a payload or
/// component with any problem is skipped alone, with its diagnostics as warnings (`strict`: errors).
extension Translation {
    mutating func translateModels(_ root: Cursor) {
        if let channelsCursor = root.child("channels"), let entries = mapping(channelsCursor, "channels") {
            for (key, _, reference) in entries {
                let reported = diagnostics.all.count
                let checkpoint = schemas.checkpoint()
                translateMessages(ofChannel: key, reference)
                if !strict { _ = skipOutsideSubset("channel '\(key)' (its payloads)", at: reference.location, reported: reported, checkpoint: checkpoint, whateverTheError: true) }
            }
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

    private mutating func translateMessages(ofChannel key: String, _ reference: Cursor) {
        guard let cursor = resolve(reference), mapping(cursor, "channel '\(key)'") != nil,
              let messagesCursor = cursor.child("messages"), let entries = mapping(messagesCursor, "messages of channel '\(key)'")
        else { return }
        for (messageKey, _, messageReference) in entries {
            _ = message(key: messageKey, messageReference, channelKey: key,
                        payloadName: payloadName(channel: key, message: messageKey, messageCount: entries.count))
        }
    }
}
