@_spi(Generated) import ChannelRuntime
import Foundation
import Testing

/// `@ISO8601` lets a generated model keep synthesized `Codable`: these models are declared as the
/// generator writes them, and coded by Foundation's `JSONDecoder`/`JSONEncoder`.
@Suite("ISO 8601 dates in synthesized Codable")
struct ISO8601Tests {
    struct Stamp: Codable, Hashable, Sendable {
        var id: String
        @ISO8601 var at: Date
        @ISO8601 var seen: Date?
        @ISO8601 var history: [Date]?
        @ISO8601 var byDevice: [String: Date]?

        init(id: String, at: Date, seen: Date? = nil, history: [Date]? = nil, byDevice: [String: Date]? = nil) {
            self.id = id
            self.at = at
            self.seen = seen
            self.history = history
            self.byDevice = byDevice
        }
    }

    static let noon = Date(timeIntervalSince1970: 1_737_892_800)  // 2025-01-26T12:00:00Z

    func decode(_ json: String) throws -> Stamp {
        // A decoder whose date strategy would read numbers: the wrapper reads text whatever it is.
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return try decoder.decode(Stamp.self, from: Data(json.utf8))
    }

    @Test(arguments: ["2025-01-26T12:00:00Z", "2025-01-26T12:00:00.000Z", "2025-01-26T20:00:00+08:00"])
    func everySpellingOfOneInstantDecodesAlike(_ text: String) throws {
        #expect(try decode(#"{"id":"a","at":"\#(text)"}"#).at == Self.noon)
    }

    @Test func anAbsentOrNullOptionalIsNil() throws {
        let absent = try decode(#"{"id":"a","at":"2025-01-26T12:00:00Z"}"#)
        let null = try decode(#"{"id":"a","at":"2025-01-26T12:00:00Z","seen":null,"history":null,"byDevice":null}"#)
        #expect(absent == Stamp(id: "a", at: Self.noon))
        #expect(null == absent)
    }

    @Test func arraysAndDictionariesOfDatesDecode() throws {
        let stamp = try decode(#"{"id":"a","at":"2025-01-26T12:00:00Z","history":["2025-01-26T12:00:00.500Z"],"byDevice":{"d1":"2025-01-26T12:00:00Z"}}"#)
        #expect(stamp.history == [Self.noon.addingTimeInterval(0.5)])
        #expect(stamp.byDevice == ["d1": Self.noon])
    }

    @Test func aMissingRequiredDateAndATextThatIsNoDateAreErrors() {
        #expect(throws: DecodingError.self) { try decode(#"{"id":"a"}"#) }
        #expect(throws: DecodingError.self) { try decode(#"{"id":"a","at":"yesterday"}"#) }
        #expect(throws: DecodingError.self) { try decode(#"{"id":"a","at":1737892800}"#) }
    }

    @Test func encodingWritesUTCWithMillisecondsAndLeavesNilOut() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let stamp = Stamp(id: "a", at: Self.noon.addingTimeInterval(0.25), history: [Self.noon])
        let text = String(decoding: try encoder.encode(stamp), as: UTF8.self)
        #expect(text == #"{"at":"2025-01-26T12:00:00.250Z","history":["2025-01-26T12:00:00.000Z"],"id":"a"}"#)
        #expect(try decode(text) == stamp)
    }

    /// Printed events showed every date as `ISO8601<Date>(wrappedValue: …)`.
    /// `print` and `debugPrint` alike; `dump` heads each wrapped date with its plain value.
    @Test func aModelPrintsItsDatesAsPlainValues() {
        let stamp = Stamp(id: "a", at: Self.noon, history: [Self.noon])
        var dumped = ""
        dump(stamp, to: &dumped)
        for printed in [String(describing: stamp), String(reflecting: stamp)] {
            #expect(printed.contains("_at: \(String(reflecting: Self.noon)),"), "\(printed)")
            #expect(printed.contains("_seen: nil,"), "\(printed)")
            #expect(printed.contains("_history: Optional([\(String(reflecting: Self.noon))]),"), "\(printed)")
            #expect(!printed.contains("ISO8601<"), "\(printed)")
        }
        #expect(dumped.contains("_at: \(String(reflecting: Self.noon))"), "\(dumped)")
    }

    /// Issue 60: encoding floored the fraction of the `Double` a date is, so `.002Z` decoded and
    /// encoded again as `.001Z` (`decode(encode(x)) != x` for a model holding it). Every
    /// millisecond of a second, at dates on both sides of 2001 and 1970, through both decoders.
    @Test(arguments: ["2025-01-26T12:00:07", "1999-12-31T23:59:58", "1900-03-01T00:00:00", "2262-04-11T23:47:16"])
    func everyMillisecondSurvivesADecodeAndAnEncode(_ second: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        var lost: [String] = []
        for millisecond in 0..<1000 {
            let text = second + "." + String(millisecond + 1000).dropFirst() + "Z"
            let json = #"{"at":"\#(text)","id":"a"}"#
            for stamp in [try decode(json), try #require(ScannerDecoding().read(Stamp.self, from: json))] {
                let encoded = String(decoding: try encoder.encode(stamp), as: UTF8.self)
                if encoded != json { lost.append("\(text) → \(encoded)") }
            }
        }
        #expect(lost.count == 0, "of 2 000, for example \(lost.prefix(3))")
    }

    /// Issue 60: RFC 3339 allows a lowercase `t` and `z` (its section 5.6); both were refused.
    @Test(arguments: ["2025-01-26t12:00:00z", "2025-01-26t12:00:00.000Z", "2025-01-26T12:00:00z", "2025-01-26t20:00:00+08:00"])
    func aLowercaseTOrZIsTheSameInstant(_ text: String) throws {
        let json = #"{"id":"a","at":"\#(text)"}"#
        #expect(try decode(json).at == Self.noon)
        #expect(try ScannerDecoding().decode(Stamp.self, from: json, fallback: JSONDecoder()).at == Self.noon)
    }
}
