import CYaml

/// Turns YAML text into a `YAMLNode` tree using libyaml's event API, keeping the
/// file, line and column of every node. Anchors and aliases are expanded;
/// duplicate keys, multiple documents and alias bombs are errors.
package enum YAMLLoader {
    /// Upper bound on nodes produced by alias expansion ("billion laughs" guard).
    static let maximumExpandedNodes = 1_000_000
    /// Aliases may add at most this many nodes, or `amplificationFactor` times the nodes written,
    /// whichever is larger: every node can become generated code, and a small file of nested
    /// aliases (10 × 10 × 10 × 10 × 10) would otherwise generate tens of megabytes of Swift.
    static let freeExpansion = 20_000
    static let amplificationFactor = 10
    /// Upper bound on nesting, aliases included: every later stage walks the tree, and a deeper tree
    /// would overflow the stack somewhere (freeing it, at the latest). Real specs nest a few dozen levels.
    package static let maximumDepth = 256

    package static func load(_ text: String, file: String) throws(DiagnosticsError) -> YAMLNode {
        let bytes = Array(text.utf8)
        guard looksLikeJSON(bytes) else { return try loadWithLibyaml(bytes, file: file) }
        // JSON goes to the JSON reader (libyaml would cap its keys at 1 024 characters); a document
        // that only looks like JSON (YAML flow style: comments, unquoted keys) is still YAML.
        do {
            return try JSONDocumentReader.read(bytes, file: file)
        } catch let jsonError {
            if let node = try? loadWithLibyaml(bytes, file: file) { return node }
            throw jsonError
        }
    }

    /// Whether the text starts (after a byte-order mark and whitespace) with `{` or `[`.
    static func looksLikeJSON(_ bytes: [UInt8]) -> Bool {
        let start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        let first = bytes[start...].first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        return first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
    }

    /// Any YAML, JSON included (with YAML's limits on JSON: keys of at most 1 024 characters on one line).
    package static func loadWithLibyaml(_ bytes: [UInt8], file: String) throws(DiagnosticsError) -> YAMLNode {
        var bytes = bytes
        return try bytes.withUnsafeMutableBufferPointer { buffer throws(DiagnosticsError) -> YAMLNode in
            var parser = yaml_parser_t()
            guard yaml_parser_initialize(&parser) == 1 else {
                throw DiagnosticsError(.error("libyaml could not initialise a parser", at: nil))
            }
            defer { yaml_parser_delete(&parser) }
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            let columns = ByteColumns(UnsafeBufferPointer(buffer))
            var builder = TreeBuilder(file: file, columns: columns)
            while true {
                var event = yaml_event_t()
                guard yaml_parser_parse(&parser, &event) == 1 else {
                    throw DiagnosticsError(syntaxError(parser, file: file, columns: columns))
                }
                defer { yaml_event_delete(&event) }
                if event.type == YAML_STREAM_END_EVENT { break }
                try builder.consume(event)
            }
            guard let root = builder.root else {
                throw DiagnosticsError(.error("file is empty", at: SourceLocation(file: file, line: 1, column: 1)))
            }
            try builder.checkAmplification()
            return root
        }
    }

    private static func syntaxError(_ parser: yaml_parser_t, file: String, columns: ByteColumns) -> Diagnostic {
        let problem = parser.problem.map { String(cString: $0) } ?? "invalid YAML"
        if parser.error == YAML_READER_ERROR {
            // Reader errors (bad encoding, control characters) carry a byte offset, not a mark.
            let character = parser.problem_value >= 0 ? " (U+\(String(parser.problem_value, radix: 16, uppercase: true)))" : ""
            return .error("YAML syntax error: \(problem)\(character)", at: columns.location(ofByte: Int(parser.problem_offset), in: file))
        }
        let mark = parser.problem_mark
        var message = "YAML syntax error: \(problem)"
        if let context = parser.context.map({ String(cString: $0) }) {
            let contextMark = parser.context_mark
            message += " (\(context) at line \(contextMark.line + 1), column \(columns.column(contextMark)))"
        }
        return .error(message, at: SourceLocation(file: file, line: Int(mark.line) + 1, column: columns.column(mark)))
    }
}

/// libyaml counts columns in characters; compilers and editors count UTF-8 bytes. This maps a
/// mark's (line, character column) to a 1-based byte column, using where each line starts.
struct ByteColumns {
    private let bytes: [UInt8]
    /// Byte offset where each line starts, with libyaml's line breaks (CR, LF, CRLF, NEL, LS, PS).
    private let lineStarts: [Int]
    /// Per line, whether all its bytes are ASCII, where a character is a byte (most lines are).
    private let isASCIILine: [Bool]

    init(_ buffer: UnsafeBufferPointer<UInt8>) {
        bytes = Array(buffer)
        var starts = [0]
        var ascii: [Bool] = []
        var lineIsASCII = true
        var index = 0
        while index < bytes.count {
            switch bytes[index] {
            case 0x0A:
                index += 1
            case 0x0D:
                index += index + 1 < bytes.count && bytes[index + 1] == 0x0A ? 2 : 1
            case 0xC2 where index + 1 < bytes.count && bytes[index + 1] == 0x85:
                index += 2
                lineIsASCII = false
            case 0xE2 where index + 2 < bytes.count && bytes[index + 1] == 0x80 && (bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9):
                index += 3
                lineIsASCII = false
            default:
                if bytes[index] >= 0x80 { lineIsASCII = false }
                index += 1
                continue
            }
            starts.append(index)
            ascii.append(lineIsASCII)
            lineIsASCII = true
        }
        ascii.append(lineIsASCII)
        lineStarts = starts
        isASCIILine = ascii
    }

    /// The line and byte column of a byte offset.
    func location(ofByte offset: Int, in file: String) -> SourceLocation {
        var low = 0, high = lineStarts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if lineStarts[middle] <= offset { low = middle } else { high = middle - 1 }
        }
        return SourceLocation(file: file, line: low + 1, column: offset - lineStarts[low] + 1)
    }

    func column(_ mark: yaml_mark_t) -> Int {
        let line = Int(mark.line), characters = Int(mark.column)
        guard line < lineStarts.count else { return characters + 1 }
        // Every node's mark comes here: on an ASCII line, no bytes to walk.
        let lineEnd = line + 1 < lineStarts.count ? lineStarts[line + 1] : bytes.count
        if isASCIILine[line], characters <= lineEnd - lineStarts[line] { return characters + 1 }
        var offset = lineStarts[line]
        var remaining = characters
        while remaining > 0 && offset < bytes.count {
            offset += 1
            while offset < bytes.count && bytes[offset] & 0xC0 == 0x80 { offset += 1 }  // continuation bytes
            remaining -= 1
        }
        return offset - lineStarts[line] + remaining + 1
    }
}

/// Builds the tree from the event stream with an explicit stack, so deep input cannot overflow the
/// call stack. Each open collection appends in place (amortised O(1)), and every node's depth is
/// bounded, counting the depth an alias brings with it, so no later stage (or freeing the tree)
/// recurses deeper than `YAMLLoader.maximumDepth`.
private struct TreeBuilder {
    let file: String
    let columns: ByteColumns
    var root: YAMLNode?
    private var stack: [Frame] = []
    private var anchors: [String: Anchor] = [:]
    private var openAnchors: Set<String> = []
    private var expandedNodes = 0
    private var writtenNodes = 0
    /// Per alias name: nodes it added in all, and where it was first used.
    private var expansions: [String: (nodes: Int, location: SourceLocation)] = [:]
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
        /// Key (its UTF-8) → entry index, built once a mapping is large enough that a linear search
        /// costs more than the hashing (most mappings hold a handful of keys).
        var keyIndex: [[UInt8]: Int]?
        var key: (String, SourceLocation)?
        var location: SourceLocation
        var anchor: String?
        /// Nodes below and including this one, after alias expansion.
        var weight = 1
        /// Levels below this node, after alias expansion.
        var childDepth = 0

        /// Where `key` was first written in this mapping, if it was. Keys are compared by their
        /// Unicode scalars, as JSON and YAML do: `é` (U+00E9) and `e` + U+0301 are two keys,
        /// though Swift's `String ==` calls them equal.
        mutating func firstKeyLocation(of key: String) -> SourceLocation? {
            if entries.count < 16 { return entries.first { $0.key.utf8.elementsEqual(key.utf8) }?.keyLocation }
            if keyIndex == nil {
                keyIndex = Dictionary(entries.enumerated().map { (Array($1.key.utf8), $0) }, uniquingKeysWith: { first, _ in first })
            }
            let bytes = Array(key.utf8)
            if let position = keyIndex?[bytes] { return entries[position].keyLocation }
            keyIndex?[bytes] = entries.count  // the entry this key is about to become
            return nil
        }
    }

    init(file: String, columns: ByteColumns) {
        self.file = file
        self.columns = columns
    }

    private func location(_ mark: yaml_mark_t) -> SourceLocation {
        SourceLocation(file: file, line: Int(mark.line) + 1, column: columns.column(mark))
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
            writtenNodes += 1
            let data = event.data.scalar
            let text = string(data.value, length: data.length)
            let isPlain = data.style == YAML_PLAIN_SCALAR_STYLE && data.tag == nil
            let node = YAMLNode(.scalar(YAMLScalar(text: text, isPlain: isPlain)), at: here)
            if let name = cString(data.anchor) { anchors[name] = Anchor(node: node, weight: 1, depth: 0) }
            try add(node, weight: 1, depth: 0)
        case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
            writtenNodes += 1
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
            expansions[name, default: (0, here)].nodes += anchor.weight
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

    /// Reports aliases that multiply the document far beyond what was written, at the alias that adds the most.
    func checkAmplification() throws(DiagnosticsError) {
        let limit = max(YAMLLoader.freeExpansion, YAMLLoader.amplificationFactor * writtenNodes)
        guard expandedNodes > limit, let (name, largest) = expansions.max(by: { $0.value.nodes < $1.value.nodes }) else { return }
        throw DiagnosticsError(.error(
            "aliases expand \(writtenNodes) written nodes to \(writtenNodes + expandedNodes), over \(YAMLLoader.amplificationFactor)× the file; "
                + "'*\(name)' alone adds \(largest.nodes) (write the repeated parts once and $ref them)",
            at: largest.location))
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
        if let first = stack[index].firstKeyLocation(of: scalar.text) {
            throw DiagnosticsError(.error(
                "duplicate key '\(scalar.text)' (first defined at line \(first.line), column \(first.column))",
                at: node.location))
        }
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
