/// AsyncAPI 2.x documents, read as the 3.0 document they describe, so one translator serves both.
///
/// 2.x keys channels by address and puts the operations inside them, named from the application's
/// side: `subscribe` is what the application receives (a 3.0 `receive` operation), `publish` what
/// it sends. The 3.0 form gets one channel per address (keyed by the address) with every message
/// of its operations, and one operation per `subscribe`/`publish` named by its `operationId`.
/// Nodes are moved, not rewritten, so every diagnostic still points into the 2.x file, and `$ref`s
/// (into `components`, which has the same layout in both) resolve as written.
enum AsyncAPI2 {
    /// Whether `root` declares AsyncAPI 2.x.
    static func isVersion2(_ root: YAMLNode) -> Bool {
        guard let version = root["asyncapi"]?.scalar?.text else { return false }
        return version.hasPrefix("2.")
    }

    /// The 3.0 form of a 2.x document.
    static func converted(_ root: YAMLNode) -> YAMLNode {
        // Without a `channels` mapping there is nothing to move; the 3.0 checks report a malformed one.
        guard let channels = root["channels"], let channelEntries = channels.entries else { return root }
        var entries = (root.entries ?? []).filter { $0.key != "channels" }
        var newChannels: [YAMLNode.Entry] = []
        var operations: [YAMLNode.Entry] = []
        var operationIDs: Set<String> = []
        for channel in channelEntries {
            let item = channel.value
            guard item.entries != nil else {
                // Malformed: passed on as it is, for the 3.0 checks to report at its place.
                newChannels.append(channel)
                continue
            }
            var fields: [YAMLNode.Entry] = [
                YAMLNode.Entry(key: "address", keyLocation: channel.keyLocation, value: scalar(channel.key, at: channel.keyLocation)),
            ]
            // Kept as they are: the 3.0 checks report what does not apply (bindings, servers).
            fields += (item.entries ?? []).filter { ["description", "parameters", "bindings", "servers"].contains($0.key) || $0.key.hasPrefix("x-") }
            var messages: [YAMLNode.Entry] = []
            for (action, verb) in [("subscribe", "receive"), ("publish", "send")] {
                guard let operation = item.entries?.first(where: { $0.key == action }) else { continue }
                guard operation.value.entries != nil else {
                    // Malformed: passed on as it is, for the 3.0 checks to report at its place.
                    operations.append(YAMLNode.Entry(key: "\(channel.key) \(verb)", keyLocation: operation.keyLocation, value: operation.value))
                    continue
                }
                for message in messageNodes(of: operation.value) {
                    // A message both sent and received is one message of the channel.
                    if let reference = message["$ref"]?.string, messages.contains(where: { $0.value["$ref"]?.string == reference }) { continue }
                    var key = messageKey(message)
                    while messages.contains(where: { $0.key == key }) { key += "_" }
                    messages.append(YAMLNode.Entry(key: key, keyLocation: message.location, value: message))
                }
                var id = operation.value["operationId"]?.string ?? "\(channel.key) \(verb)"
                while !operationIDs.insert(id).inserted { id += "_" }
                var operationFields: [YAMLNode.Entry] = [
                    YAMLNode.Entry(key: "action", keyLocation: operation.keyLocation, value: scalar(verb, at: operation.keyLocation)),
                    YAMLNode.Entry(key: "channel", keyLocation: operation.keyLocation, value: YAMLNode(.mapping([
                        YAMLNode.Entry(
                            key: "$ref", keyLocation: operation.keyLocation,
                            value: scalar("#/channels/" + JSONPointer.escape(channel.key), at: operation.keyLocation)),
                    ]), at: operation.keyLocation)),
                ]
                // `message` moved to the channel; `operationId` is the key; the rest keeps its 3.0 meaning.
                operationFields += (operation.value.entries ?? []).filter { !["message", "operationId"].contains($0.key) }
                operations.append(YAMLNode.Entry(key: id, keyLocation: operation.keyLocation, value: YAMLNode(.mapping(operationFields), at: operation.value.location)))
            }
            fields.append(YAMLNode.Entry(key: "messages", keyLocation: channel.keyLocation, value: YAMLNode(.mapping(messages), at: item.location)))
            newChannels.append(YAMLNode.Entry(key: channel.key, keyLocation: channel.keyLocation, value: YAMLNode(.mapping(fields), at: item.location)))
        }
        entries.append(YAMLNode.Entry(key: "channels", keyLocation: channels.location, value: YAMLNode(.mapping(newChannels), at: channels.location)))
        entries.append(YAMLNode.Entry(key: "operations", keyLocation: channels.location, value: YAMLNode(.mapping(operations), at: channels.location)))
        return YAMLNode(.mapping(entries), at: root.location)
    }

    /// An operation's messages: `message`, or each of `message.oneOf`.
    private static func messageNodes(of operation: YAMLNode) -> [YAMLNode] {
        guard let message = operation["message"] else { return [] }
        if message["$ref"] == nil, let variants = message["oneOf"]?.items { return variants }
        return [message]
    }

    /// A message's key in its channel: the component it references, its `messageId` or `name`.
    private static func messageKey(_ message: YAMLNode) -> String {
        if let reference = message["$ref"]?.string, let last = reference.split(separator: "/").last {
            return JSONPointer.tokens("/" + last)?.first ?? String(last)
        }
        return message["messageId"]?.string ?? message["name"]?.string ?? "message"
    }

    private static func scalar(_ text: String, at location: SourceLocation) -> YAMLNode {
        YAMLNode(.scalar(YAMLScalar(text: text, isPlain: false)), at: location)
    }
}
