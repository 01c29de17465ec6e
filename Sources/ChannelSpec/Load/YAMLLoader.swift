import CYaml

/// Turns YAML text into a `YAMLNode` tree using libyaml's event API, keeping the
/// file, line and column of every node. Anchors and aliases are expanded;
/// duplicate keys, multiple documents and alias bombs are errors.
public enum YAMLLoader {
    /// Upper bound on nodes produced by alias expansion ("billion laughs" guard).
    static let maximumExpandedNodes = 1_000_000
    /// Upper bound on nesting, aliases included: every later stage walks the tree, and a deeper tree
    /// would overflow the stack somewhere (freeing it, at the latest). Real specs nest a few dozen levels.
    static let maximumDepth = 256

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

/// Builds the tree from the event stream with an explicit stack, so deep input cannot overflow the
/// call stack. Each open collection appends in place (amortised O(1)), and every node's depth is
/// bounded, counting the depth an alias brings with it, so no later stage (or freeing the tree)
/// recurses deeper than `YAMLLoader.maximumDepth`.
private struct TreeBuilder {
    let file: String
    var root: YAMLNode?
    private var stack: [Frame] = []
    private var anchors: [String: Anchor] = [:]
    private var openAnchors: Set<String> = []
    private var expandedNodes = 0
    private var documents = 0

    private struct Anchor {
        var node: YAMLNode
        var weight: Int
        var depth: Int
    }

    /// A sequence or mapping being read.
    private struct Frame {
        var isMapping: Bool
        var items: [YAMLNode] = []
        var entries: [YAMLNode.Entry] = []
        var firstSeen: [String: SourceLocation] = [:]
        var key: (String, SourceLocation)?
        var location: SourceLocation
        var anchor: String?
        /// Nodes below and including this one, after alias expansion.
        var weight = 1
        /// Levels below this node, after alias expansion.
        var childDepth = 0
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
            if let name = cString(data.anchor) { anchors[name] = Anchor(node: node, weight: 1, depth: 0) }
            try add(node, weight: 1, depth: 0)
        case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
            if stack.count >= YAMLLoader.maximumDepth {
                throw DiagnosticsError(.error("nesting is deeper than \(YAMLLoader.maximumDepth) levels", at: here))
            }
            let isMapping = event.type == YAML_MAPPING_START_EVENT
            let anchor = cString(isMapping ? event.data.mapping_start.anchor : event.data.sequence_start.anchor)
            stack.append(Frame(isMapping: isMapping, location: here, anchor: anchor))
            if let anchor { openAnchors.insert(anchor) }
        case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
            let frame = stack.removeLast()
            let node = YAMLNode(frame.isMapping ? .mapping(frame.entries) : .sequence(frame.items), at: frame.location)
            if let anchor = frame.anchor {
                openAnchors.remove(anchor)
                anchors[anchor] = Anchor(node: node, weight: frame.weight, depth: frame.childDepth + 1)
            }
            try add(node, weight: frame.weight, depth: frame.childDepth + 1)
        case YAML_ALIAS_EVENT:
            let name = cString(event.data.alias.anchor) ?? ""
            if openAnchors.contains(name) {
                throw DiagnosticsError(.error("alias '*\(name)' refers to a node that contains it (recursive alias)", at: here))
            }
            guard let anchor = anchors[name] else {
                throw DiagnosticsError(.error("unknown alias '*\(name)'", at: here))
            }
            expandedNodes += anchor.weight
            if expandedNodes > YAMLLoader.maximumExpandedNodes {
                throw DiagnosticsError(.error(
                    "aliases expand to more than \(YAMLLoader.maximumExpandedNodes) nodes (at '*\(name)', which alone expands to \(anchor.weight))",
                    at: here))
            }
            if stack.count + anchor.depth > YAMLLoader.maximumDepth {
                throw DiagnosticsError(.error(
                    "alias '*\(name)' nests \(anchor.depth) levels deep here, deeper than \(YAMLLoader.maximumDepth) in all", at: here))
            }
            try add(anchor.node, weight: anchor.weight, depth: anchor.depth)
        default:
            break
        }
    }

    private mutating func add(_ node: YAMLNode, weight: Int, depth: Int) throws(DiagnosticsError) {
        guard !stack.isEmpty else {
            root = node
            return
        }
        let index = stack.count - 1
        stack[index].weight += weight
        stack[index].childDepth = max(stack[index].childDepth, depth)
        guard stack[index].isMapping else {
            stack[index].items.append(node)
            return
        }
        if let (key, keyLocation) = stack[index].key {
            stack[index].entries.append(YAMLNode.Entry(key: key, keyLocation: keyLocation, value: node))
            stack[index].key = nil
            return
        }
        guard case .scalar(let scalar) = node.content else {
            throw DiagnosticsError(.error("mapping keys must be plain strings, not \(node.kindDescription)", at: node.location))
        }
        if scalar.isPlain && scalar.text == "<<" {
            throw DiagnosticsError(.error("YAML merge keys ('<<') are not supported; write the keys out", at: node.location))
        }
        if let first = stack[index].firstSeen[scalar.text] {
            throw DiagnosticsError(.error(
                "duplicate key '\(scalar.text)' (first defined at line \(first.line), column \(first.column))",
                at: node.location))
        }
        stack[index].firstSeen[scalar.text] = node.location
        stack[index].key = (scalar.text, node.location)
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
