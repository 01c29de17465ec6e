/// The names inline payloads take from their messages: a message's `name` (else its `title`), when
/// no other message of the document and no component schema is called the same (compared as type
/// names are: letters and digits, any case). `ImportProgress`, not `ProgressPayload`; two messages
/// named `update` keep the names of their channels or keys.
struct MessageNames {
    /// How many messages carry each name, by its comparable form.
    private var uses: [String: Int] = [:]
    private var schemaNames: Set<String> = []

    init() {}

    /// Counts the names of the document's messages: each channel's own (not `$ref`s, which point
    /// at the components counted here) and each of `components.messages`.
    init(document: YAMLNode) {
        var messages = document["components"]?["messages"]?.entries?.map(\.value) ?? []
        for channel in document["channels"]?.entries ?? [] {
            messages += (channel.value["messages"]?.entries ?? []).map(\.value).filter { $0["$ref"] == nil }
        }
        for message in messages {
            if let name = Self.name(of: message) { uses[Self.comparable(name), default: 0] += 1 }
        }
        schemaNames = Set((document["components"]?["schemas"]?.entries ?? []).map { Self.comparable($0.key) })
    }

    /// The name `message`'s inline payload takes, or `nil` (no name, or not its alone).
    func payloadName(of message: YAMLNode) -> String? {
        guard let name = Self.name(of: message) else { return nil }
        let key = Self.comparable(name)
        guard uses[key] == 1, !schemaNames.contains(key) else { return nil }
        return name.prefix(1).uppercased() + name.dropFirst()
    }

    private static func name(of message: YAMLNode) -> String? {
        for key in ["name", "title"] {
            if let text = message[key]?.string, text.contains(where: { $0.isLetter }) { return text }
        }
        return nil
    }

    private static func comparable(_ name: String) -> String {
        String(name.lowercased().filter { $0.isLetter || $0.isNumber })
    }
}
