import CYaml

/// Turns YAML text into a `YAMLNode` tree using libyaml's event API, keeping the
/// file, line and column of every node. Anchors and aliases are expanded;
/// duplicate keys, multiple documents and alias bombs are errors.
public enum YAMLLoader {
    /// Upper bound on nodes produced by alias expansion ("billion laughs" guard).
    static let maximumExpandedNodes = 1_000_000

    public static func load(_ text: String, file: String) throws(DiagnosticsError) -> YAMLNode {
        var bytes = Array(text.utf8)
        return try bytes.withUnsafeMutableBufferPointer { buffer throws(DiagnosticsError) -> YAMLNode in
            var parser = yaml_parser_t()
            guard yaml_parser_initialize(&parser) == 1 else {
                throw DiagnosticsError(.error("libyaml could not initialise a parser", at: nil))
            }
            defer { yaml_parser_delete(&parser) }
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            var builder = TreeBuilder(file: file)
            while true {
                var event = yaml_event_t()
                guard yaml_parser_parse(&parser, &event) == 1 else {
                    throw DiagnosticsError(syntaxError(parser, file: file))
                }
                defer { yaml_event_delete(&event) }
                if event.type == YAML_STREAM_END_EVENT { break }
                try builder.consume(event)
            }
            guard let root = builder.root else {
                throw DiagnosticsError(.error("file is empty", at: SourceLocation(file: file, line: 1, column: 1)))
            }
            return root
        }
    }

    private static func syntaxError(_ parser: yaml_parser_t, file: String) -> Diagnostic {
        let problem = parser.problem.map { String(cString: $0) } ?? "invalid YAML"
        let mark = parser.problem_mark
        var message = "YAML syntax error: \(problem)"
        if let context = parser.context.map({ String(cString: $0) }) {
            let contextMark = parser.context_mark
            message += " (\(context) at line \(contextMark.line + 1), column \(contextMark.column + 1))"
        }
        return .error(message, at: SourceLocation(file: file, line: Int(mark.line) + 1, column: Int(mark.column) + 1))
    }
}

/// Builds the tree from the event stream with an explicit stack, so deep input cannot overflow the call stack.
private struct TreeBuilder {
    let file: String
    var root: YAMLNode?
    private var stack: [Frame] = []
    private var anchors: [String: (node: YAMLNode, weight: Int)] = [:]
    private var openAnchors: Set<String> = []
    private var expandedNodes = 0
    private var documents = 0

    private enum Pending {
        case sequence([YAMLNode])
        case mapping(entries: [YAMLNode.Entry], firstSeen: [String: SourceLocation], key: (String, SourceLocation)?)
    }

    private struct Frame {
        var pending: Pending
        var location: SourceLocation
        var anchor: String?
        var weight: Int
    }

    init(file: String) { self.file = file }

    private func location(_ mark: yaml_mark_t) -> SourceLocation {
        SourceLocation(file: file, line: Int(mark.line) + 1, column: Int(mark.column) + 1)
    }

    mutating func consume(_ event: yaml_event_t) throws(DiagnosticsError) {
        let here = location(event.start_mark)
        switch event.type {
        case YAML_DOCUMENT_START_EVENT:
            documents += 1
            if documents > 1 {
                throw DiagnosticsError(.error("a spec file must hold exactly one YAML document", at: here))
            }
        case YAML_SCALAR_EVENT:
            let data = event.data.scalar
            let text = string(data.value, length: data.length)
            let isPlain = data.style == YAML_PLAIN_SCALAR_STYLE && data.tag == nil
            let node = YAMLNode(.scalar(YAMLScalar(text: text, isPlain: isPlain)), at: here)
            try register(anchor: data.anchor, node: node, weight: 1)
            try add(node, weight: 1)
        case YAML_SEQUENCE_START_EVENT:
            stack.append(Frame(pending: .sequence([]), location: here, anchor: cString(event.data.sequence_start.anchor), weight: 1))
            try markOpen(stack.last?.anchor, at: here)
        case YAML_MAPPING_START_EVENT:
            stack.append(Frame(
                pending: .mapping(entries: [], firstSeen: [:], key: nil),
                location: here, anchor: cString(event.data.mapping_start.anchor), weight: 1))
            try markOpen(stack.last?.anchor, at: here)
        case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
            let frame = stack.removeLast()
            let node: YAMLNode
            switch frame.pending {
            case .sequence(let items): node = YAMLNode(.sequence(items), at: frame.location)
            case .mapping(let entries, _, _): node = YAMLNode(.mapping(entries), at: frame.location)
            }
            if let anchor = frame.anchor {
                openAnchors.remove(anchor)
                anchors[anchor] = (node, frame.weight)
            }
            try add(node, weight: frame.weight)
        case YAML_ALIAS_EVENT:
            let name = cString(event.data.alias.anchor) ?? ""
            if openAnchors.contains(name) {
                throw DiagnosticsError(.error("alias '*\(name)' refers to a node that contains it (recursive alias)", at: here))
            }
            guard let (node, weight) = anchors[name] else {
                throw DiagnosticsError(.error("unknown alias '*\(name)'", at: here))
            }
            expandedNodes += weight
            if expandedNodes > YAMLLoader.maximumExpandedNodes {
                throw DiagnosticsError(.error("aliases expand to more than \(YAMLLoader.maximumExpandedNodes) nodes", at: here))
            }
            try add(node, weight: weight)
        default:
            break
        }
    }

    private mutating func markOpen(_ anchor: String?, at location: SourceLocation) throws(DiagnosticsError) {
        if let anchor { openAnchors.insert(anchor) }
    }

    private mutating func register(anchor: UnsafeMutablePointer<yaml_char_t>?, node: YAMLNode, weight: Int) throws(DiagnosticsError) {
        if let name = cString(anchor) { anchors[name] = (node, weight) }
    }

    private mutating func add(_ node: YAMLNode, weight: Int) throws(DiagnosticsError) {
        guard !stack.isEmpty else {
            root = node
            return
        }
        let index = stack.count - 1
        stack[index].weight += weight
        switch stack[index].pending {
        case .sequence(var items):
            items.append(node)
            stack[index].pending = .sequence(items)
        case .mapping(var entries, var firstSeen, let key):
            if let (key, keyLocation) = key {
                entries.append(YAMLNode.Entry(key: key, keyLocation: keyLocation, value: node))
                stack[index].pending = .mapping(entries: entries, firstSeen: firstSeen, key: nil)
            } else {
                guard case .scalar(let scalar) = node.content else {
                    throw DiagnosticsError(.error("mapping keys must be plain strings, not \(node.kindDescription)", at: node.location))
                }
                if scalar.isPlain && scalar.text == "<<" {
                    throw DiagnosticsError(.error("YAML merge keys ('<<') are not supported; write the keys out", at: node.location))
                }
                if let first = firstSeen[scalar.text] {
                    throw DiagnosticsError(.error(
                        "duplicate key '\(scalar.text)' (first defined at line \(first.line), column \(first.column))",
                        at: node.location))
                }
                firstSeen[scalar.text] = node.location
                stack[index].pending = .mapping(entries: entries, firstSeen: firstSeen, key: (scalar.text, node.location))
            }
        }
    }

    private func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?, length: Int) -> String {
        guard let pointer else { return "" }
        return String(decoding: UnsafeBufferPointer(start: pointer, count: length), as: UTF8.self)
    }

    private func cString(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        guard let pointer else { return nil }
        return String(cString: pointer)
    }
}
