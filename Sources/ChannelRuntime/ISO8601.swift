import Foundation

/// Codes the dates of a property as ISO 8601 text, whatever date strategy the coder has, so a model
/// keeps the `Codable` conformance Swift synthesizes from its one list of properties.
///
/// Generated models mark their `date-time` properties with it: `@ISO8601 public var at: Date`. It
/// also wraps optionals (absent or `null` is `nil`, and `nil` is left out when encoding, as for any
/// other optional), arrays and string-keyed dictionaries of dates. Decoding accepts fractional
/// seconds or none and any UTC offset (`2025-01-26T12:00:00Z`, `…12:00:00.123Z`,
/// `…12:00:00+08:00`, and RFC 3339's lowercase `t` and `z`); encoding writes UTC with milliseconds,
/// rounded to the nearest.
@propertyWrapper
public struct ISO8601<Value: ISO8601Coded>: Codable, Hashable, Sendable {
    public var wrappedValue: Value

    public init(wrappedValue: Value) {
        self.wrappedValue = wrappedValue
    }

    public init(from decoder: any Decoder) throws {
        wrappedValue = try Value(iso8601From: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        try wrappedValue.encodeISO8601(to: encoder)
    }
}

/// A model prints its wrapped dates as it would print the plain values (`_timestamp: 2025-01-26 12:00:00 +0000`,
/// not `_timestamp: ISO8601<Date>(wrappedValue: …)`). `debugPrint` and `dump` use it too: a date
/// and the collections of dates that can be wrapped print the same either way.
extension ISO8601: CustomStringConvertible {
    public var description: String { String(describing: wrappedValue) }
}

/// A value `ISO8601` can code: `Date`, and optionals, arrays and string-keyed dictionaries of them.
/// How they code is the wrapper's business, so apps do not see it on every `Date`.
public protocol ISO8601Coded: Hashable, Sendable {
    @_spi(Generated) init(iso8601From decoder: any Decoder) throws
    @_spi(Generated) func encodeISO8601(to encoder: any Encoder) throws
}

extension Date: ISO8601Coded {
    @_spi(Generated) public init(iso8601From decoder: any Decoder) throws {
        // The runtime's payload decoder: everyday dates straight from the bytes.
        if let fast = decoder as? ScannerDecoder, let date = fast.readEverydayDate() {
            self = date
            return
        }
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        // `ISO8601DateReader` agrees with the format style to the bit, and is cheaper.
        if let date = ISO8601DateReader.date(from: text) {
            self = date
        } else if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) {
            self = date
        } else if let date = try? Date.ISO8601FormatStyle().parse(text) {
            self = date
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "Expected an ISO 8601 date-time, found \(text.debugDescription)")
        }
    }

    @_spi(Generated) public func encodeISO8601(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        // The format style drops what is beyond the millisecond, and a date read from `.002Z` is a
        // `Double` a hair below it: half a millisecond added makes that drop a rounding, so what
        // was decoded encodes as it came.
        let rounded = addingTimeInterval(0.000_5)
        try container.encode(rounded.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
    }
}

extension Optional: ISO8601Coded where Wrapped: ISO8601Coded {
    @_spi(Generated) public init(iso8601From decoder: any Decoder) throws {
        self = try decoder.singleValueContainer().decodeNil() ? nil : try Wrapped(iso8601From: decoder)
    }

    @_spi(Generated) public func encodeISO8601(to encoder: any Encoder) throws {
        guard let self else {
            var container = encoder.singleValueContainer()
            try container.encodeNil()
            return
        }
        try self.encodeISO8601(to: encoder)
    }
}

extension Array: ISO8601Coded where Element: ISO8601Coded {
    @_spi(Generated) public init(iso8601From decoder: any Decoder) throws {
        self = try [ISO8601<Element>](from: decoder).map(\.wrappedValue)
    }

    @_spi(Generated) public func encodeISO8601(to encoder: any Encoder) throws {
        try map(ISO8601.init(wrappedValue:)).encode(to: encoder)
    }
}

extension Dictionary: ISO8601Coded where Key == String, Value: ISO8601Coded {
    @_spi(Generated) public init(iso8601From decoder: any Decoder) throws {
        self = try [String: ISO8601<Value>](from: decoder).mapValues(\.wrappedValue)
    }

    @_spi(Generated) public func encodeISO8601(to encoder: any Encoder) throws {
        try mapValues(ISO8601.init(wrappedValue:)).encode(to: encoder)
    }
}

extension KeyedDecodingContainer {
    /// An optional date may be absent: synthesized decoding finds this overload, more specific than
    /// `decode(_:forKey:)` for any `Decodable`, and gets `nil` instead of a missing-key error.
    public func decode<Value>(_ type: ISO8601<Value?>.Type, forKey key: Key) throws -> ISO8601<Value?> {
        ISO8601(wrappedValue: try decodeIfPresent(ISO8601<Value>.self, forKey: key)?.wrappedValue)
    }
}

extension KeyedEncodingContainer {
    /// An optional date that is `nil` is left out, as synthesized encoding leaves out other `nil`s.
    public mutating func encode<Value>(_ value: ISO8601<Value?>, forKey key: Key) throws {
        try encodeIfPresent(value.wrappedValue.map(ISO8601.init(wrappedValue:)), forKey: key)
    }
}
