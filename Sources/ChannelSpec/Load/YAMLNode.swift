/// A YAML value with the place it was written: the loader's output and the
/// resolver's and translator's input. Mappings keep their keys in file order.
public struct YAMLNode: Sendable {
    public enum Content: Sendable {
        case scalar(YAMLScalar)
        case sequence([YAMLNode])
        case mapping([Entry])
    }

    public struct Entry: Sendable {
        public var key: String
        public var keyLocation: SourceLocation
        public var value: YAMLNode
    }

    public var content: Content
    public var location: SourceLocation

    public init(_ content: Content, at location: SourceLocation) {
        self.content = content
        self.location = location
    }

    /// The value for `key` when this node is a mapping.
    public subscript(key: String) -> YAMLNode? {
        guard case .mapping(let entries) = content else { return nil }
        return entries.first { $0.key == key }?.value
    }

    public var entries: [Entry]? {
        if case .mapping(let entries) = content { return entries }
        return nil
    }

    public var items: [YAMLNode]? {
        if case .sequence(let items) = content { return items }
        return nil
    }

    public var scalar: YAMLScalar? {
        if case .scalar(let scalar) = content { return scalar }
        return nil
    }

    /// The scalar's text when it is a string (quoted, or plain and not null/bool/number-like null).
    public var string: String? {
        guard let scalar, !scalar.isNull else { return nil }
        return scalar.text
    }

    /// A short name of the node's kind for messages ("a mapping", "a string", …).
    public var kindDescription: String {
        switch content {
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        case .scalar(let scalar):
            if scalar.isNull { return "null" }
            if scalar.bool != nil { return "a boolean" }
            if scalar.number != nil { return "a number" }
            return "a string"
        }
    }
}

/// A scalar's text and how it was written; YAML 1.1 core-schema typing happens on demand.
public struct YAMLScalar: Sendable, Hashable {
    public var text: String
    /// Plain (unquoted) scalars may be null, booleans or numbers; quoted ones are always strings.
    public var isPlain: Bool

    public init(text: String, isPlain: Bool) {
        self.text = text
        self.isPlain = isPlain
    }

    public var isNull: Bool { isPlain && (text.isEmpty || text == "~" || text == "null" || text == "Null" || text == "NULL") }

    public var bool: Bool? {
        guard isPlain else { return nil }
        switch text {
        case "true", "True", "TRUE": return true
        case "false", "False", "FALSE": return false
        default: return nil
        }
    }

    public var integer: Int? { isPlain ? Int(text) : nil }

    public var number: Double? {
        guard isPlain else { return nil }
        if let int = Int(text) { return Double(int) }
        return Double(text)
    }
}
