/// Own streams (`x-request-stream`): each instance of a channel is its own stream, whose events
/// name their message (a Server-Sent Events `event:` field), messages marked `x-ends-stream`
/// end it (a job's `completed` and `failed`) and messages marked `x-stream-error` are the
/// service's in-band errors.
extension Translation {
    /// A boolean extension of `cursor`'s node: absent is `false`; any other value is an error.
    mutating func flag(_ key: String, of cursor: Cursor, in place: String) -> Bool {
        guard let node = cursor.node[key] else { return false }
        guard let value = node.scalar?.bool else {
            diagnostics.error("'\(key)' of \(place) must be true or false", at: node.location)
            return false
        }
        return value
    }

    /// Names the messages of an own stream (by their `name`, else their key: the event name that
    /// chooses them) and returns the names of the final and of the error ones. Elsewhere events
    /// carry no name, so `x-ends-stream` and `x-stream-error` cannot act: warned about, not
    /// silently ignored.
    mutating func ownStreamNames(of messages: inout [Message], channel key: String, isOwnStream: Bool) -> (final: [String], errors: [String]) {
        guard isOwnStream else {
            for message in messages {
                for (marked, flag) in [(message.endsStream, "x-ends-stream"), (message.isStreamError, "x-stream-error")] where marked {
                    diagnostics.warning(
                        "'\(flag)' of message '\(message.key)' has no effect: channel '\(key)' is not an own stream ('x-request-stream: true'), whose events name their message",
                        at: message.origin.location)
                }
            }
            return ([], [])
        }
        var taken: [String: String] = [:]
        for index in messages.indices {
            let name = messages[index].name ?? messages[index].key
            messages[index].name = name
            if let other = taken[name] {
                diagnostics.warning(
                    "messages '\(other)' and '\(messages[index].key)' of channel '\(key)' have the name '\(name)'; an event named so is taken for '\(other)'",
                    at: messages[index].origin.location)
            } else {
                taken[name] = messages[index].key
            }
        }
        return (Set(messages.filter(\.endsStream).compactMap(\.name)).sorted(), Set(messages.filter(\.isStreamError).compactMap(\.name)).sorted())
    }
}
