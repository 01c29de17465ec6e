import Foundation

/// Decodes a `Decodable` through its own `init(from:)` (for generated models, the conformance Swift
/// synthesizes), reading straight from the payload's bytes: the runtime's fast path for payloads.
///
/// Strict, and never the last word. Where it is not sure to read a value as `JSONDecoder` would (a
/// number `JSONDecoder` may read differently, a key twice, malformed JSON, nested containers, a
/// coding path asked for), it **declines**: the attempt is marked, its result thrown away, and
/// `JSONDecoder` decodes the payload. The only failures it reports are those `JSONDecoder` certainly
/// reports at the same call (a value of another JSON kind, `null` for a value, a missing key), so a
/// type that catches errors (a union trying each variant) takes the same branch either way. Thus a
/// payload decodes to the same value, or fails with the same error, whichever path reads it.
///
/// One reader decodes one payload at a time, reusing its buffers from one to the next: a pump
/// keeps one for its stream.
@_spi(Generated) public final class ScannerDecoding {
    private let session = DecodingSession()

    public init() {}

    /// What the decoded values' `init(from:)` find in `decoder.userInfo` (the event's name, on a
    /// stream that names its events).
    public var userInfo: [CodingUserInfoKey: Any] {
        get { session.userInfo }
        set { session.userInfo = newValue }
    }

    /// The fast path, then `fallback` when it declines or the value does not decode.
    ///
    /// `JSONDecoder` (on Linux) calls a number its type cannot hold "not valid JSON", with no
    /// coding path. When the fast path found such a number and the text is valid JSON, the error
    /// says what it is instead: "the number 123456789012345678901 is out of range for Int".
    public func decode<Value: Decodable>(_ type: Value.Type, from text: String, fallback: JSONDecoder) throws -> Value {
        var text = text
        if let value = text.withUTF8({ read(Value.self, from: $0) }) { return value }
        let numberProblem = session.numberProblem
        do {
            return try fallback.decode(Value.self, from: Data(text.utf8))
        } catch DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty {
            guard let numberProblem, text.withUTF8(Self.isOneJSONValue) else { throw DecodingError.dataCorrupted(context) }
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: [], debugDescription: numberProblem, underlyingError: DecodingError.dataCorrupted(context)))
        }
    }

    /// Whether `bytes` are one JSON value and nothing more.
    private static func isOneJSONValue(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var scanner = JSONScanner(bytes)
        return (try? scanner.skipValue()) != nil && (try? scanner.expectEnd()) != nil
    }

    /// The fast path alone: `nil` when it declined, or when `JSONDecoder` fails too.
    public func read<Value: Decodable>(_ type: Value.Type, from bytes: UnsafeBufferPointer<UInt8>) -> Value? {
        session.begin(bytes)
        // A decoder the value kept past this call reads nothing (the bytes are borrowed).
        defer { session.close() }
        guard let value = try? Value(from: ScannerDecoder(session: session, offset: 0, depth: 0)), !session.declined else { return nil }
        // The whole input is one value: nothing after what was read (each container read its
        // value to the end, and a value never read leaves the end short, which declines too).
        var rest = session.scanner(at: session.end, depth: 0)
        guard (try? rest.expectEnd()) != nil else { return nil }
        return value
    }

    /// `read(_:from:)` of a whole text.
    public func read<Value: Decodable>(_ type: Value.Type, from text: String) -> Value? {
        var text = text
        return text.withUTF8 { read(Value.self, from: $0) }
    }
}

/// What one decode shares: the bytes, whether it declined, how far values were read, and the
/// index of every object's members and array's elements read so far (one buffer for all).
///
/// The state is kept behind a pointer, not in stored properties: every value read touches it,
/// and a class's stored properties are checked for exclusive access at run time on each access.
final class DecodingSession {
    private struct State {
        var bytes = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
        var declined = false
        /// The first number the fast path found its type cannot hold, said for people.
        var numberProblem: String?
        /// The furthest offset any value was read to.
        var end = 0
        /// Each container's members (an array's elements with an empty key), in one buffer: a
        /// container keeps its range, and those it opens while reading its values append after it.
        /// A key is where its bytes are: plain ASCII (see `ObjectMembers`), compared byte for byte.
        var members: [(key: Range<Int>, offset: Int)] = []
        /// Per object being read, where its next member is expected (see `ObjectMembers`).
        var cursors: [Int] = []
        /// Which decode this is: a container kept from an earlier one finds no members.
        var generation = 0
    }

    private let state = UnsafeMutablePointer<State>.allocate(capacity: 1)
    /// The decoders' `userInfo`; read only by types that ask for it.
    var userInfo: [CodingUserInfoKey: Any] = [:]

    init() {
        state.initialize(to: State())
        state.pointee.members.reserveCapacity(32)
        state.pointee.cursors.reserveCapacity(8)
    }

    deinit {
        state.deinitialize(count: 1)
        state.deallocate()
    }

    var declined: Bool { state.pointee.declined }
    var numberProblem: String? { state.pointee.numberProblem }
    var end: Int { state.pointee.end }
    var generation: Int { state.pointee.generation }
    var memberCount: Int { state.pointee.members.count }

    func begin(_ bytes: UnsafeBufferPointer<UInt8>) {
        state.pointee.bytes = bytes
        state.pointee.declined = false
        state.pointee.numberProblem = nil
        state.pointee.end = 0
        state.pointee.members.removeAll(keepingCapacity: true)
        state.pointee.cursors.removeAll(keepingCapacity: true)
        state.pointee.generation &+= 1
    }

    /// A scanner at `offset` (at most the end); once the decode is over, a scanner of nothing.
    func scanner(at offset: Int, depth: Int) -> JSONScanner {
        let bytes = state.pointee.bytes
        return JSONScanner(bytes, at: min(offset, bytes.count), depth: depth)
    }

    func close() {
        state.pointee.bytes = UnsafeBufferPointer(start: nil, count: 0)
    }

    func addCursor(at index: Int) -> Int {
        state.pointee.cursors.append(index)
        return state.pointee.cursors.count - 1
    }

    /// The offset of the value of `name` among the members at `range`, looked for from where
    /// cursor `slot` points (then from the first member), which then moves past it.
    func offset(of name: String, in range: Range<Int>, cursor slot: Int) -> Int? {
        var name = name
        return name.withUTF8 { name in
            let next = min(max(state.pointee.cursors[slot], range.lowerBound), range.upperBound)
            // A type that skips a member or two still finds the next one ahead of the cursor.
            for index in next..<range.upperBound where isKey(state.pointee.members[index].key, name) {
                return found(index, cursor: slot)
            }
            for index in range.lowerBound..<next where isKey(state.pointee.members[index].key, name) {
                return found(index, cursor: slot)
            }
            return nil
        }
    }

    private func found(_ index: Int, cursor slot: Int) -> Int {
        state.pointee.cursors[slot] = index + 1
        return state.pointee.members[index].offset
    }

    /// Whether the key at `key` is `name`'s bytes.
    private func isKey(_ key: Range<Int>, _ name: UnsafeBufferPointer<UInt8>) -> Bool {
        guard key.count == name.count else { return false }
        let bytes = state.pointee.bytes.baseAddress! + key.lowerBound
        // Keys are short: byte by byte, not through a `memcmp` call.
        for index in 0..<name.count where bytes[index] != name[index] { return false }
        return true
    }

    /// Whether the key at `key` is among the members from `first` on.
    func hasMember(_ key: Range<Int>, from first: Int) -> Bool {
        let name = UnsafeBufferPointer(rebasing: state.pointee.bytes[key])
        return state.pointee.members[first...].contains { isKey($0.key, name) }
    }

    /// The key at `key` as a `String`.
    func key(_ key: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: state.pointee.bytes[key]), as: UTF8.self)
    }

    func memberOffsets(from first: Int) -> [String: Int] {
        Dictionary(state.pointee.members[first...].lazy.map { (self.key($0.key), $0.offset) }, uniquingKeysWith: { first, _ in first })
    }

    /// The members at `range`, of the decode `generation` (none of another's).
    func members(_ range: Range<Int>, of generation: Int) -> ArraySlice<(key: Range<Int>, offset: Int)> {
        generation == state.pointee.generation ? state.pointee.members[range] : []
    }

    func addMember(_ key: Range<Int>, at offset: Int) {
        state.pointee.members.append((key, offset))
    }

    func reached(_ offset: Int) {
        if offset > state.pointee.end { state.pointee.end = offset }
    }

    /// Declines a number at `offset` that `T` cannot hold, and keeps the first such for the
    /// error `JSONDecoder` gives the same payload (see `ScannerDecoding.decode`).
    func declineNumber<T>(_ type: T.Type, at offset: Int, _ reason: String) -> JSONReadError {
        if state.pointee.numberProblem == nil {
            let bytes = state.pointee.bytes[offset...].prefix { Self.isNumberByte($0) }
            // A server may send a megabyte of digits: the message shows the first 40.
            let shown = String(decoding: bytes.prefix(40), as: UTF8.self) + (bytes.count > 40 ? "… (\(bytes.count) characters)" : "")
            let whole = !bytes.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
            let what: String
            if T.self is any FixedWidthInteger.Type {
                what = whole ? "is out of range for \(T.self)" : "is not a whole number, as \(T.self) needs"
            } else {
                what = reason.contains("too small") ? "is too small for \(T.self)" : "is out of range for \(T.self)"
            }
            state.pointee.numberProblem = "the number \(shown) at byte \(offset) \(what)"
        }
        return decline(reason)
    }

    private static func isNumberByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+")
            || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E")
    }

    /// Marks the decode as declined; the error to throw (any type catching it changes nothing).
    func decline(_ reason: String = "declined") -> JSONReadError {
        state.pointee.declined = true
        return JSONReadError(offset: end, reason: reason)
    }

    /// Coding paths are not tracked: asking for one (only errors and unusual types do) declines.
    func untrackedCodingPath() -> [any CodingKey] {
        _ = decline("a coding path was asked for")
        return []
    }

    /// What `JSONDecoder` throws for a value of the wrong kind at `offset`; a decline when the
    /// value is malformed.
    func mismatch(_ type: Any.Type, at offset: Int) -> any Swift.Error {
        var scanner = scanner(at: offset, depth: 0)
        // Never shown (`JSONDecoder` decodes a payload that fails here, and its error is the one
        // reported), and made often (a union tries variants): no type name in it.
        let context = DecodingError.Context(codingPath: [], debugDescription: "another kind of value")
        switch scanner.peek() ?? 0 {
        case UInt8(ascii: "n"): return DecodingError.valueNotFound(type, context)
        case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "\""), UInt8(ascii: "t"), UInt8(ascii: "f"),
             UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return DecodingError.typeMismatch(type, context)
        default: return decline("expected a value")
        }
    }
}

/// The `Decoder` for the value at `offset`.
struct ScannerDecoder: Decoder {
    let session: DecodingSession
    let offset: Int
    /// The objects and arrays around the value.
    let depth: Int

    var codingPath: [any CodingKey] { session.untrackedCodingPath() }

    var userInfo: [CodingUserInfoKey: Any] { session.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(try ScannerKeyedContainer<Key>(session: session, offset: offset, depth: depth))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try ScannerUnkeyedContainer(session: session, offset: offset, depth: depth)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        ScannerValue(session: session, offset: offset, depth: depth)
    }

    /// An ISO 8601 date read from the bytes (no `String` made), for `ISO8601`; `nil` when the value
    /// is not an unescaped string in the everyday forms `ISO8601DateReader` knows.
    func readEverydayDate() -> Date? {
        var scanner = session.scanner(at: offset, depth: depth)
        guard let date = scanner.readUnescapedString(ISO8601DateReader.date(from:)) else { return nil }
        session.reached(scanner.offset)
        return date
    }
}

/// One value: reads it as each type a container asks for.
struct ScannerValue: SingleValueDecodingContainer {
    let session: DecodingSession
    let offset: Int
    let depth: Int

    var codingPath: [any CodingKey] { session.untrackedCodingPath() }

    func decodeNil() -> Bool {
        var scanner = session.scanner(at: offset, depth: depth)
        guard scanner.consumeNull() else { return false }
        session.reached(scanner.offset)
        return true
    }

    /// Reads a value of `kind` with `body`; another kind is a mismatch, any other failure declines.
    private func read<T>(_ type: T.Type, _ kind: JSONKind, _ body: (inout JSONReader) throws(JSONReadError) -> T) throws -> T {
        var reader = JSONReader(scanner: session.scanner(at: offset, depth: depth))
        guard reader.peekKind() == kind else { throw session.mismatch(T.self, at: offset) }
        do throws(JSONReadError) {
            let value = try body(&reader)
            session.reached(reader.scanner.offset)
            return value
        } catch {
            if kind == .number { throw session.declineNumber(T.self, at: offset, error.reason) }
            throw session.decline(error.reason)
        }
    }

    private func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        try read(T.self, .number) { json throws(JSONReadError) in try json.readInteger(T.self) }
    }

    func decode(_ type: Bool.Type) throws -> Bool { try read(Bool.self, .bool) { json throws(JSONReadError) in try json.scanner.readBool() } }
    func decode(_ type: String.Type) throws -> String { try read(String.self, .string) { json throws(JSONReadError) in try json.readString() } }
    func decode(_ type: Double.Type) throws -> Double { try read(Double.self, .number) { json throws(JSONReadError) in try json.readDouble() } }
    func decode(_ type: Float.Type) throws -> Float { try read(Float.self, .number) { json throws(JSONReadError) in try json.readFloat() } }
    func decode(_ type: Int.Type) throws -> Int { try integer(Int.self) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(Int8.self) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(Int16.self) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(Int32.self) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(Int64.self) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(UInt.self) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(UInt8.self) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(UInt16.self) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(UInt32.self) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(UInt64.self) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        // Run unspecialized for a dictionary's values: the usual leaf types go straight to their
        // readers, not through their `init(from:)` and a single-value container.
        if T.self == String.self { return try decode(String.self) as! T }
        if T.self == Bool.self { return try decode(Bool.self) as! T }
        if T.self == Int.self { return try decode(Int.self) as! T }
        if T.self == Double.self { return try decode(Double.self) as! T }
        // A generated model's date: read from the bytes here, not through the wrapper's `init(from:)`.
        if T.self == ISO8601<Date>.self, let date = ScannerDecoder(session: session, offset: offset, depth: depth).readEverydayDate() {
            return ISO8601(wrappedValue: date) as! T
        }
        // Only an object can be a dictionary: the conformance lookup is skipped for every other value.
        var scanner = session.scanner(at: offset, depth: depth)
        if scanner.peek() == UInt8(ascii: "{"), let dictionary = T.self as? any ScannedDictionary.Type {
            return try dictionary.read(from: self, as: T.self)
        }
        return try T(from: ScannerDecoder(session: session, offset: offset, depth: depth))
    }
}

/// `[String: Value]` read member by member, not through `Dictionary`'s `init(from:)` (run
/// unspecialized, it costs more than the rest of a model). `JSONDecoder` reads them directly too.
protocol ScannedDictionary {
    static func read<T>(from value: ScannerValue, as type: T.Type) throws -> T
}

extension Dictionary: ScannedDictionary where Key == String, Value: Decodable {
    static func read<T>(from value: ScannerValue, as type: T.Type) throws -> T {
        let object = try ObjectMembers(session: value.session, offset: value.offset, depth: value.depth)
        // `T` is `Self`: the caller's cast says so. The usual leaf types are read by code
        // specialized for them; for any other `Value` each member goes through its metadata.
        if Value.self == Bool.self { return try object.dictionary(of: Bool.self, depth: value.depth + 1) as! T }
        if Value.self == String.self { return try object.dictionary(of: String.self, depth: value.depth + 1) as! T }
        if Value.self == Int.self { return try object.dictionary(of: Int.self, depth: value.depth + 1) as! T }
        if Value.self == Double.self { return try object.dictionary(of: Double.self, depth: value.depth + 1) as! T }
        return try object.dictionary(of: Value.self, depth: value.depth + 1) as! T
    }
}

extension ObjectMembers {
    /// The members as a dictionary of `Value`s at `depth`.
    func dictionary<Value: Decodable>(of type: Value.Type, depth: Int) throws -> [String: Value] {
        var result: [String: Value] = [:]
        result.reserveCapacity(members.count)
        for (key, offset) in members {
            result[session.key(key)] = try ScannerValue(session: session, offset: offset, depth: depth).decode(Value.self)
        }
        return result
    }
}

/// An object's members, indexed once (each value skipped and checked), then found by key. Not
/// generic over the coding keys, so this work is compiled once, specialized.
struct ObjectMembers {
    let session: DecodingSession
    /// Where the members are in `session.members`.
    private let range: Range<Int>
    private let generation: Int
    /// Where this object's next member is expected (`session.cursors`): a type usually decodes its
    /// properties in the order the JSON has them, so most lookups compare one key.
    private let cursor: Int
    /// For objects with many members: each key's value offset.
    private let offsets: [String: Int]?

    /// Above this many members, keys are found through a dictionary instead of one by one.
    private static var largestScanned: Int { 16 }

    init(session: DecodingSession, offset: Int, depth: Int) throws {
        self.session = session
        var scanner = session.scanner(at: offset, depth: depth)
        guard scanner.peek() == UInt8(ascii: "{") else { throw session.mismatch([String: Any].self, at: offset) }
        let first = session.memberCount
        var offsets: [String: Int]?
        do throws(JSONReadError) {
            // Keys beyond ASCII are equal when canonically equivalent, whatever their bytes, and
            // escaped keys are equal to others by their text: both are left to `JSONDecoder`.
            try scanner.readObjectWithPlainKeys { scanner, key throws(JSONReadError) in
                _ = scanner.peek()
                // `JSONDecoder` keeps one of two equal keys; which one is its own to decide.
                if session.memberCount - first < Self.largestScanned {
                    if session.hasMember(key, from: first) { throw JSONReadError(offset: scanner.offset, reason: "a key appears twice") }
                } else {
                    if offsets == nil { offsets = session.memberOffsets(from: first) }
                    if offsets!.updateValue(scanner.offset, forKey: session.key(key)) != nil {
                        throw JSONReadError(offset: scanner.offset, reason: "a key appears twice")
                    }
                }
                session.addMember(key, at: scanner.offset)
                try scanner.skipValue()
            }
        } catch {
            throw session.decline(error.reason)
        }
        session.reached(scanner.offset)
        range = first..<session.memberCount
        generation = session.generation
        cursor = session.addCursor(at: first)
        self.offsets = offsets
    }

    var members: ArraySlice<(key: Range<Int>, offset: Int)> { session.members(range, of: generation) }
    var keys: [String] { members.map { session.key($0.key) } }

    func offset(of name: String) -> Int? {
        guard generation == session.generation else { return nil }
        if let offsets { return offsets[name] }
        return session.offset(of: name, in: range, cursor: cursor)
    }
}

/// An object read by key.
struct ScannerKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    private let object: ObjectMembers
    private var session: DecodingSession { object.session }
    /// The depth of the members' values.
    private let depth: Int

    init(session: DecodingSession, offset: Int, depth: Int) throws {
        object = try ObjectMembers(session: session, offset: offset, depth: depth)
        self.depth = depth + 1
    }

    var codingPath: [any CodingKey] { session.untrackedCodingPath() }

    var allKeys: [Key] { object.keys.compactMap { Key(stringValue: $0) } }

    private func offset(of key: Key) -> Int? { object.offset(of: key.stringValue) }

    func contains(_ key: Key) -> Bool { offset(of: key) != nil }

    private func value(_ key: Key) throws -> ScannerValue {
        guard let offset = offset(of: key) else {
            throw DecodingError.keyNotFound(key, DecodingError.Context(codingPath: [], debugDescription: "no value for the key"))
        }
        return ScannerValue(session: session, offset: offset, depth: depth)
    }

    /// The value of `key`, or `nil` when it is missing or `null` (as `decodeIfPresent` has it).
    private func valueIfPresent(_ key: Key) -> ScannerValue? {
        guard let offset = offset(of: key) else { return nil }
        let value = ScannerValue(session: session, offset: offset, depth: depth)
        return value.decodeNil() ? nil : value
    }

    func decodeNil(forKey key: Key) throws -> Bool { try value(key).decodeNil() }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try value(key).decode(type) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try value(key).decode(type) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try value(key).decode(type) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try value(key).decode(type) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try value(key).decode(type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try value(key).decode(type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try value(key).decode(type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try value(key).decode(type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try value(key).decode(type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try value(key).decode(type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try value(key).decode(type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try value(key).decode(type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try value(key).decode(type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try value(key).decode(type) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try value(key).decode(type) }

    // One lookup instead of the default's three (`contains`, `decodeNil`, `decode`).
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try valueIfPresent(key)?.decode(type) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try valueIfPresent(key)?.decode(type) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try valueIfPresent(key)?.decode(type) }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try valueIfPresent(key)?.decode(type) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try valueIfPresent(key)?.decode(type) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try valueIfPresent(key)?.decode(type) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try valueIfPresent(key)?.decode(type) }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? { try valueIfPresent(key)?.decode(type) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        throw session.decline("nested containers are left to JSONDecoder")
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw session.decline("nested containers are left to JSONDecoder")
    }

    func superDecoder() throws -> any Decoder { throw session.decline("super decoders are left to JSONDecoder") }
    func superDecoder(forKey key: Key) throws -> any Decoder { throw session.decline("super decoders are left to JSONDecoder") }
}

/// An array's elements, indexed once (each skipped and checked), then read in order.
struct ScannerUnkeyedContainer: UnkeyedDecodingContainer {
    private let session: DecodingSession
    /// Where the elements are in `session.members`.
    private let elements: Range<Int>
    private let generation: Int
    /// The depth of the elements.
    private let depth: Int
    private(set) var currentIndex = 0

    init(session: DecodingSession, offset: Int, depth: Int) throws {
        self.session = session
        self.depth = depth + 1
        var scanner = session.scanner(at: offset, depth: depth)
        guard scanner.peek() == UInt8(ascii: "[") else { throw session.mismatch([Any].self, at: offset) }
        let first = session.memberCount
        do throws(JSONReadError) {
            try scanner.readArray { scanner throws(JSONReadError) in
                _ = scanner.peek()
                session.addMember(0..<0, at: scanner.offset)
                try scanner.skipValue()
            }
        } catch {
            throw session.decline(error.reason)
        }
        session.reached(scanner.offset)
        elements = first..<session.memberCount
        generation = session.generation
    }

    var codingPath: [any CodingKey] { session.untrackedCodingPath() }
    var count: Int? { elements.count }

    private func element(_ index: Int) -> ScannerValue {
        // Of an earlier decode: a value at the end, which reads nothing.
        let offset = session.members(elements, of: generation).dropFirst(index).first?.offset ?? Int.max
        return ScannerValue(session: session, offset: offset, depth: depth)
    }
    var isAtEnd: Bool { currentIndex >= elements.count }

    /// The next element; reading it moves on only when it succeeds, as in `JSONDecoder`.
    private mutating func next<T>(_ read: (ScannerValue) throws -> T) throws -> T {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(T.self, DecodingError.Context(codingPath: [], debugDescription: "the array is at its end"))
        }
        let value = try read(element(currentIndex))
        currentIndex += 1
        return value
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(Any?.self, DecodingError.Context(codingPath: [], debugDescription: "the array is at its end"))
        }
        guard element(currentIndex).decodeNil() else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next { try $0.decode(type) } }
    mutating func decode(_ type: String.Type) throws -> String { try next { try $0.decode(type) } }
    mutating func decode(_ type: Double.Type) throws -> Double { try next { try $0.decode(type) } }
    mutating func decode(_ type: Float.Type) throws -> Float { try next { try $0.decode(type) } }
    mutating func decode(_ type: Int.Type) throws -> Int { try next { try $0.decode(type) } }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next { try $0.decode(type) } }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next { try $0.decode(type) } }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next { try $0.decode(type) } }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next { try $0.decode(type) } }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next { try $0.decode(type) } }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next { try $0.decode(type) } }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next { try $0.decode(type) } }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next { try $0.decode(type) } }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next { try $0.decode(type) } }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next { try $0.decode(type) } }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        throw session.decline("nested containers are left to JSONDecoder")
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw session.decline("nested containers are left to JSONDecoder")
    }

    mutating func superDecoder() throws -> any Decoder { throw session.decline("super decoders are left to JSONDecoder") }
}
