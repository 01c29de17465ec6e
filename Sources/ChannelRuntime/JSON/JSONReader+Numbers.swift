import Foundation

// Numbers read only where they read exactly as `JSONDecoder` reads them; the rest declines.

extension JSONReader {

    /// A `Float` where `JSONDecoder`, which may round through `Double` or parse `Float` directly,
    /// reads the same: both agree, and the value stays in `Float`'s normal range.
    mutating func readFloat() throws(JSONReadError) -> Float {
        let start = scanner.offset
        let text = try readNumberText()
        let double = try checkedDouble(text, at: start)
        guard let float = Float(text), float == Float(double), float.isFinite,
              float == 0 ? double == 0 : abs(float) >= Float.leastNormalMagnitude else {
            throw JSONReadError(offset: start, reason: "a number outside Float's exact range")
        }
        return float
    }

    /// An integer written as one (`-12`, not `1.0` or `1e2`, which `JSONDecoder` also takes but
    /// which are left to it) that fits `T`.
    mutating func readInteger<T: FixedWidthInteger>(_ type: T.Type) throws(JSONReadError) -> T {
        let start = scanner.offset
        guard let value = scanner.integer(in: try scanner.readNumber(), as: T.self) else {
            throw JSONReadError(offset: start, reason: "not an integer that fits \(T.self)")
        }
        return value
    }

    mutating func readDouble() throws(JSONReadError) -> Double {
        let start = scanner.offset
        return try checkedDouble(readNumberText(), at: start)
    }

    /// The number as `Double`, declining what `JSONDecoder` rejects or might read otherwise:
    /// overflow to infinity, and underflow (to zero or below the normal range).
    func checkedDouble(_ text: String, at start: Int) throws(JSONReadError) -> Double {
        guard let value = Double(text), value.isFinite else {
            throw JSONReadError(offset: start, reason: "a number outside Double's range")
        }
        if value == 0 {
            let mantissa = text.utf8.prefix { $0 != UInt8(ascii: "e") && $0 != UInt8(ascii: "E") }
            if mantissa.contains(where: { $0 >= UInt8(ascii: "1") && $0 <= UInt8(ascii: "9") }) {
                throw JSONReadError(offset: start, reason: "a number too small for Double")
            }
        } else if abs(value) < Double.leastNormalMagnitude {
            throw JSONReadError(offset: start, reason: "a number too small for Double")
        }
        return value
    }
}
