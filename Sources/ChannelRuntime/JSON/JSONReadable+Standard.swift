import Foundation

// The fast path for the types generated models are made of. Each accepts exactly what it reads
// the way `JSONDecoder` does and declines the rest (see `JSONReadable`).

@_spi(Generated) extension String: JSONReadable {
    public init(reading json: inout JSONReader) throws(JSONReadError) {
        self = try json.readString()
    }
}

@_spi(Generated) extension Bool: JSONReadable {
    public init(reading json: inout JSONReader) throws(JSONReadError) {
        self = try json.scanner.readBool()
    }
}

@_spi(Generated) extension Int: JSONReadable {
    public init(reading json: inout JSONReader) throws(JSONReadError) {
        self = try json.readInteger(Int.self)
    }
}

@_spi(Generated) extension Int32: JSONReadable {
    public init(reading json: inout JSONReader) throws(JSONReadError) {
        self = try json.readInteger(Int32.self)
    }
}

@_spi(Generated) extension Int64: JSONReadable {
    public init(reading json: inout JSONReader) throws(JSONReadError) {
        self = try json.readInteger(Int64.self)
    }
}

@_spi(Generated) extension Double: JSONReadable {
    public init(reading json: inout JSONReader) throws(JSONReadError) {
        self = try json.readDouble()
    }
}

@_spi(Generated) extension Float: JSONReadable {
    public init(reading json: inout JSONReader) throws(JSONReadError) {
        let start = json.scanner.offset
        let text = try json.readNumberText()
        let double = try json.checkedDouble(text, at: start)
        // `JSONDecoder` may round through `Double` or parse `Float` directly: take only values
        // where both agree, and none that leave `Float`'s normal range.
        guard let float = Float(text), float == Float(double), float.isFinite,
              float == 0 ? double == 0 : abs(float) >= Float.leastNormalMagnitude else {
            throw JSONReadError(offset: start, reason: "a number outside Float's exact range")
        }
        self = float
    }
}

@_spi(Generated) extension Date: JSONReadable {
    /// ISO 8601, with or without fractional seconds, any offset: the generated models' rule.
    public init(reading json: inout JSONReader) throws(JSONReadError) {
        let start = json.scanner.offset
        // The everyday forms straight from the bytes: no `String` per date.
        if let date = json.scanner.readUnescapedString(ISO8601DateReader.date(from:)) {
            self = date
            return
        }
        let text = try json.readString()
        if let date = ISO8601DateReader.date(from: text) {
            self = date
        } else if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) {
            self = date
        } else if let date = try? Date.ISO8601FormatStyle().parse(text) {
            self = date
        } else {
            throw JSONReadError(offset: start, reason: "not an ISO 8601 date-time")
        }
    }
}

// `@inlinable`: each generated model's module specialises these for its element types. Called
// unspecialised, every element looked up the collection's generic metadata at run time.
@_spi(Generated) extension Array: JSONReadable where Element: JSONReadable {
    @inlinable public init(reading json: inout JSONReader) throws(JSONReadError) {
        var elements: [Element] = []
        try json.readArray { json throws(JSONReadError) in elements.append(try json.read(Element.self)) }
        self = elements
    }
}

@_spi(Generated) extension Dictionary: JSONReadable where Key == String, Value: JSONReadable {
    @inlinable public init(reading json: inout JSONReader) throws(JSONReadError) {
        var entries: [String: Value] = [:]
        try json.readObject { json, key throws(JSONReadError) in
            let value = try json.read(Value.self)
            guard entries.updateValue(value, forKey: key) == nil else { throw json.declined("a key appears twice") }
        }
        self = entries
    }
}

@_spi(Generated) extension JSONValue: JSONReadable {
    /// As `init(from:)` reads it: `null`, a boolean, a number as `Double`, a string, an array, an object.
    public init(reading json: inout JSONReader) throws(JSONReadError) {
        switch json.scanner.peek() {
        case UInt8(ascii: "n"):
            guard json.readNull() else { throw json.declined("expected null") }
            self = .null
        case UInt8(ascii: "t"), UInt8(ascii: "f"): self = .bool(try json.read(Bool.self))
        case UInt8(ascii: "\""): self = .string(try json.readString())
        case UInt8(ascii: "["): self = .array(try json.read([JSONValue].self))
        case UInt8(ascii: "{"): self = .object(try json.read([String: JSONValue].self))
        default: self = .number(try json.readDouble())
        }
    }
}

extension JSONReader {
    /// An integer written as one (`-12`, not `1.0` or `1e2`, which `JSONDecoder` also takes but
    /// which are left to it) that fits `T`.
    mutating func readInteger<T: FixedWidthInteger>(_ type: T.Type) throws(JSONReadError) -> T {
        let start = scanner.offset
        let text = try readNumberText()
        guard !text.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }),
              let value = T(text) else {
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
