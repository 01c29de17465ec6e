import Foundation

/// Why the fast path stopped: the byte offset and what it expected. Never shown to users as a
/// decoding failure (`JSONDecoder` has the last word and its error says where, by coding path).
/// (`Swift.Error`: tests compile this file into one module with generated models, which may
/// declare an `Error`.)
package struct JSONReadError: Swift.Error, Equatable, CustomStringConvertible, Sendable {
    /// Where in the input the reader stopped.
    package var offset: Int
    package var reason: String
    package var description: String { "\(reason) at byte \(offset)" }

    package init(offset: Int, reason: String) {
        self.offset = offset
        self.reason = reason
    }
}

/// The kind of a JSON value, as its first byte shows it.
package enum JSONKind: Sendable {
    case object, array, string, number, bool, null
}

/// Reads JSON values from UTF-8 bytes as the types `ScannerDecoding` asks for, each accepted only
/// where it reads exactly as `JSONDecoder` would.
package struct JSONReader {
    var scanner: JSONScanner

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        scanner = JSONScanner(bytes)
    }

    init(scanner: JSONScanner) {
        self.scanner = scanner
    }

    /// Reads an object, calling `member` with each key; `member` reads or skips the value.
    mutating func readObject(_ member: (inout JSONReader, String) throws(JSONReadError) -> Void) throws(JSONReadError) {
        try scanner.readObject { scanner, key throws(JSONReadError) in
            var reader = JSONReader(scanner: scanner)
            defer { scanner = reader.scanner }
            try member(&reader, key)
        }
    }

    /// The kind of the next value, from its first byte (`nil` at the end or before a byte no JSON
    /// value starts with).
    mutating func peekKind() -> JSONKind? {
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

    /// The string at `key` in the object that comes next, read ahead without moving on: `nil` when
    /// the next value is not an object, or its `key` is missing, `null` or not a string, as
    /// `try? container.decodeIfPresent(String.self, forKey:)` sees it (shared-address routing reads
    /// an event's type this way). Throws on malformed JSON and when `key` appears twice.
    func peekString(forKey key: String) throws(JSONReadError) -> String? {
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
    mutating func skipValue() throws(JSONReadError) {
        try scanner.skipValue()
    }

    /// Reads a string.
    mutating func readString() throws(JSONReadError) -> String {
        try scanner.readString()
    }

    /// An error that sends the payload to `JSONDecoder` (which gives the user-facing error).
    func declined(_ reason: String) -> JSONReadError {
        JSONReadError(offset: scanner.offset, reason: reason)
    }

    /// The text of a number by the JSON grammar.
    mutating func readNumberText() throws(JSONReadError) -> String {
        try scanner.readNumberText()
    }
}
