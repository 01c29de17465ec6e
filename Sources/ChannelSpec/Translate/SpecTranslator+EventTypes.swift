/// `x-event-type-aliases`: other spellings of a message's `name` that a backend sends. The event type
/// never routes a channel's only message; the aliases make a known spelling declared, so it is not
/// counted or reported as undeclared, and on a channel of several messages it chooses the message.
extension Translation {
    /// The aliases of message `key` (empty when it declares none); a malformed list is an error.
    mutating func eventTypeAliases(of cursor: Cursor, message key: String, name: String?) -> [String] {
        guard let node = cursor.node["x-event-type-aliases"] else { return [] }
        guard let items = node.items else {
            diagnostics.error("'x-event-type-aliases' of message '\(key)' is \(node.kindDescription); expected a list of strings", at: node.location)
            return []
        }
        var aliases: [String] = []
        for item in items {
            guard let alias = item.string else {
                diagnostics.error("an alias of message '\(key)' is \(item.kindDescription); expected a string", at: item.location)
                continue
            }
            guard !alias.isEmpty else {
                diagnostics.error("an alias of message '\(key)' is empty", at: item.location)
                continue
            }
            if alias == name || aliases.contains(alias) {
                diagnostics.warning("event type '\(alias)' is listed twice for message '\(key)'", at: item.location)
                continue
            }
            aliases.append(alias)
        }
        if name == nil, !aliases.isEmpty {
            diagnostics.warning("message '\(key)' has 'x-event-type-aliases' but no 'name'; they have nothing to be aliases of and are ignored", at: node.location)
            return []
        }
        return aliases
    }
}
