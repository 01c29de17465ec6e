/// `generate: models`: the payload models of a document for any protocol (MQTT, Kafka, raw
/// WebSocket). Channel addresses are not held to a transport's rules and operations are not read;
/// every message payload and every schema under `components/schemas` becomes a model. Whatever
/// still cannot be a model (an Avro payload) is skipped with warnings, as in client generation.
extension Translation {
    mutating func translateModels(_ root: Cursor) {
        if let channelsCursor = root.child("channels"), let entries = mapping(channelsCursor, "channels") {
            for (key, _, reference) in entries {
                let reported = diagnostics.all.count
                let checkpoint = schemas.checkpoint()
                translateMessages(ofChannel: key, reference)
                if !strict { _ = skipOutsideSubset("channel '\(key)' (its payloads)", at: reference.location, reported: reported, checkpoint: checkpoint) }
            }
        }
        if let schemasCursor = root.child("components")?.child("schemas"), let entries = mapping(schemasCursor, "components/schemas") {
            for (name, _, cursor) in entries {
                let reported = diagnostics.all.count
                let checkpoint = schemas.checkpoint()
                _ = schemas.type(of: cursor, name: name, parent: nil)
                if !strict { _ = skipOutsideSubset("schema '\(name)'", at: cursor.declarationLocation, reported: reported, checkpoint: checkpoint) }
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
