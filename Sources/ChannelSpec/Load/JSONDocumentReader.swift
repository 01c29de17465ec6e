/// Reads a JSON document (RFC 8259) into the same `YAMLNode` tree `YAMLLoader` builds, with the
/// line and byte column of every node.
///
/// JSON is YAML, but YAML caps an implicit key at 1 024 characters, and libyaml applies that cap to
/// JSON's quoted keys too: a JSON Schema property named by a long text would reject the document.
/// JSON has no such limit, so JSON documents are read here. Strings are quoted scalars; numbers,
/// `true`, `false` and `null` are plain ones, as libyaml reports them. The loader's rules hold:
/// duplicate keys (compared by Unicode scalars) are errors, and nesting is bounded.
package enum JSONDocumentReader {
    package static func read(_ bytes: [UInt8], file: String) throws(DiagnosticsError) -> YAMLNode {
        var reader = Reader(bytes: bytes, file: file)
        reader.skipWhitespace()
        let root = try reader.value(depth: 0)
        reader.skipWhitespace()
        guard reader.offset == bytes.count else { throw reader.error("unexpected text after the JSON document") }
        return root
    }

    private struct Reader {
        let bytes: [UInt8]
        let file: String
        var offset = 0
        var line = 1
        var lineStart = 0

        init(bytes: [UInt8], file: String) {
            self.bytes = bytes
            self.file = file
            // A byte-order mark is not part of the document.
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { offset = 3; lineStart = 3 }
        }

        var here: SourceLocation { SourceLocation(file: file, line: line, column: offset - lineStart + 1) }

        func error(_ message: String, at location: SourceLocation? = nil) -> DiagnosticsError {
            DiagnosticsError(.error("JSON syntax error: \(message)", at: location ?? here))
        }

        var next: UInt8? { offset < bytes.count ? bytes[offset] : nil }

        mutating func skipWhitespace() {
            while let byte = next {
                switch byte {
                case 0x20, 0x09: offset += 1
                case 0x0A:
                    offset += 1
                    newLine()
                case 0x0D:
                    offset += 1
                    if next == 0x0A { offset += 1 }
                    newLine()
                default: return
                }
            }
        }

        private mutating func newLine() {
            line += 1
            lineStart = offset
        }

        mutating func value(depth: Int) throws(DiagnosticsError) -> YAMLNode {
            let start = here
            guard let byte = next else { throw error("the document ends where a value was expected") }
            switch byte {
            case UInt8(ascii: "{"):
                return YAMLNode(.mapping(try mapping(depth: depth + 1, at: start)), at: start)
            case UInt8(ascii: "["):
                return YAMLNode(.sequence(try sequence(depth: depth + 1, at: start)), at: start)
            case UInt8(ascii: "\""):
                return YAMLNode(.scalar(YAMLScalar(text: try string(), isPlain: false)), at: start)
            case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                for word in ["true", "false", "null"] where bytes[offset...].starts(with: word.utf8) {
                    offset += word.utf8.count
                    return YAMLNode(.scalar(YAMLScalar(text: word, isPlain: true)), at: start)
                }
                throw error("expected a value")
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return YAMLNode(.scalar(YAMLScalar(text: try number(), isPlain: true)), at: start)
            default:
                throw error("expected a value")
            }
        }

        private mutating func open(depth: Int, at start: SourceLocation) throws(DiagnosticsError) {
            if depth > YAMLLoader.maximumDepth {
                throw DiagnosticsError(.error("nesting is deeper than \(YAMLLoader.maximumDepth) levels", at: start))
            }
            offset += 1
            skipWhitespace()
        }

        private mutating func mapping(depth: Int, at start: SourceLocation) throws(DiagnosticsError) -> [YAMLNode.Entry] {
            try open(depth: depth, at: start)
            var entries: [YAMLNode.Entry] = []
            var firstLocation: ExactKeyDictionary<SourceLocation> = [:]
            if next == UInt8(ascii: "}") {
                offset += 1
                return entries
            }
            while true {
                guard next == UInt8(ascii: "\"") else { throw error("expected a key in double quotes") }
                let keyLocation = here
                let key = try string()
                // By Unicode scalars: `é` (U+00E9) and `e` + U+0301 are two keys.
                if let first = firstLocation[key] {
                    throw DiagnosticsError(.error(
                        "duplicate key '\(key)' (first defined at line \(first.line), column \(first.column))", at: keyLocation))
                }
                firstLocation[key] = keyLocation
                skipWhitespace()
                guard next == UInt8(ascii: ":") else { throw error("expected ':' after a key") }
                offset += 1
                skipWhitespace()
                entries.append(YAMLNode.Entry(key: key, keyLocation: keyLocation, value: try value(depth: depth)))
                guard try anotherItem(before: "}", in: "object", openedAt: start) else { return entries }
            }
        }

        private mutating func sequence(depth: Int, at start: SourceLocation) throws(DiagnosticsError) -> [YAMLNode] {
            try open(depth: depth, at: start)
            var items: [YAMLNode] = []
            if next == UInt8(ascii: "]") {
                offset += 1
                return items
            }
            while true {
                items.append(try value(depth: depth))
                guard try anotherItem(before: "]", in: "array", openedAt: start) else { return items }
            }
        }

        /// After an item: `,` (true: another item follows) or the closing bracket (false: it is read).
        private mutating func anotherItem(before closing: Unicode.Scalar, in what: String, openedAt start: SourceLocation) throws(DiagnosticsError) -> Bool {
            skipWhitespace()
            switch next {
            case UInt8(ascii: ","):
                offset += 1
                skipWhitespace()
                return true
            case UInt8(closing.value):
                offset += 1
                return false
            default:
                throw error("expected ',' or '\(closing)' (the \(what) opened at line \(start.line), column \(start.column))")
            }
        }

        /// A quoted string, unescaped; `offset` is at its opening quote.
        private mutating func string() throws(DiagnosticsError) -> String {
            offset += 1
            var text: [UInt8] = []
            while true {
                guard let byte = next else { throw error("the document ends inside a string") }
                switch byte {
                case UInt8(ascii: "\""):
                    offset += 1
                    return String(decoding: text, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    offset += 1
                    try escape(into: &text)
                case ..<0x20:
                    throw error("a control character (U+\(String(byte, radix: 16, uppercase: true))) inside a string must be escaped")
                default:
                    text.append(byte)
                    offset += 1
                }
            }
        }

        private mutating func escape(into text: inout [UInt8]) throws(DiagnosticsError) {
            guard let byte = next else { throw error("the document ends inside a string") }
            offset += 1
            let simple: [UInt8: UInt8] = [
                UInt8(ascii: "\""): 0x22, UInt8(ascii: "\\"): 0x5C, UInt8(ascii: "/"): 0x2F, UInt8(ascii: "b"): 0x08,
                UInt8(ascii: "f"): 0x0C, UInt8(ascii: "n"): 0x0A, UInt8(ascii: "r"): 0x0D, UInt8(ascii: "t"): 0x09,
            ]
            if let replacement = simple[byte] {
                text.append(replacement)
                return
            }
            guard byte == UInt8(ascii: "u") else { throw error("unknown escape '\\\(Character(Unicode.Scalar(byte)))'") }
            var value = try hexQuad()
            if (0xD800..<0xDC00).contains(value) {
                // A high surrogate must be followed by an escaped low one: together they are one scalar.
                guard bytes[offset...].starts(with: [UInt8(ascii: "\\"), UInt8(ascii: "u")]) else {
                    throw error("a lone UTF-16 surrogate (\\u\(String(value, radix: 16, uppercase: true))) is not a character")
                }
                offset += 2
                let low = try hexQuad()
                guard (0xDC00..<0xE000).contains(low) else {
                    throw error("a lone UTF-16 surrogate (\\u\(String(value, radix: 16, uppercase: true))) is not a character")
                }
                value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let scalar = Unicode.Scalar(value) else {
                throw error("a lone UTF-16 surrogate (\\u\(String(value, radix: 16, uppercase: true))) is not a character")
            }
            text.append(contentsOf: Array(String(Character(scalar)).utf8))
        }

        private mutating func hexQuad() throws(DiagnosticsError) -> UInt32 {
            guard offset + 4 <= bytes.count, let value = UInt32(String(decoding: bytes[offset..<offset + 4], as: UTF8.self), radix: 16),
                  bytes[offset..<offset + 4].allSatisfy({ UInt8(ascii: "+") != $0 && UInt8(ascii: "-") != $0 })
            else { throw error("'\\u' must be followed by four hexadecimal digits") }
            offset += 4
            return value
        }

        /// A number's text as written (`-`? int frac? exp?), checked against JSON's grammar.
        private mutating func number() throws(DiagnosticsError) -> String {
            let start = offset, startLocation = here
            func digits(_ reader: inout Reader) -> Int {
                let first = reader.offset
                while let byte = reader.next, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { reader.offset += 1 }
                return reader.offset - first
            }
            if next == UInt8(ascii: "-") { offset += 1 }
            let leadingZero = next == UInt8(ascii: "0")
            let integerDigits = digits(&self)
            guard integerDigits > 0, !(leadingZero && integerDigits > 1) else { throw error("invalid number", at: startLocation) }
            if next == UInt8(ascii: ".") {
                offset += 1
                guard digits(&self) > 0 else { throw error("invalid number: a digit must follow '.'") }
            }
            if next == UInt8(ascii: "e") || next == UInt8(ascii: "E") {
                offset += 1
                if next == UInt8(ascii: "+") || next == UInt8(ascii: "-") { offset += 1 }
                guard digits(&self) > 0 else { throw error("invalid number: a digit must follow the exponent") }
            }
            return String(decoding: bytes[start..<offset], as: UTF8.self)
        }
    }
}
