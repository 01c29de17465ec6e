import ChannelRuntime
import Foundation
import SeededRandom
import Testing

/// The hand-read ISO 8601 dates of the fast decoders against `Date.ISO8601FormatStyle`, which the
/// generated `Codable` conformances use: whenever the reader gives a date, the format style gives
/// the same one, to the bit; the reader answers every everyday form; the rest it leaves alone.
@Suite("ISO 8601 date reader")
struct ISO8601DateReaderTests {
    static let withFraction = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    static let plain = Date.ISO8601FormatStyle()

    static func reference(_ text: String) -> Date? {
        (try? withFraction.parse(text)) ?? (try? plain.parse(text))
    }

    static func everyday(_ random: inout SplitMix64) -> String {
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let year = Int.random(in: 1...9999, using: &random)
        let month = Int.random(in: 1...12, using: &random)
        let day = Int.random(in: 1...(month == 2 ? 28 : 30), using: &random)
        var text = String(repeating: "0", count: 4 - String(year).count) + "\(year)-\(two(month))-\(two(day))"
        text += "T\(two(Int.random(in: 0...23, using: &random))):\(two(Int.random(in: 0...59, using: &random))):\(two(Int.random(in: 0...59, using: &random)))"
        let digits = Int.random(in: 0...9, using: &random)
        if digits > 0 { text += "." + (0..<digits).map { _ in String(Int.random(in: 0...9, using: &random)) }.joined() }
        if Bool.random(using: &random) {
            text += "Z"
        } else {
            text += (Bool.random(using: &random) ? "+" : "-") + two(Int.random(in: 0...14, using: &random)) + ":" + two([0, 15, 30, 45, 59].randomElement(using: &random)!)
        }
        return text
    }

    @Test func everydayDatesAgreeToTheBitAndAreAllAnswered() {
        var random = SplitMix64(seed: 8601)
        var answered = 0
        for _ in 0..<20_000 {
            let text = Self.everyday(&random)
            let fast = ISO8601DateReader.date(from: text)
            #expect(fast != nil, "\(text) was not read")
            guard let fast else { continue }
            answered += 1
            #expect(Self.reference(text)?.timeIntervalSinceReferenceDate.bitPattern == fast.timeIntervalSinceReferenceDate.bitPattern, "\(text)")
        }
        #expect(answered == 20_000)
    }

    /// Mutated dates (a byte replaced, dropped or repeated) and edge values: the reader may decline,
    /// but a date it gives is the format style's.
    @Test func whatTheReaderAcceptsTheFormatStyleReadsTheSame() {
        var random = SplitMix64(seed: 1_8601)
        let edges = [
            "2024-02-29T00:00:00Z", "2023-02-29T00:00:00Z", "2100-02-29T00:00:00Z", "2000-02-29T23:59:59.999999999Z",
            "2025-04-31T00:00:00Z", "2025-01-26T24:00:00Z", "2025-01-26T23:59:60Z", "2025-01-26T12:00:00+15:00",
            "2025-01-26T12:00:00-00:00", "2025-01-26T12:00:00+14:59", "0000-01-01T00:00:00Z", "0001-01-01T00:00:00Z",
            "2025-01-26t12:00:00z", "2025-01-26T12:00:00.Z", "2025-01-26T12:00:00.1234567890Z", "2025-01-26 12:00:00Z",
            "2025-01-26T12:00:00+0800", "2025-01-26T12:00Z", "+2025-01-26T12:00:00Z", "2025-1-26T12:00:00Z",
        ]
        let bytes = Array("0123456789-:T.Z+ tz".utf8)
        var texts = edges
        for _ in 0..<20_000 {
            var text = Array(Self.everyday(&random).utf8)
            let index = Int.random(in: 0..<text.count, using: &random)
            switch Int.random(in: 0..<3, using: &random) {
            case 0: text[index] = bytes.randomElement(using: &random)!
            case 1: text.remove(at: index)
            default: text.insert(text[index], at: index)
            }
            texts.append(String(decoding: text, as: UTF8.self))
        }
        var declined = 0
        for text in texts {
            guard let fast = ISO8601DateReader.date(from: text) else { declined += 1; continue }
            // The format style knows only an uppercase `T` and `Z`; RFC 3339 allows both cases.
            #expect(Self.reference(text.uppercased())?.timeIntervalSinceReferenceDate.bitPattern == fast.timeIntervalSinceReferenceDate.bitPattern, "\(text)")
        }
        // Most mutants break the form; the reader must have declined those, not guessed.
        #expect(declined > texts.count / 3)
    }
}
