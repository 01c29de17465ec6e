import ChannelSpec
import SeededRandom
import Testing

@Suite("YAML loader")
struct YAMLLoaderTests {
    func load(_ text: String) throws(DiagnosticsError) -> YAMLNode {
        try YAMLLoader.load(text, file: "t.yaml")
    }

    func firstError(_ text: String) -> String? { firstDiagnostic { () throws(DiagnosticsError) in try load(text) } }

    @Test func everyNodeKeepsItsLineAndColumn() throws {
        let root = try load("""
            a:
              b: [1, two]
              c:
                - x: 1
            """)
        #expect(root.location == SourceLocation(file: "t.yaml", line: 1, column: 1))
        let b = try #require(root["a"]?["b"])
        #expect(b.location.line == 2 && b.location.column == 6)
        #expect(b.items?[1].location.column == 10)
        #expect(b.items?[1].string == "two")
        let x = try #require(root["a"]?["c"]?.items?.first?["x"])
        #expect(x.location.line == 4 && x.location.column == 10)
        let keys = try #require(root["a"]?.entries)
        #expect(keys.map(\.key) == ["b", "c"])
        #expect(keys[1].keyLocation == SourceLocation(file: "t.yaml", line: 3, column: 3))
    }

    @Test func scalarsAreTypedOnDemand() throws {
        let root = try load("""
            plain: 12
            quoted: "12"
            yes: true
            none: null
            tilde: ~
            text: hello
            """)
        #expect(root["plain"]?.scalar?.integer == 12)
        #expect(root["quoted"]?.scalar?.integer == nil)
        #expect(root["quoted"]?.string == "12")
        #expect(root["yes"]?.scalar?.bool == true)
        #expect(root["none"]?.scalar?.isNull == true)
        #expect(root["none"]?.string == nil)
        #expect(root["tilde"]?.scalar?.isNull == true)
        #expect(root["text"]?.kindDescription == "a string")
    }

    @Test func anchorsAndAliasesExpand() throws {
        let root = try load("""
            base: &shared
              type: string
              description: shared
            copy: *shared
            """)
        #expect(root["copy"]?["type"]?.string == "string")
        #expect(root["copy"]?["description"]?.string == "shared")
    }

    @Test func duplicateKeysAreErrorsAtTheSecondKey() {
        #expect(firstError("a: 1\nb: 2\na: 3\n") == "t.yaml:3:1: error: duplicate key 'a' (first defined at line 1, column 1)")
    }

    @Test func syntaxErrorsCarryTheirPosition() {
        let error = firstError("a: [1, 2\nb: 3\n")
        #expect(error?.hasPrefix("t.yaml:2:2: error: YAML syntax error: did not find expected ',' or ']'") == true)
    }

    @Test func unknownAliasIsAnError() {
        #expect(firstError("a: *nope\n") == "t.yaml:1:4: error: unknown alias '*nope'")
    }

    @Test func mergeKeysAreRejectedWithAnExplanation() {
        #expect(firstError("a: &x {k: 1}\nb:\n  <<: *x\n") == "t.yaml:3:3: error: YAML merge keys ('<<') are not supported; write the keys out")
    }

    @Test func aliasBombsStopInsteadOfExhaustingMemory() {
        var lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
        for level in 1...7 {
            let refs = Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ")
            lines.append("a\(level): &a\(level) [\(refs)]")
        }
        let error = firstError(lines.joined(separator: "\n") + "\n")
        #expect(error?.contains("aliases expand to more than 1000000 nodes") == true)
    }

    @Test func nestingUpToTheLimitLoadsWithoutRecursion() throws {
        let depth = 256
        let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        var node = try load(text)
        var levels = 0
        while let inner = node.items?.first {
            node = inner
            levels += 1
        }
        #expect(levels == depth - 1)
    }

    /// 40 000 levels used to crash while the tree was freed (recursively, in Swift's destructors).
    @Test(arguments: [257, 5_000, 40_000])
    func deeperNestingIsAnErrorWhereItGoesTooDeep(_ depth: Int) {
        let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        #expect(firstError(text) == "t.yaml:1:257: error: nesting is deeper than 256 levels")
    }

    /// Aliases nest without YAML nesting: each anchor one level deeper than the one it names.
    @Test func aliasChainsCannotBuildADeepTree() {
        var lines = ["a0: &a0 [x]"]
        for level in 1...300 { lines.append("a\(level): &a\(level) [*a\(level - 1)]") }
        let error = firstError(lines.joined(separator: "\n") + "\n")
        #expect(error?.hasPrefix("t.yaml:256:") == true)
        #expect(error?.contains("error: alias '*a254' nests 255 levels deep here, deeper than 256 in all") == true, "\(error ?? "")")
    }

    /// Aliases ten per level over five levels: under the node guard, but almost a million nodes of output.
    @Test func aliasAmplificationIsAnErrorNamingTheAlias() {
        var lines = ["a0: &a0 {k: v}"]
        for level in 1...5 {
            let refs = (0..<10).map { "k\($0): *a\(level - 1)" }.joined(separator: ", ")
            lines.append("a\(level): &a\(level) {\(refs)}")
        }
        lines.append("b: [*a5]")
        let error = firstError(lines.joined(separator: "\n") + "\n")
        #expect(error?.contains("over 10× the file; '*a5' alone adds") == true, "\(error ?? "")")
        #expect(error?.hasPrefix("t.yaml:7:5: error: aliases expand 67 written nodes to ") == true)
    }

    /// libyaml counts characters; compilers and editors count UTF-8 bytes.
    @Test func columnsCountUTF8Bytes() throws {
        let node = try load("é日: {x: 1}\n")
        let entry = try #require(node.entries?.first)
        #expect(entry.keyLocation.column == 1)
        #expect(entry.value.location.column == 8)  // "é" is 2 bytes, "日" 3, then ": "
        #expect(entry.value.entries?.first?.keyLocation.column == 9)
    }

    /// Columns on ASCII lines skip the walk over characters; on every kind of line they are the byte
    /// column: lines of ASCII and non-ASCII keys, CRLF and LF breaks, non-ASCII comments after ASCII
    /// text, in a seeded order.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func columnsAreByteColumnsOnAnyMixOfLines(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let keys = ["a", "é", "日本", "key", "ö_x", "🚀", "plain_ascii_key"]
        var text = "", expected: [(key: String, keyColumn: Int, valueColumn: Int, innerColumn: Int)] = []
        for line in 0..<300 {
            let key = keys[Int(random.next() % UInt64(keys.count))] + "\(line)"
            let comment = random.next() % 3 == 0 ? " # café ☕" : (random.next() % 2 == 0 ? " # plain" : "")
            text += "\(key): {x: \(line)}\(comment)" + (random.next() % 2 == 0 ? "\r\n" : "\n")
            let bytes = key.utf8.count
            expected.append((key, 1, bytes + 3, bytes + 4))
        }
        let entries = try #require(try load(text).entries)
        #expect(entries.count == expected.count)
        for (line, (entry, want)) in zip(entries, expected).enumerated() {
            #expect(entry.key == want.key)
            #expect(entry.keyLocation == SourceLocation(file: "t.yaml", line: line + 1, column: want.keyColumn))
            #expect(entry.value.location.column == want.valueColumn, "\(want.key)")
            #expect(entry.value.entries?.first?.keyLocation.column == want.innerColumn, "\(want.key)")
        }
    }

    /// Appending used to copy the whole pending collection each time (28 s for 20 000 keys).
    @Test func manyKeysLoad() throws {
        let text = (0..<40_000).map { "key\($0): \($0)" }.joined(separator: "\n")
        let node = try load(text)
        #expect(node.entries?.count == 40_000)
        #expect(node.entries?.last?.key == "key39999")
    }

    @Test func onlyOneDocumentPerFile() {
        #expect(firstError("a: 1\n---\nb: 2\n") == "t.yaml:2:1: error: a spec file must hold exactly one YAML document")
    }

    @Test func emptyFilesAreReported() {
        #expect(firstError("# only a comment\n") == "t.yaml:1:1: error: file is empty")
    }
}
