@testable import AppSyncRuntime
@_spi(Generated) import ChannelRuntime
import Foundation
import SeededRandom
import Testing

/// The one-pass JSON scanner against Foundation's decoder, and the fast frame path against the
/// general one: wherever the fast path answers, both answer the same.
@Suite("JSON scanner and the fast frame path")
struct JSONScannerTests {
    static func scan<T>(_ text: String, _ body: (inout JSONScanner) throws(JSONScanner.Failure) -> T) -> Result<T, JSONScanner.Failure> {
        var text = text
        return text.withUTF8 { bytes in
            var scanner = JSONScanner(bytes)
            do throws(JSONScanner.Failure) {
                let value = try body(&scanner)
                try scanner.expectEnd()
                return .success(value)
            } catch {
                return .failure(error)
            }
        }
    }

    static func foundationString(_ json: String) -> String? {
        try? JSONDecoder().decode(String.self, from: Data(json.utf8))
    }

    @Test(arguments: [
        #""plain""#, #""""#, #""a\"b\\c\/d""#, #""\b\f\n\r\t""#, #""\u00e9\u4e2d""#, #""\ud83d\ude00 smile""#,
        #""caf\u00E9""#, "\"é中😀\"", #""\u0000""#,
    ])
    func stringsReadAsFoundationReadsThem(_ json: String) throws {
        let ours = try Self.scan(json) { scanner throws(JSONScanner.Failure) in try scanner.readString() }.get()
        #expect(ours == Self.foundationString(json))
    }

    @Test(arguments: [
        "\"unterminated", "\"tab\there\"", "\"bad \\x escape\"", "\"\\u12\"", "\"\\ud83d alone\"", "\"\\ude00\"",
        "\"\\ud83d\\u0041\"", "'single'", "\"a\" trailing",
    ])
    func malformedStringsAreErrors(_ json: String) {
        #expect(throws: JSONScanner.Failure.self) {
            try Self.scan(json) { scanner throws(JSONScanner.Failure) in try scanner.readString() }.get()
        }
        #expect(Self.foundationString(json) == nil)  // Foundation refuses them too
    }

    /// Raw bytes, so the input can hold what a `String` cannot: invalid UTF-8 before, after and
    /// without an escape is an error (the escaped path writes straight into a string, whose
    /// initializer would repair it), and valid non-ASCII text after an escape reads intact.
    @Test func invalidUTF8IsAnErrorOnEveryPathAndValidTextIsKept() throws {
        func read(_ bytes: [UInt8]) -> Result<String, JSONScanner.Failure> {
            bytes.withUnsafeBufferPointer { buffer in
                var scanner = JSONScanner(buffer)
                do throws(JSONScanner.Failure) { return .success(try scanner.readString()) } catch { return .failure(error) }
            }
        }
        let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\"), n = UInt8(ascii: "n")
        for invalid in [[0xFF], [0xC3], [0xE4, 0xB8], [0xED, 0xA0, 0x80]] as [[UInt8]] {
            #expect(throws: JSONScanner.Failure.self) { try read([quote] + invalid + [quote]).get() }
            #expect(throws: JSONScanner.Failure.self) { try read([quote, backslash, n] + invalid + [quote]).get() }
            #expect(throws: JSONScanner.Failure.self) { try read([quote] + invalid + [backslash, n, quote]).get() }
        }
        #expect(try read([quote, backslash, n] + Array("é中😀".utf8) + [backslash, quote, quote]).get() == "\né中😀\"")
        #expect(try read([quote] + Array("é".utf8) + [backslash, UInt8(ascii: "t"), quote]).get() == "é\t")
    }

    /// Where the system predates `String(validating:as:)` (before macOS 15 and iOS 18) strings are
    /// checked by `validatedUTF8`, which never runs on Linux: it must accept and refuse exactly
    /// what `String(validating:)` does. Seeded byte runs biased towards the edges of UTF-8
    /// (continuation bytes, overlong leads, surrogates, truncated sequences, beyond U+10FFFF).
    @Test func theValidatorForOlderSystemsAgreesWithTheStandardLibrary() {
        var random = SplitMix64(seed: 0x5EED_0F_0DD)
        let edges: [UInt8] = [0x00, 0x41, 0x7F, 0x80, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF, 0x9F, 0xA0, 0x8F, 0x90]
        var refused = 0
        for _ in 0..<20_000 {
            let count = Int.random(in: 0...8, using: &random)
            let bytes: [UInt8] = (0..<count).map { _ in
                Bool.random(using: &random) ? edges.randomElement(using: &random)! : UInt8.random(in: 0...255, using: &random)
            }
            bytes.withUnsafeBufferPointer { buffer in
                let expected = String(validating: buffer, as: UTF8.self)
                #expect(JSONScanner.validatedUTF8(buffer) == expected, "\(bytes)")
                if expected == nil { refused += 1 }
            }
        }
        for valid in ["", "a", "é", "中", "😀", "\u{10FFFF}", "\u{D7FF}\u{E000}"] {
            #expect(Array(valid.utf8).withUnsafeBufferPointer(JSONScanner.validatedUTF8) == valid)
        }
        // Both kinds were met often.
        #expect(refused > 5_000 && refused < 19_000)
    }

    @Test func numbersFollowTheGrammar() {
        for valid in ["0", "-0", "12", "-3.25", "1e9", "1E+2", "2.5e-3"] {
            #expect((try? Self.scan(valid) { scanner throws(JSONScanner.Failure) in try scanner.readNumberText() }.get()) == valid)
        }
        for invalid in ["01", "-", "1.", ".5", "1e", "+1", "1.e5", "0x10"] {
            #expect((try? Self.scan(invalid) { scanner throws(JSONScanner.Failure) in try scanner.readNumberText() }.get()) == nil, "\(invalid)")
        }
    }

    @Test func skippingChecksEveryValueAndBoundsTheDepth() {
        let nested = #"{"a":[1,2.5,{"b":null,"c":[true,false,"x\"y"]}],"d":{}, "e":[]}"#
        #expect((try? Self.scan(nested) { scanner throws(JSONScanner.Failure) in try scanner.skipValue() }.get()) != nil)
        for invalid in [#"{"a":1,}"#, #"[1 2]"#, #"{"a" 1}"#, #"{a:1}"#, "[nul]", #"{"a":1"#, "[1,]"] {
            #expect((try? Self.scan(invalid) { scanner throws(JSONScanner.Failure) in try scanner.skipValue() }.get()) == nil, "\(invalid)")
        }
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        #expect((try? Self.scan(deep) { scanner throws(JSONScanner.Failure) in try scanner.skipValue() }.get()) == nil)
        let fine = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        #expect((try? Self.scan(fine) { scanner throws(JSONScanner.Failure) in try scanner.skipValue() }.get()) != nil)
    }

    // MARK: Seeded random strings

    static let pool: [Character] = ["a", "Z", "0", " ", "\"", "\\", "/", "\n", "\r", "\t", "\u{0}", "\u{1F}", "\u{7F}", "é", "中", "😀", "\u{FEFF}", "\u{2028}"]

    static func randomString(_ random: inout SplitMix64) -> String {
        String((0..<Int.random(in: 0...12, using: &random)).map { _ in pool.randomElement(using: &random)! })
    }

    /// `text` as a JSON string literal, each character escaped one of the legal ways at random.
    static func randomlyEscaped(_ text: String, _ random: inout SplitMix64) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            let mustEscape = scalar == "\"" || scalar == "\\" || scalar.value < 0x20
            switch (mustEscape, Int.random(in: 0..<3, using: &random)) {
            case (false, 0), (false, 1):
                out.unicodeScalars.append(scalar)
            case (_, 2) where scalar.value > 0xFFFF:
                let value = scalar.value - 0x10000
                out += String(format: "\\u%04x\\u%04X", 0xD800 + (value >> 10), 0xDC00 + (value & 0x3FF))
            case (_, 2):
                out += String(format: Bool.random(using: &random) ? "\\u%04x" : "\\u%04X", scalar.value)
            default:
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                default: out += String(format: "\\u%04x", scalar.value)
                }
            }
        }
        return out + "\""
    }

    @Test func fiveThousandRandomlyEscapedStringsReadBackExactly() throws {
        var random = SplitMix64(seed: 0x5EED_5CA9)
        for _ in 0..<5000 {
            let text = Self.randomString(&random)
            let json = Self.randomlyEscaped(text, &random)
            let ours = try Self.scan(json) { scanner throws(JSONScanner.Failure) in try scanner.readString() }.get()
            #expect(ours == text, "\(json)")
            #expect(Self.foundationString(json) == text, "\(json)")
        }
    }

    /// The scanner reads plain runs eight bytes at a time: a quote, a backslash, a control
    /// character or a non-ASCII byte at every position of a word, and strings of every length
    /// around a word, read as Foundation reads them; a control character fails where it is.
    @Test func stringsAgreeWithFoundationWhereverTheirSpecialBytesFallInAWord() throws {
        let specials: [(name: String, text: String)] = [
            ("escaped quote", "\\\""), ("escaped backslash", "\\\\"), ("escape \\n", "\\n"), ("\\u escape", "\\u00e9"),
            ("é", "é"), ("emoji", "😀"), ("DEL", "\u{7F}"), ("space", " "), ("tab", "\t"), ("NUL", "\u{0}"), ("unit separator", "\u{1F}"),
        ]
        for length in 0...20 {
            for position in 0...length {
                for special in specials {
                    let filler = { (count: Int) in String((0..<count).map { Character(UnicodeScalar(UInt8(ascii: "a") + UInt8($0 % 26))) }) }
                    let body = filler(position) + special.text + filler(length - position)
                    let json = "\"" + body + "\""
                    let ours = Self.scan(json) { scanner throws(JSONScanner.Failure) in try scanner.readString() }
                    let isControl = special.text.unicodeScalars.contains { $0.value < 0x20 }
                    if isControl {
                        // Raw control characters are not allowed in a JSON string: rejected at their offset.
                        guard case .failure(let failure) = ours else {
                            Issue.record("accepted a raw \(special.name) at \(position) of \(length)")
                            continue
                        }
                        #expect(failure.offset == 1 + position, "\(special.name) at \(position) of \(length)")
                        #expect(Self.foundationString(json) == nil)
                    } else {
                        #expect(try ours.get() == Self.foundationString(json), "\(special.name) at \(position) of \(length)")
                    }
                }
            }
            // Unterminated, whatever the length.
            let open = "\"" + String(repeating: "x", count: length)
            guard case .failure = Self.scan(open, { scanner throws(JSONScanner.Failure) in try scanner.readString() }) else {
                Issue.record("accepted an unterminated string of \(length)")
                continue
            }
        }
    }

    /// `readUnescapedString` hands over the raw bytes only of a string that needs no unescaping,
    /// and reads nothing unless its body takes them, so the caller can read the string instead.
    @Test func unescapedStringsAreHandedOverAndAnythingElseIsLeftToRead() {
        func attempt(_ json: String, taking: Bool = true) -> (taken: String?, rest: String) {
            var json = json
            return json.withUTF8 { bytes in
                var scanner = JSONScanner(bytes)
                let taken = scanner.readUnescapedString { raw -> String? in taking ? String(decoding: raw, as: UTF8.self) : nil }
                return (taken, String(decoding: UnsafeBufferPointer(rebasing: bytes[scanner.offset...]), as: UTF8.self))
            }
        }
        #expect(attempt(#" "2025-01-26T12:00:00Z" ,1"#) == ("2025-01-26T12:00:00Z", " ,1"))
        #expect(attempt(#""""#) == ("", ""))
        for untouched in [#""a\u0041""#, #""a\"b""#, "\"caf\u{e9}\"", "\"tab\there\"", #""open"#, "12", "null"] {
            #expect(attempt(untouched) == (nil, untouched), "\(untouched)")
        }
        #expect(attempt(#""plain""#, taking: false) == (nil, #""plain""#))
    }

    // MARK: The fast frame path

    static func randomFrame(_ random: inout SplitMix64) -> String {
        let event = #"{"n":\#(Int.random(in: 0...999, using: &random)),"s":\#(randomlyEscaped(randomString(&random), &random))}"#
        var members = [
            #""type":"data""#,
            "\"id\":\(randomlyEscaped(randomString(&random), &random))",
            "\"event\":" + (Bool.random(using: &random)
                ? randomlyEscaped(event, &random)
                : "[" + (0..<Int.random(in: 0...2, using: &random)).map { _ in randomlyEscaped(event, &random) }.joined(separator: ",") + "]"),
        ]
        members.shuffle(using: &random)
        let space = [" ", "", "\n", "\t"]
        // Whitespace before the first colon of each member (the one after its key).
        return "{" + members.map { member in
            let colon = member.firstIndex(of: ":")!
            return member[..<colon] + space.randomElement(using: &random)! + member[colon...]
        }.joined(separator: ",") + "}"
    }

    @Test func wellFormedDataFramesTakeTheFastPathAndAgreeWithTheGeneralOne() throws {
        var random = SplitMix64(seed: 0xDA7A)
        for _ in 0..<2000 {
            let frame = Self.randomFrame(&random)
            let fast = ServerMessage.decodeFrequent(frame)
            #expect(fast != nil, "\(frame)")
            #expect(fast == (try? ServerMessage.decodeAny(frame)), "\(frame)")
        }
        #expect(ServerMessage.decodeFrequent(#"{"type":"ka"}"#) == .keepAlive)
    }

    @Test func mutatedFramesNeverMakeTheFastPathDisagree() {
        var random = SplitMix64(seed: 0xBAD_F00D)
        let insertions = ["\"", "\\", ",", "}", "{", "[", "]", ":", "\"type\":\"ka\",", "\"id\":1,", "\"x\":2,", "\u{0}", "é", " "]
        var answered = 0
        for _ in 0..<5000 {
            var bytes = Array(Self.randomFrame(&random).utf8)
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let position = Int.random(in: 0...bytes.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0 where position < bytes.count: bytes.remove(at: position)
                case 1: bytes = Array(bytes.prefix(position))
                default: bytes.insert(contentsOf: Array(insertions.randomElement(using: &random)!.utf8), at: position)
                }
            }
            let frame = String(decoding: bytes, as: UTF8.self)
            guard let fast = ServerMessage.decodeFrequent(frame) else { continue }
            answered += 1
            #expect(fast == (try? ServerMessage.decodeAny(frame)), "\(frame)")
        }
        #expect(answered > 100)  // the mutations leave many frames the fast path still reads
    }
}

/// A type that contains itself, as generated for a recursive schema: decoding it recurses once per
/// level of the input.
private struct Nest: Decodable {
    var inner: [Nest]

    init(from decoder: any Decoder) throws {
        inner = try [Nest](from: decoder)
    }
}

@Suite("Fast path nesting")
struct FastPathNestingTests {
    @Test func hostileNestingIsDeclinedNotAStackOverflow() throws {
        // A server sending a million levels must not exhaust the stack; the fast path stops at
        // the limit JSONDecoder has too, and declines (JSONDecoder then rejects it too).
        let hostile = String(repeating: "[", count: 1_000_000) + String(repeating: "]", count: 1_000_000)
        let reader = ScannerDecoding()
        #expect(reader.read(Nest.self, from: hostile) == nil)
        #expect(throws: DecodingError.self) { try reader.decode(Nest.self, from: hostile, fallback: JSONDecoder()) }
        let fine = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        var depth = 0
        var nest = try #require(reader.read(Nest.self, from: fine))
        while let next = nest.inner.first {
            depth += 1
            nest = next
        }
        #expect(depth == 99)
    }
}

/// A type that keeps its decoder and containers past `init(from:)`: they borrow the payload's
/// bytes, so once the decode is over they must read nothing (no crash, no stale bytes), also after
/// the reader has moved on to another payload.
private final class Keeper: Decodable, @unchecked Sendable {
    // @unchecked: used by one test, on one task.
    let decoder: any Decoder
    let object: KeyedDecodingContainer<Keys>
    let list: KeptList
    enum Keys: String, CodingKey { case name, list }

    init(from decoder: any Decoder) throws {
        self.decoder = decoder
        object = try decoder.container(keyedBy: Keys.self)
        list = try object.decode(KeptList.self, forKey: .list)
        _ = try object.decode(String.self, forKey: .name)
    }
}

private struct KeptList: Decodable {
    var container: any UnkeyedDecodingContainer
    init(from decoder: any Decoder) throws { container = try decoder.unkeyedContainer() }
}

@Suite("Fast path: decoders kept past their decode")
struct KeptDecoderTests {
    @Test func aKeptDecoderReadsNothingAfterItsDecode() throws {
        let reader = ScannerDecoding()
        let kept = try #require(reader.read(Keeper.self, from: #"{"name":"a","list":[1,2,3]}"#))
        // Another payload read by the same reader, its keys where the kept object's were in the
        // reader's index: the kept containers must not see them.
        #expect(reader.read([String: Int].self, from: #"{"name":4,"list":5,"x":1}"#) == ["name": 4, "list": 5, "x": 1])
        #expect(!kept.object.contains(.name))
        #expect(kept.object.allKeys.isEmpty)
        #expect(throws: (any Error).self) { try kept.object.decode(String.self, forKey: .name) }
        var list = kept.list.container
        #expect(throws: (any Error).self) { try list.decode(Int.self) }
        #expect(throws: (any Error).self) { try kept.decoder.singleValueContainer().decode(String.self) }
        #expect(throws: (any Error).self) { try kept.decoder.container(keyedBy: Keeper.Keys.self) }
    }
}

/// Keys are compared as bytes and integers read from their digits: what the byte comparison cannot
/// decide (escaped or non-ASCII keys) goes to `JSONDecoder`, and every answer agrees with it.
@Suite("Fast path: keys as bytes, integers from digits")
struct ByteKeyTests {
    private struct Named: Decodable, Equatable {
        let eventType: String
        let n: Int
    }

    private func jsonDecoder<T: Decodable>(_ type: T.Type, _ text: String) -> T? {
        try? JSONDecoder().decode(T.self, from: Data(text.utf8))
    }

    @Test func keysTheBytesCannotDecideAreLeftToJSONDecoder() throws {
        let reader = ScannerDecoding()
        #expect(reader.read(Named.self, from: #"{"eventType":"a","n":1}"#) == Named(eventType: "a", n: 1))
        // Escaped (`\u0065` is `e`), twice, beyond ASCII: declined, and the fallback decodes as JSONDecoder does.
        for text in [#"{"\u0065ventType":"a","n":1}"#, #"{"eventType":"a","n":1,"eventType":"b"}"#, #"{"é":1,"eventType":"a","n":1}"#] {
            #expect(reader.read(Named.self, from: text) == nil, "\(text)")
            let viaFallback = try? reader.decode(Named.self, from: text, fallback: JSONDecoder())
            #expect(viaFallback == jsonDecoder(Named.self, text), "\(text)")
        }
    }

    @Test func skippedValuesAreCheckedAsReadOnesAre() {
        let reader = ScannerDecoding()
        // An unknown member's escaped, non-ASCII string is skipped by reading it whole.
        let escaped = #"{"eventType":"a","n":1,"x":"caf\u00e9 \"q\" é"}"#
        #expect(reader.read(Named.self, from: escaped) == Named(eventType: "a", n: 1))
        // A malformed escape, a bad number or invalid UTF-8 in a skipped value: declined (JSONDecoder
        // here may accept what it never reads), so the payload gets JSONDecoder's own answer.
        var invalidUTF8 = Array(#"{"eventType":"a","n":1,"x":"?"}"#.utf8)
        invalidUTF8[invalidUTF8.count - 3] = 0xFF
        for bytes in [Array(#"{"eventType":"a","n":1,"x":"\q"}"#.utf8), Array(#"{"eventType":"a","n":1,"x":01}"#.utf8), invalidUTF8] {
            #expect(bytes.withUnsafeBufferPointer { reader.read(Named.self, from: $0) } == nil)
        }
        for text in [#"{"eventType":"a","n":1,"x":"\q"}"#, #"{"eventType":"a","n":1,"x":01}"#] {
            #expect((try? reader.decode(Named.self, from: text, fallback: JSONDecoder())) == jsonDecoder(Named.self, text), "\(text)")
        }
    }

    @Test func integersAtTheirLimitsAgreeWithJSONDecoder() {
        let reader = ScannerDecoding()
        #expect(reader.read(Int8.self, from: "-128") == -128)
        #expect(reader.read(Int64.self, from: "-9223372036854775808") == Int64.min)
        #expect(reader.read(UInt64.self, from: "18446744073709551615") == UInt64.max)
        for text in ["127", "-128", "128", "-129", "0", "-0", "255", "256", "1.0", "1e2", "-1"] {
            // The fast path answers as JSONDecoder, or declines (nil).
            if let fast = reader.read(Int8.self, from: text) { #expect(fast == jsonDecoder(Int8.self, text), "\(text)") }
            if let fast = reader.read(UInt8.self, from: text) { #expect(fast == jsonDecoder(UInt8.self, text), "\(text)") }
            #expect(reader.read(Int8.self, from: text) != nil || ["128", "-129", "255", "256", "1.0", "1e2"].contains(text), "\(text)")
        }
        #expect(reader.read(UInt8.self, from: "-0") == nil)
    }

    /// Issue 59: each escaped string was given a capacity of the rest of its input, and a string
    /// keeps its capacity, so a `data` frame whose `event` array holds thousands of events made each
    /// event hold up to the whole frame (a 2 MB frame of 13 000 events took about 40 MB, and a client
    /// under such a flood grew by gigabytes). The events of a frame now take about the frame's size.
    @Test func theEventsOfAnArrayHoldAboutTheirFramesSizeNotTheFrameEach() throws {
        let event = #"{"eventType":"device/presenceChanged","timestamp":"2025-01-26T12:00:00.123Z","deviceId":"d-1","online":true}"#
        let array = Array(repeating: event, count: 8_000)
        let frame = String(decoding: try JSONSerialization.data(withJSONObject: ["type": "data", "id": "1", "event": array]), as: UTF8.self)
        let before = try #require(Self.dataSegmentBytes())
        let message = ServerMessage.readFrequent(frame)
        let after = try #require(Self.dataSegmentBytes())
        guard case .events(_, let events)? = message else {
            Issue.record("not read as an array of events")
            return
        }
        #expect(events == array)
        // The process's data segments (heap and anonymous mappings, which is where a string's
        // capacity goes even when it is never touched). Other tests run beside this one, so the
        // bound is loose: 128 times the frame; before the fix the events took about 4 000 times it.
        let held = after - before
        #expect(held < 128 * frame.utf8.count, "the events hold \(held) bytes for a frame of \(frame.utf8.count)")
    }

    /// `VmData` of /proc/self/status, in bytes; `nil` where there is no such file.
    static func dataSegmentBytes() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmData:") }),
              let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { return nil }
        return kilobytes * 1024
    }
}

/// `[String: Value]` as a member's value is read member by member: for the leaf types by code
/// specialized for them, for any other `Value` generically. Either way it reads what `JSONDecoder`
/// reads, and a member of another kind fails the read as it fails `JSONDecoder`.
@Suite("Fast path: dictionaries")
struct DictionaryReadTests {
    private struct Point: Decodable, Hashable {
        let x: Int
    }

    /// What dictionaries are in payloads: a model's property.
    private struct Holder<Value: Decodable & Hashable>: Decodable, Hashable {
        let map: [String: Value]
    }

    private func both<Value: Decodable & Hashable>(_ type: Value.Type, _ map: String) -> (fast: [String: Value]?, jsonDecoder: [String: Value]?) {
        let text = #"{"map":\#(map)}"#
        return (ScannerDecoding().read(Holder<Value>.self, from: text)?.map, (try? JSONDecoder().decode(Holder<Value>.self, from: Data(text.utf8)))?.map)
    }

    @Test func dictionariesOfEveryValueTypeReadAsJSONDecoderReadsThem() {
        let bools = both(Bool.self, #"{"a":true,"b":false}"#)
        #expect(bools.fast == ["a": true, "b": false] && bools.fast == bools.jsonDecoder)
        let strings = both(String.self, #"{"a":"x","b":"y\nz","c":""}"#)
        #expect(strings.fast == ["a": "x", "b": "y\nz", "c": ""] && strings.fast == strings.jsonDecoder)
        let integers = both(Int.self, #"{"a":-3,"b":9007199254740993}"#)
        #expect(integers.fast == ["a": -3, "b": 9_007_199_254_740_993] && integers.fast == integers.jsonDecoder)
        let numbers = both(Double.self, #"{"a":1.5,"b":-2,"c":1e3}"#)
        #expect(numbers.fast == ["a": 1.5, "b": -2, "c": 1000] && numbers.fast == numbers.jsonDecoder)
        let points = both(Point.self, #"{"p":{"x":1},"q":{"x":2}}"#)
        #expect(points.fast == ["p": Point(x: 1), "q": Point(x: 2)] && points.fast == points.jsonDecoder)
        let nested = both([String: Bool].self, #"{"outer":{"inner":true},"empty":{}}"#)
        #expect(nested.fast == ["outer": ["inner": true], "empty": [:]] && nested.fast == nested.jsonDecoder)
        let optionals = both(Bool?.self, #"{"a":null,"b":true}"#)
        #expect(optionals.fast == ["a": nil, "b": true] && optionals.fast == optionals.jsonDecoder)
    }

    @Test func aMemberOfAnotherKindFailsAsInJSONDecoder() {
        for map in [#"{"a":1}"#, #"{"a":null}"#, #"{"a":"true"}"#, #"[true]"#] {
            let bools = both(Bool.self, map)
            #expect(bools.fast == nil && bools.jsonDecoder == nil, "\(map)")
        }
        for map in [#"{"a":1.5}"#, #"{"a":"1"}"#, #"{"a":true}"#] {
            let integers = both(Int.self, map)
            #expect(integers.fast == nil && integers.jsonDecoder == nil, "\(map)")
        }
        let strings = both(String.self, #"{"a":"x","b":2}"#)
        #expect(strings.fast == nil && strings.jsonDecoder == nil)
        let numbers = both(Double.self, #"{"a":"1.5"}"#)
        #expect(numbers.fast == nil && numbers.jsonDecoder == nil)
    }
}

/// `JSONDecoder` on Linux calls a number its type cannot hold "The given data was not valid JSON."
/// with no coding path: an app's log of a dropped event then blamed the server's JSON. The error
/// now names the number and the type.
@Suite("Numbers a type cannot hold")
struct NumberRangeErrorTests {
    struct Counts: Decodable {
        var count: Int
        var small: UInt8?
        var ratio: Double?
    }

    func message(_ json: String) -> String {
        do {
            _ = try ScannerDecoding().decode(Counts.self, from: json, fallback: JSONDecoder())
            return "decoded"
        } catch DecodingError.dataCorrupted(let context) {
            return context.debugDescription
        } catch {
            return "\(error)"
        }
    }

    @Test(arguments: [
        (#"{"count":123456789012345678901}"#, "the number 123456789012345678901 at byte 9 is out of range for Int"),
        (#"{"count":1,"small":300}"#, "the number 300 at byte 19 is out of range for UInt8"),
        (#"{"count":1.5}"#, "the number 1.5 at byte 9 is not a whole number, as Int needs"),
        (#"{"count":1,"ratio":1e400}"#, "the number 1e400 at byte 19 is out of range for Double"),
    ])
    func aNumberOutOfRangeIsSaidToBeOne(json: String, expected: String) {
        #expect(message(json) == expected)
    }

    @Test func aLongNumberIsShownCut() {
        let digits = String(repeating: "9", count: 500)
        #expect(message(#"{"count":\#(digits)}"#) == "the number \(String(repeating: "9", count: 40))… (500 characters) at byte 9 is out of range for Int")
    }

    /// Invalid JSON stays JSONDecoder's word, even with a number problem before it.
    @Test func invalidJSONIsStillInvalidJSON() {
        for json in [#"{"count":123456789012345678901"#, #"{"count":123456789012345678901} trailing"#] {
            let said = message(json)
            #expect(said != "decoded" && !said.contains("the number"), "\(said)")
        }
    }

    @Test func numbersThatFitDecode() {
        #expect(message(#"{"count":-9223372036854775808,"small":255,"ratio":1.7976931348623157e308}"#) == "decoded")
    }
}
