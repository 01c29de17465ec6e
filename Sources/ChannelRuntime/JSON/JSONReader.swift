import Foundation

/// A value generated code can read straight from JSON bytes, without `JSONDecoder`: the runtime's
/// fast path for payloads. Generated models conform (`Decoders.swift`); so do the standard types
/// they are made of.
///
/// The fast path is **strict and never the last word**: it accepts only input it reads exactly as
/// `JSONDecoder` would (same values, same missing-versus-`null` rules), and throws on anything
/// else: malformed or unusual JSON, duplicate keys, numbers that are not plain for their type.
/// `JSONReader.decode(_:from:)` then decodes with `JSONDecoder`, so a payload decodes to the same
/// value, or fails with the same `DecodingError`, whichever path reads it.
@_spi(Generated) public protocol JSONReadable: Decodable {
    /// Reads one value; throws when the input is not one this fast path is sure of.
    init(reading json: inout JSONReader) throws(JSONReadError)

    /// `JSONReader.decode(_:from:fallback:)` for this type: the runtime's entry point. Leave it to
    /// the default implementation, which is inlinable, so each conforming type's witness is a
    /// copy specialized for that type (the runtime calls it from code that is not specialized).
    static func decode(from text: String, fallback decoder: JSONDecoder) throws -> Self
}

extension JSONReadable {
    @inlinable public static func decode(from text: String, fallback decoder: JSONDecoder) throws -> Self {
        var text = text
        var value: Self?
        text.withUTF8 { bytes in
            var reader = JSONReader(bytes)
            value = try? reader.readWhole(Self.self)
        }
        if let value { return value }
        return try decoder.decode(Self.self, from: Data(text.utf8))
    }
}

/// Why the fast path stopped: the byte offset and what it expected. Never shown to users as a
/// decoding failure (`JSONDecoder` has the last word and its error says where, by coding path).
@_spi(Generated) public struct JSONReadError: Error, Equatable, CustomStringConvertible, Sendable {
    /// Where in the input the reader stopped.
    public var offset: Int
    public var reason: String
    /// Whether the value certainly is not one of the type read, so `JSONDecoder` fails on it too:
    /// a union decoded by trying each variant then tries the next (see `JSONReader.readVariant`).
    /// Otherwise the fast path only declined, and `JSONDecoder` decides.
    public var isMismatch: Bool
    public var description: String { "\(reason) at byte \(offset)" }

    package init(offset: Int, reason: String, isMismatch: Bool = false) {
        self.offset = offset
        self.reason = reason
        self.isMismatch = isMismatch
    }

    /// The same stop as a decline: for failures inside a value that do not make the whole value
    /// certainly a mismatch.
    var declining: JSONReadError { JSONReadError(offset: offset, reason: reason) }
}

/// The kind of a JSON value, as its first byte shows it.
@_spi(Generated) public enum JSONKind: Sendable {
    case object, array, string, number, bool, null
}

/// Reads JSON from UTF-8 bytes, one value at a time, for `JSONReadable` conformances.
@_spi(Generated) public struct JSONReader {
    var scanner: JSONScanner

    @usableFromInline init(_ bytes: UnsafeBufferPointer<UInt8>) {
        scanner = JSONScanner(bytes)
    }

    /// Reads a value that must be all the input holds.
    @inlinable mutating func readWhole<Value: JSONReadable>(_ type: Value.Type) throws(JSONReadError) -> Value {
        let value = try Value(reading: &self)
        try expectEnd()
        return value
    }

    @usableFromInline mutating func expectEnd() throws(JSONReadError) {
        try scanner.expectEnd()
    }

    private init(scanner: JSONScanner) {
        self.scanner = scanner
    }

    /// Decodes `text`: the fast path first, `JSONDecoder` when it declines.
    public static func decode<Value: JSONReadable>(_ type: Value.Type, from text: String, fallback decoder: JSONDecoder = JSONDecoder()) throws -> Value {
        try Value.decode(from: text, fallback: decoder)
    }

    /// The fast path alone: the value, or why it declined.
    public static func read<Value: JSONReadable>(_ type: Value.Type, from text: String) throws(JSONReadError) -> Value {
        var text = text
        let result = text.withUTF8 { bytes -> Result<Value, JSONReadError> in
            var reader = JSONReader(bytes)
            do throws(JSONReadError) {
                return .success(try reader.readWhole(Value.self))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    // MARK: For generated conformances

    /// Reads an object, calling `member` with each key; `member` reads or skips the value.
    ///
    /// A member's mismatch only declines here: with a key twice, which value `JSONDecoder` keeps is
    /// its own to decide, so the object is not certainly a mismatch.
    public mutating func readObject(_ member: (inout JSONReader, String) throws(JSONReadError) -> Void) throws(JSONReadError) {
        try scanner.readObject { scanner, key throws(JSONReadError) in
            var reader = JSONReader(scanner: scanner)
            defer { scanner = reader.scanner }
            do throws(JSONReadError) { try member(&reader, key) } catch { throw error.declining }
        }
    }

    /// Reads an array, calling `element` for each; `element` reads the value. (An element's
    /// mismatch only declines, as a member's does in `readObject`.)
    public mutating func readArray(_ element: (inout JSONReader) throws(JSONReadError) -> Void) throws(JSONReadError) {
        try scanner.readArray { scanner throws(JSONReadError) in
            var reader = JSONReader(scanner: scanner)
            defer { scanner = reader.scanner }
            do throws(JSONReadError) { try element(&reader) } catch { throw error.declining }
        }
    }

    /// For a union decoded by trying each variant in order, as its `Codable` conformance does
    /// (`try? decoder.value() as Variant`): the next value read as `Variant` and made into the
    /// union by `make`, or `nil` when the value certainly is not a `Variant`, which `JSONDecoder`
    /// would reject too, so the next variant is tried. That is: the value is not of `kind` (the
    /// JSON kind the variant reads; `nil` when it may read several), or it reads as far as a
    /// required key that is missing. Any other failure throws: then whether `JSONDecoder` takes the
    /// value as this variant is its own to decide, and the whole union declines.
    @inlinable public mutating func readVariant<Variant: JSONReadable, Union>(
        _ make: (Variant) -> Union, kind: JSONKind?
    ) throws(JSONReadError) -> Union? {
        var ahead = self
        if let kind, ahead.peekKind() != kind { return nil }
        do throws(JSONReadError) {
            let value = try Variant(reading: &ahead)
            self = ahead
            return make(value)
        } catch {
            if error.isMismatch { return nil }
            throw error
        }
    }

    /// Reads the next value as `type` without moving on: for an `allOf` with a union, whose
    /// members each read the whole value, as its `Codable` conformance decodes each member from the
    /// same decoder.
    @inlinable public func readAhead<Value: JSONReadable>(_ type: Value.Type = Value.self) throws(JSONReadError) -> Value {
        var ahead = self
        return try Value(reading: &ahead)
    }

    /// The kind of the next value, from its first byte (`nil` at the end or before a byte no JSON
    /// value starts with).
    @usableFromInline mutating func peekKind() -> JSONKind? {
        guard let byte = scanner.peek() else { return nil }
        return switch byte {
        case UInt8(ascii: "{"): .object
        case UInt8(ascii: "["): .array
        case UInt8(ascii: "\""): .string
        case UInt8(ascii: "t"), UInt8(ascii: "f"): .bool
        case UInt8(ascii: "n"): .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): .number
        default: nil
        }
    }

    /// Reads one value of `type`.
    @inlinable public mutating func read<Value: JSONReadable>(_ type: Value.Type = Value.self) throws(JSONReadError) -> Value {
        try Value(reading: &self)
    }

    /// The string at `key` in the object that comes next, read ahead without moving on: `nil` when
    /// the next value is not an object, or its `key` is missing, `null` or not a string, as
    /// `try? container.decodeIfPresent(String.self, forKey:)` sees it. For a union told apart by a
    /// property, which then reads the whole value as the variant the string names. Throws on
    /// malformed JSON and when `key` appears twice (`JSONDecoder` then decides).
    public func peekString(forKey key: String) throws(JSONReadError) -> String? {
        var ahead = self
        guard ahead.scanner.peek() == UInt8(ascii: "{") else { return nil }
        var found: String?
        var seen = false
        try ahead.readObject { json, name throws(JSONReadError) in
            guard name == key else { return try json.skipValue() }
            if seen { throw json.declined("'\(key)' appears twice") }
            seen = true
            if json.scanner.peek() == UInt8(ascii: "\"") { found = try json.readString() } else { try json.skipValue() }
        }
        return found
    }

    /// `peekString(forKey:)` of the whole of `text`.
    package static func peekString(forKey key: String, in text: String) throws(JSONReadError) -> String? {
        var text = text
        let result = text.withUTF8 { bytes -> Result<String?, JSONReadError> in
            do throws(JSONReadError) {
                return .success(try JSONReader(bytes).peekString(forKey: key))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Skips a value of any kind (an unknown key's), checking it is well-formed.
    public mutating func skipValue() throws(JSONReadError) {
        try scanner.skipValue()
    }

    /// Consumes `null` when it is next.
    public mutating func readNull() -> Bool { scanner.consumeNull() }

    /// Reads a string.
    public mutating func readString() throws(JSONReadError) -> String {
        try scanner.readString()
    }

    /// An error that sends the payload to `JSONDecoder` (which gives the user-facing error).
    public func declined(_ reason: String) -> JSONReadError {
        JSONReadError(offset: scanner.offset, reason: reason)
    }

    /// An error for a value that certainly is not one of the type read (see `JSONReadError.isMismatch`).
    @usableFromInline func mismatched(_ reason: String) -> JSONReadError {
        JSONReadError(offset: scanner.offset, reason: reason, isMismatch: true)
    }

    /// The text of a number by the JSON grammar.
    mutating func readNumberText() throws(JSONReadError) -> String {
        try scanner.readNumberText()
    }
}

/// One property of a generated decoder: read at most once (`JSONDecoder` keeps the first of two
/// equal keys; the fast path declines rather than guess), then required or optional.
///
/// A field takes its type from the model property it reads (`JSONField { (model: Self) in
/// model.name }`; the closure is never called), so generated decoders name no types: they compile
/// wherever the model does, whatever its sibling and nested types are called.
///
/// Inlinable, so each generated decoder gets a copy specialized for its own types (no generic
/// dispatch or metadata lookups per field at run time).
@_spi(Generated) public struct JSONField<Value> {
    @usableFromInline var stored: Value?
    @usableFromInline var isRead = false

    /// The value read, if its key was present.
    @inlinable public var value: Value? { stored }

    /// A field for the property `property` returns.
    @inlinable public init<Model>(_ property: (Model) -> Value) {}

    @inlinable mutating func markRead(in json: JSONReader) throws(JSONReadError) {
        guard !isRead else { throw json.declined("a key appears twice") }
        isRead = true
    }
}

extension JSONField where Value: JSONReadable {
    /// Reads the value of a property that must not be `null`.
    @inlinable public mutating func read(from json: inout JSONReader) throws(JSONReadError) {
        try markRead(in: json)
        stored = try json.read(Value.self)
    }

    /// The value of a required property; a missing key is a mismatch (`JSONDecoder` fails on it
    /// too: the model decodes the property with `decode`, not `decodeIfPresent`).
    @inlinable public func required(_ key: String, in json: JSONReader) throws(JSONReadError) -> Value {
        guard let stored else { throw json.mismatched("missing key '\(key)'") }
        return stored
    }
}

extension JSONField {
    /// Reads the value of an optional property: `null` is `nil`, as `decodeIfPresent` has it.
    /// Afterwards `value ?? nil` is the property's value (absent or `null`: `nil`).
    @inlinable public mutating func readIfPresent<Wrapped: JSONReadable>(from json: inout JSONReader) throws(JSONReadError) where Value == Wrapped? {
        try markRead(in: json)
        stored = .some(json.readNull() ? nil : try json.read(Wrapped.self))
    }
}

/// The properties of an object its schema does not name, for a generated decoder of a model with
/// `additionalProperties`: each kept under its key, read as the model keeps them. Like
/// `JSONField`, it takes its type from the model (`JSONExtraProperties { (model: Self) in
/// model.additionalProperties }`; the closure is never called), and a key twice declines.
@_spi(Generated) public struct JSONExtraProperties<Value: JSONReadable> {
    /// The properties read so far.
    public var values: [String: Value] = [:]

    /// Extra properties of the type `property` returns.
    @inlinable public init<Model>(_ property: (Model) -> [String: Value]) {}

    /// Reads the value of `key`.
    @inlinable public mutating func read(_ key: String, from json: inout JSONReader) throws(JSONReadError) {
        guard values[key] == nil else { throw json.declined("a key appears twice") }
        values[key] = try json.read(Value.self)
    }
}
