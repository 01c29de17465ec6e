import ChannelRuntime
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
    @Test func aModelPrintsItsDatesAsPlainValues() {
        let printed = String(describing: Stamp(id: "a", at: Self.noon, history: [Self.noon]))
        #expect(printed.contains("_at: \(String(reflecting: Self.noon)),"), "\(printed)")
        #expect(printed.contains("_seen: nil,"), "\(printed)")
        #expect(printed.contains("_history: Optional([\(String(reflecting: Self.noon))]),"), "\(printed)")
        #expect(!printed.contains("ISO8601<"), "\(printed)")
    }
}
