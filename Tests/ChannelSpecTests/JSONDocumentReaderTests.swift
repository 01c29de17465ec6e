import ChannelSpec
import SeededRandom
import Testing

/// JSON documents are read by `JSONDocumentReader`: libyaml applies YAML's 1 024-character cap on
/// implicit keys to JSON's quoted keys, so a long property name rejected a whole valid document.
@Suite("JSON documents")
struct JSONDocumentReaderTests {
    func load(_ text: String) throws(DiagnosticsError) -> YAMLNode { try YAMLLoader.load(text, file: "t.json") }

    func firstError(_ text: String) -> String? { firstDiagnostic { () throws(DiagnosticsError) in try load(text) } }

    @Test func keysLongerThanYAMLsImplicitKeyLimitAreRead() throws {
        let key = String(repeating: "k", count: 5_000)
        let text = "{\n  \"properties\": {\"\(key)\": {\"type\": \"string\"}, \"b\": 1}\n}"
        #expect(throws: DiagnosticsError.self) { try YAMLLoader.loadWithLibyaml(Array(text.utf8), file: "t.json") }
        let root = try load(text)
        let properties = try #require(root["properties"]?.entries)
        #expect(properties.map(\.key) == [key, "b"])
        #expect(properties[0].keyLocation == SourceLocation(file: "t.json", line: 2, column: 18))
        #expect(properties[1].value.location == SourceLocation(file: "t.json", line: 2, column: 5_000 + 47))
    }

    /// On JSON that libyaml reads, both give the same tree with the same locations: seeded random
    /// documents with random spacing, line breaks, escapes and non-ASCII text.
    @Test(arguments: 0..<200)
    func agreesWithLibyamlOnEveryNodeAndLocation(seed: UInt64) throws {
        var random = SplitMix64(seed: 0x4A53_4F4E + seed)
        let text = RandomJSON(random: random).document(&random)
        let ours = try JSONDocumentReader.read(Array(text.utf8), file: "t.json")
        let libyamls = try YAMLLoader.loadWithLibyaml(Array(text.utf8), file: "t.json")
        #expect(Self.differences(ours, libyamls).isEmpty, "\(Self.differences(ours, libyamls))\n\(text)")
    }

    static func differences(_ a: YAMLNode, _ b: YAMLNode, at path: String = "$") -> [String] {
        var found: [String] = []
        if a.location != b.location { found.append("\(path): at \(a.location) and \(b.location)") }
        switch (a.content, b.content) {
        case (.scalar(let x), .scalar(let y)):
            if x.isPlain != y.isPlain || !x.text.unicodeScalars.elementsEqual(y.text.unicodeScalars) { found.append("\(path): \(x) and \(y)") }
        case (.sequence(let x), .sequence(let y)):
            if x.count != y.count { return found + ["\(path): \(x.count) and \(y.count) items"] }
            for (index, (p, q)) in zip(x, y).enumerated() { found += differences(p, q, at: "\(path)[\(index)]") }
        case (.mapping(let x), .mapping(let y)):
            if x.count != y.count { return found + ["\(path): \(x.count) and \(y.count) keys"] }
            for (p, q) in zip(x, y) {
                if !p.key.unicodeScalars.elementsEqual(q.key.unicodeScalars) || p.keyLocation != q.keyLocation {
                    found.append("\(path): key \(p.key) at \(p.keyLocation), \(q.key) at \(q.keyLocation)")
                }
                found += differences(p.value, q.value, at: "\(path).\(p.key)")
            }
        default:
            found.append("\(path): \(a.kindDescription) and \(b.kindDescription)")
        }
        return found
    }

    @Test func escapesAndSurrogatePairsAreDecoded() throws {
        let root = try load(#"{"s": "a\"b\\c\/d\b\f\n\r\t\u00e9\uD83D\uDE00", "e\u0301": 1, "\u00e9": 2}"#)
        #expect(root["s"]?.string == "a\"b\\c/d\u{8}\u{C}\n\r\t\u{E9}\u{1F600}")
        // Canonically equivalent, but two keys.
        #expect(root.entries?.count == 3)
        #expect(root["e\u{301}"]?.scalar?.integer == 1 && root["\u{E9}"]?.scalar?.integer == 2)
    }

    @Test func scalarsAreTypedAsLibyamlTypesThem() throws {
        let root = try load(#"[1, -0.5e3, true, false, null, "12", "null"]"#)
        let items = try #require(root.items)
        #expect(items[0].scalar?.integer == 1)
        #expect(items[1].scalar?.number == -500)
        #expect(items[2].scalar?.bool == true && items[3].scalar?.bool == false)
        #expect(items[4].scalar?.isNull == true)
        #expect(items[5].scalar?.integer == nil && items[5].string == "12")
        #expect(items[6].string == "null")
    }

    @Test func aByteOrderMarkIsNotPartOfTheDocument() throws {
        let root = try load("\u{FEFF}{\"a\": 1}")
        #expect(root["a"]?.location == SourceLocation(file: "t.json", line: 1, column: 7))
    }

    func readingError(_ text: String) -> String? {
        firstDiagnostic { () throws(DiagnosticsError) in try JSONDocumentReader.read(Array(text.utf8), file: "t.json") }
    }

    @Test(arguments: [
        (#"{"a": 1 "b": 2}"#, "t.json:1:9: error: JSON syntax error: expected ',' or '}' (the object opened at line 1, column 1)"),
        ("{\"a\": 1,\n \"a\": 2}", "t.json:2:2: error: duplicate key 'a' (first defined at line 1, column 2)"),
        (#"{"a": "\uD800"}"#, #"t.json:1:14: error: JSON syntax error: a lone UTF-16 surrogate (\uD800) is not a character"#),
        (#"{"a": "\q"}"#, #"t.json:1:10: error: JSON syntax error: unknown escape '\q'"#),
        (#"{"a": 01}"#, "t.json:1:7: error: JSON syntax error: invalid number"),
        ("{\"a\": \"x\ty\"}", "t.json:1:9: error: JSON syntax error: a control character (U+9) inside a string must be escaped"),
        (#"{"a": [1, 2}"#, "t.json:1:12: error: JSON syntax error: expected ',' or ']' (the array opened at line 1, column 7)"),
        (#"{"a": 1} x"#, "t.json:1:10: error: JSON syntax error: unexpected text after the JSON document"),
        (#"{"a": "#, "t.json:1:7: error: JSON syntax error: the document ends where a value was expected"),
    ])
    func invalidJSONIsALocatedError(_ text: String, _ expected: String) {
        #expect(readingError(text) == expected)
    }

    /// What is neither JSON nor YAML gets the JSON reader's error: the document looks like JSON.
    @Test func aDocumentThatIsNeitherGetsTheJSONError() {
        #expect(firstError("{\"a\": 1 \"b\": 2}") == "t.json:1:9: error: JSON syntax error: expected ',' or '}' (the object opened at line 1, column 1)")
    }

    /// A document that only looks like JSON is YAML flow style, read by libyaml as before.
    @Test func yamlFlowStyleIsStillYAML() throws {
        let root = try load("{asyncapi: 3.0.0, # a comment\n  info: {title: T,}}")
        #expect(root["asyncapi"]?.string == "3.0.0")
        #expect(root["info"]?["title"]?.string == "T")
    }

    /// Seeded mutants of random JSON (tokens inserted, bytes deleted, truncated): loading never traps,
    /// and every rejection is one error at a line and column inside the text.
    @Test func mutantsNeverCrashAndEveryRejectionIsLocated() {
        let tokens = ["{", "}", "[", "]", "\"", "\\", "\\u", "\\uD800", "\\uDC00", "\\uD83D\\uDE00", ",", ":", "-", "1e", "0.", "tru",
                      "\u{0}", "\u{FEFF}", "\r", "\n", "\t", "é", "e\u{301}", String(repeating: "k", count: 1_100), "# c", "&a", "*a"]
        var random = SplitMix64(seed: 0x0F_0220)
        var problems: [String] = []
        for index in 0..<2_000 {
            var bytes = Array(RandomJSON(random: random).document(&random).utf8)
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let at = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes.insert(contentsOf: Array(tokens.randomElement(using: &random)!.utf8), at: at)
                case 1: if !bytes.isEmpty { bytes.remove(at: at) }
                default: bytes = Array(bytes[..<at])
                }
            }
            let text = String(decoding: bytes, as: UTF8.self)
            // At most one line per line-break character (CR LF counts once, so this bounds it).
            let lines = text.unicodeScalars.filter { ["\n", "\r", "\u{85}", "\u{2028}", "\u{2029}"].contains($0) }.count + 1
            do {
                _ = try YAMLLoader.load(text, file: "t.json")
            } catch {
                guard error.diagnostics.count == 1, let location = error.diagnostics[0].location,
                      location.line >= 1, location.line <= lines, location.column >= 1, location.column <= text.utf8.count + 1
                else {
                    problems.append("mutant \(index): \(error.diagnostics)")
                    continue
                }
            }
        }
        #expect(problems.isEmpty, "\(problems.prefix(10))")
    }

    @Test func nestingIsBoundedAsInYAML() {
        let depth = YAMLLoader.maximumDepth + 1
        let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        #expect(firstError(text)?.hasSuffix("error: nesting is deeper than \(YAMLLoader.maximumDepth) levels") == true)
    }
}

/// Random JSON text that libyaml also reads: keys on the line of their colon and shorter than
/// 1 024 characters, no surrogate escapes, no characters YAML calls line breaks or non-printable.
struct RandomJSON {
    init(random: SplitMix64) {}

    static let pieces = ["a", "id", "é", "e\u{301}", "中文", "😀", " ", "x-y", "$ref", "#", ":", "{", "[", "'", "true", "1"]

    func document(_ random: inout SplitMix64) -> String {
        var text = ["", " ", "\n", "\r\n  "][Int(random.next() % 4)]  // YAML refuses a tab before the first token
        value(depth: 0, into: &text, &random)
        return text + space(&random)
    }

    func space(_ random: inout SplitMix64) -> String {
        ["", " ", "  ", "\n", "\r\n", "\t", "\n    "][Int(random.next() % 7)]
    }

    func value(depth: Int, into text: inout String, _ random: inout SplitMix64) {
        switch depth >= 4 ? 2 + random.next() % 3 : random.next() % 5 {
        case 0:
            let count = Int(random.next() % 5)
            var keys: [String] = []
            while keys.count < count {
                let key = string(&random)
                if !keys.contains(where: { $0.utf8.elementsEqual(key.utf8) }) { keys.append(key) }
            }
            text += "{" + space(&random)
            for (index, key) in keys.enumerated() {
                if index > 0 { text += "," + space(&random) }
                text += quoted(key, &random) + [" ", ""][Int(random.next() % 2)] + ":" + space(&random)
                value(depth: depth + 1, into: &text, &random)
                text += space(&random)
            }
            text += "}"
        case 1:
            text += "[" + space(&random)
            for index in 0..<Int(random.next() % 4) {
                if index > 0 { text += "," + space(&random) }
                value(depth: depth + 1, into: &text, &random)
                text += space(&random)
            }
            text += "]"
        case 2:
            text += ["0", "-1", "12", "3.25", "-0.5e3", "1E+2", "true", "false", "null"][Int(random.next() % 9)]
        default:
            text += quoted(string(&random), &random)
        }
    }

    func string(_ random: inout SplitMix64) -> String {
        (0..<Int(random.next() % 4)).map { _ in Self.pieces[Int(random.next() % UInt64(Self.pieces.count))] }.joined()
    }

    func quoted(_ string: String, _ random: inout SplitMix64) -> String {
        var text = "\""
        for scalar in string.unicodeScalars {
            switch random.next() % 4 {
            case 0 where scalar.value < 0x10000:
                let hex = String(scalar.value, radix: 16, uppercase: random.next() % 2 == 0)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            case 1 where scalar == "/":
                text += "\\/"
            default:
                text += ["\"": "\\\"", "\\": "\\\\", "\n": "\\n", "\t": "\\t"][scalar] ?? String(scalar)
            }
        }
        for escape in ["", "\\n", "\\t", "\\\"", "\\\\", "\\/", "\\r", "\\b", "\\f"] where random.next() % 12 == 0 { text += escape }
        return text + "\""
    }
}
