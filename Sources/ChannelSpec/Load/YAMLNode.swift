/// A YAML value with the place it was written: the loader's output and the
/// resolver's and translator's input. Mappings keep their keys in file order.
package struct YAMLNode: Sendable {
    package enum Content: Sendable {
        case scalar(YAMLScalar)
        case sequence([YAMLNode])
        case mapping([Entry])
    }

    package struct Entry: Sendable {
        package var key: String
        package var keyLocation: SourceLocation
        package var value: YAMLNode
    }

    package var content: Content
    package var location: SourceLocation

    package init(_ content: Content, at location: SourceLocation) {
        self.content = content
        self.location = location
    }

    /// The value for `key` when this node is a mapping.
    package subscript(key: String) -> YAMLNode? {
        guard case .mapping(let entries) = content else { return nil }
        // By Unicode scalars: two keys Swift's `==` calls canonically equal are two keys here.
        return entries.first { $0.key.utf8.elementsEqual(key.utf8) }?.value
    }

    package var entries: [Entry]? {
        if case .mapping(let entries) = content { return entries }
        return nil
    }

    package var items: [YAMLNode]? {
        if case .sequence(let items) = content { return items }
        return nil
    }

    package var scalar: YAMLScalar? {
        if case .scalar(let scalar) = content { return scalar }
        return nil
    }

    /// The scalar's text when it is a string (quoted, or plain and not null/bool/number-like null).
    package var string: String? {
        guard let scalar, !scalar.isNull else { return nil }
        return scalar.text
    }

    /// Whether JSON would read the node as a string: quoted, or plain and not null, a boolean or a number.
    package var isJSONString: Bool {
        guard let scalar else { return false }
        return !scalar.isPlain || (!scalar.isNull && scalar.bool == nil && scalar.number == nil)
    }

    /// A short name of the node's kind for messages ("a mapping", "a string", …).
    package var kindDescription: String {
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
package struct YAMLScalar: Sendable, Hashable {
    package var text: String
    /// Plain (unquoted) scalars may be null, booleans or numbers; quoted ones are always strings.
    package var isPlain: Bool

    package init(text: String, isPlain: Bool) {
        self.text = text
        self.isPlain = isPlain
    }

    package var isNull: Bool { isPlain && (text.isEmpty || text == "~" || text == "null" || text == "Null" || text == "NULL") }

    package var bool: Bool? {
        guard isPlain else { return nil }
        switch text {
        case "true", "True", "TRUE": return true
        case "false", "False", "FALSE": return false
        default: return nil
        }
    }

    package var integer: Int? { isPlain ? Int(text) : nil }

    package var number: Double? {
        guard isPlain else { return nil }
        if let int = Int(text) { return Double(int) }
        return Double(text)
    }
}
