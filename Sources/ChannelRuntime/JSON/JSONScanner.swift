/// Reads JSON from UTF-8 bytes in one pass, building only what it is asked for: the fast decoding
/// paths of the runtime (and, later, of generated models) stand on it.
///
/// Strict where JSON is strict (no unescaped control characters in strings, no trailing commas,
/// numbers by the grammar, nesting at most `maximumDepth`), and invalid UTF-8 in a string is an
/// error, not a repaired character. A value type over borrowed bytes: use it inside
/// `withContiguousStorageIfAvailable` or `withUnsafeBufferPointer`.
package struct JSONScanner {
    /// Why the bytes are not the JSON expected, with the byte offset: the same error the generated
    /// decoders' `JSONReader` throws, so the two layers need no conversion.
    package typealias Failure = JSONReadError

    /// Nesting allowed, as in Foundation's `JSONDecoder` (512).
    package static let maximumDepth = 512

    private let bytes: UnsafeBufferPointer<UInt8>
    package private(set) var offset: Int
    /// Objects and arrays open around the current position. Counted here, not by callers: a
    /// generated decoder of a type that contains itself recurses once per level of the input.
    private var depth = 0

    package init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        offset = 0
    }

    /// A scanner at `offset`, inside `depth` objects and arrays (which count against `maximumDepth`).
    package init(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int, depth: Int) {
        self.bytes = bytes
        self.offset = offset
        self.depth = depth
    }

    // MARK: Structure

    /// Skips spaces, tabs and line ends.
    package mutating func skipWhitespace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x09, 0x0A, 0x0D: offset += 1
            default: return
            }
        }
    }

    /// The next byte after whitespace, not consumed.
    package mutating func peek() -> UInt8? {
        skipWhitespace()
        return offset < bytes.count ? bytes[offset] : nil
    }

    package mutating func expect(_ byte: UInt8, _ what: String) throws(Failure) {
        guard peek() == byte else { throw failure("expected \(what)") }
        offset += 1
    }

    /// Nothing but whitespace is left.
    package mutating func expectEnd() throws(Failure) {
        guard peek() == nil else { throw failure("unexpected content after the value") }
    }

    /// Reads an object, calling `member` with each key; `member` must read or skip the value.
    package mutating func readObject(_ member: (inout JSONScanner, String) throws(Failure) -> Void) throws(Failure) {
        try readMembers { scanner throws(Failure) in
            let key = try scanner.readString()
            try scanner.expect(UInt8(ascii: ":"), "':'")
            try member(&scanner, key)
        }
    }

    /// `readObject(_:)` for objects whose keys are ASCII without escapes, each passed as where its
    /// bytes are (no `String` made); any other key throws.
    package mutating func readObjectWithPlainKeys(_ member: (inout JSONScanner, Range<Int>) throws(Failure) -> Void) throws(Failure) {
        try readMembers { scanner throws(Failure) in
            guard let key = scanner.readPlainString() else { throw scanner.failure("a key with escapes or beyond ASCII") }
            try scanner.expect(UInt8(ascii: ":"), "':'")
            try member(&scanner, key)
        }
    }

    /// The braces and commas of an object; `member` reads one key, its colon and its value.
    private mutating func readMembers(_ member: (inout JSONScanner) throws(Failure) -> Void) throws(Failure) {
        try expect(UInt8(ascii: "{"), "'{'")
        try enterNesting()
        defer { depth -= 1 }
        if peek() == UInt8(ascii: "}") {
            offset += 1
            return
        }
        while true {
            guard peek() == UInt8(ascii: "\"") else { throw failure("expected a key") }
            try member(&self)
            switch peek() {
            case UInt8(ascii: ","): offset += 1
            case UInt8(ascii: "}"):
                offset += 1
                return
            default: throw failure("expected ',' or '}'")
            }
        }
    }

    /// Reads an array, calling `element` for each; `element` must read or skip the value.
    package mutating func readArray(_ element: (inout JSONScanner) throws(Failure) -> Void) throws(Failure) {
        try expect(UInt8(ascii: "["), "'['")
        try enterNesting()
        defer { depth -= 1 }
        if peek() == UInt8(ascii: "]") {
            offset += 1
            return
        }
        while true {
            try element(&self)
            switch peek() {
            case UInt8(ascii: ","): offset += 1
            case UInt8(ascii: "]"):
                offset += 1
                return
            default: throw failure("expected ',' or ']'")
            }
        }
    }

    // MARK: Values

    /// Reads a string, unescaping it once.
    package mutating func readString() throws(Failure) -> String {
        try expect(UInt8(ascii: "\""), "a string")
        let start = offset
        // Most strings hold no escape: one scan, one copy. ASCII (the bytes OR-ed below 0x80)
        // needs no UTF-8 validation.
        var high: UInt8 = 0
        offset = plainRunEnd(from: offset, high: &high)
        guard offset < bytes.count else { throw failure("unterminated string") }
        switch bytes[offset] {
        case UInt8(ascii: "\""):
            let raw = UnsafeBufferPointer(start: bytes.baseAddress! + start, count: offset - start)
            let text = high < 0x80 ? String(decoding: raw, as: UTF8.self) : try utf8String(raw, at: start)
            offset += 1
            return text
        case UInt8(ascii: "\\"):
            break
        default:
            throw failure("unescaped control character in a string")
        }
        let resume = offset
        // Escaped (an event inside an envelope is escaped throughout): unescaped straight into the
        // new string's storage, which is never longer than the escaped text. Sized by that text, not
        // by the rest of the input: a string keeps its capacity, so each of a frame's thousands of
        // events would otherwise hold up to the whole frame.
        let capacity = escapedTextEnd(from: offset) - start
        var failed: Failure?
        let text = String(unsafeUninitializedCapacity: capacity) { output -> Int in
            do throws(Failure) {
                return try unescape(from: start, into: output, high: &high)
            } catch {
                failed = error
                return 0
            }
        }
        if let failed { throw failed }
        guard high >= 0x80 else { return text }
        // Non-ASCII text: that initializer repairs invalid UTF-8, so read it again and validate.
        offset = resume
        var unescaped = [UInt8](repeating: 0, count: capacity)
        let count = try unescaped.withUnsafeMutableBufferPointer { output throws(Failure) in try unescape(from: start, into: output, high: &high) }
        return try unescaped.withUnsafeBufferPointer { buffer throws(Failure) in
            try utf8String(UnsafeBufferPointer(rebasing: buffer[..<count]), at: start)
        }
    }

    /// Where the next string's bytes are (inside its quotes), when it is ASCII without escapes:
    /// then it is read. Otherwise nothing is read and the result is `nil`.
    package mutating func readPlainString() -> Range<Int>? {
        guard peek() == UInt8(ascii: "\"") else { return nil }
        var high: UInt8 = 0
        let end = plainRunEnd(from: offset + 1, high: &high)
        guard end < bytes.count, bytes[end] == UInt8(ascii: "\""), high < 0x80 else { return nil }
        defer { offset = end + 1 }
        return (offset + 1)..<end
    }

    /// `body`'s result for the next string's bytes, when the string holds no escape and `body`
    /// takes it (non-`nil`): then the string is read. Otherwise nothing is read and the result is
    /// `nil`, so the caller can read the string as a `String` (a date the fast reader does not
    /// know, for one, without making a `String` of every date it does).
    package mutating func readUnescapedString<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result?) -> Result? {
        let start = offset
        guard let range = readPlainString(), let result = body(UnsafeBufferPointer(rebasing: bytes[range])) else {
            offset = start
            return nil
        }
        return result
    }

    /// Skips a string, checked as `readString` checks it; no `String` is made of a plain one.
    private mutating func skipString() throws(Failure) {
        if readPlainString() == nil { _ = try readString() }
    }

    /// Unescapes the string that began at `start` (its opening quote just before) into `output`, from
    /// the current offset (its first escape), through the closing quote; returns the bytes written.
    /// `high` collects the raw bytes OR-ed (escapes yield valid UTF-8 by construction).
    private mutating func unescape(from start: Int, into output: UnsafeMutableBufferPointer<UInt8>, high: inout UInt8) throws(Failure) -> Int {
        var written = offset - start
        output.baseAddress!.update(from: bytes.baseAddress! + start, count: written)
        while true {
            let end = plainRunEnd(from: offset, high: &high)
            // The output is sized by `escapedTextEnd`; a write past it would be a scanner defect,
            // which must not become a memory error.
            guard written + (end - offset) <= output.count else { throw failure("string longer than its text") }
            (output.baseAddress! + written).update(from: bytes.baseAddress! + offset, count: end - offset)
            written += end - offset
            offset = end
            guard offset < bytes.count else { throw failure("unterminated string") }
            switch bytes[offset] {
            case UInt8(ascii: "\""):
                offset += 1
                return written
            case UInt8(ascii: "\\"):
                offset += 1
                written = try readEscape(into: output, at: written)
            default:
                throw failure("unescaped control character in a string")
            }
        }
    }

    /// Where an escaped string's text ends, from `start` inside it: its closing quote, or where
    /// `unescape` stops with an error (a control character, the end of the input). Unescaping
    /// never writes more bytes than it reads, so the text's length bounds the string's.
    private func escapedTextEnd(from start: Int) -> Int {
        var index = start
        var high: UInt8 = 0
        while true {
            index = plainRunEnd(from: index, high: &high)
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\\") else { return index }
            index = min(index + 2, bytes.count)
        }
    }

    /// Where the run of bytes a string holds as they are ends, from `start`: the first quote,
    /// backslash or control character, or the end of the input. The run's bytes are OR-ed into
    /// `high` (only its top bit is used: whether the run holds non-ASCII bytes).
    ///
    /// Eight bytes at a time (the bit tricks of "Bit Twiddling Hacks": a byte below `n` sets the top
    /// bit of `(x - n·0x01…) & ~x`; equal bytes are a zero of `x ^ c·0x01…`). A borrow only runs
    /// upwards, so bytes above the first match may show false matches, never those below: the lowest
    /// set bit is the first match.
    private func plainRunEnd(from start: Int, high: inout UInt8) -> Int {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let tops: UInt64 = 0x8080_8080_8080_8080
        let base = UnsafeRawPointer(bytes.baseAddress!)
        var index = start
        var seen: UInt64 = 0
        defer { if seen & tops != 0 { high |= 0x80 } }
        while index + 8 <= bytes.count {
            let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            let quotes = word ^ (ones &* UInt64(UInt8(ascii: "\"")))
            let backslashes = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
            let matches = ((word &- ones &* 0x20) & ~word | (quotes &- ones) & ~quotes | (backslashes &- ones) & ~backslashes) & tops
            if matches != 0 {
                let plain = matches.trailingZeroBitCount / 8
                seen |= word & ((1 << (UInt64(plain) * 8)) &- 1)
                return index + plain
            }
            seen |= word
            index += 8
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { return index }
            seen |= UInt64(byte)
            index += 1
        }
        return index
    }

    /// Reads one escape (after its backslash) into `output` at `index`; returns the next index.
    private mutating func readEscape(into output: UnsafeMutableBufferPointer<UInt8>, at index: Int) throws(Failure) -> Int {
        guard offset < bytes.count else { throw failure("unterminated escape") }
        let byte = bytes[offset]
        offset += 1
        let simple: UInt8
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): simple = byte
        case UInt8(ascii: "b"): simple = 0x08
        case UInt8(ascii: "f"): simple = 0x0C
        case UInt8(ascii: "n"): simple = 0x0A
        case UInt8(ascii: "r"): simple = 0x0D
        case UInt8(ascii: "t"): simple = 0x09
        case UInt8(ascii: "u"):
            var scalar = try readHex4()
            if (0xD800...0xDBFF).contains(scalar) {
                // A high surrogate must be followed by an escaped low one.
                guard offset + 1 < bytes.count, bytes[offset] == UInt8(ascii: "\\"), bytes[offset + 1] == UInt8(ascii: "u") else {
                    throw failure("a lone surrogate in a \\u escape")
                }
                offset += 2
                let low = try readHex4()
                guard (0xDC00...0xDFFF).contains(low) else { throw failure("a lone surrogate in a \\u escape") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw failure("a lone surrogate in a \\u escape")
            }
            var next = index
            for unit in Unicode.UTF8.encode(Unicode.Scalar(scalar)!)! {
                guard next < output.count else { throw failure("string longer than its text") }
                output[next] = unit
                next += 1
            }
            return next
        default:
            throw failure("invalid escape")
        }
        guard index < output.count else { throw failure("string longer than its text") }
        output[index] = simple
        return index + 1
    }

    private mutating func readHex4() throws(Failure) -> UInt32 {
        guard offset + 4 <= bytes.count else { throw failure("short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[offset]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw failure("invalid \\u escape")
            }
            value = value << 4 | digit
            offset += 1
        }
        return value
    }

    private func utf8String(_ buffer: UnsafeBufferPointer<UInt8>, at start: Int) throws(Failure) -> String {
        let text: String?
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
            text = String(validating: buffer, as: UTF8.self)
        } else {
            text = Self.validatedUTF8(buffer)
        }
        guard let text else { throw Failure(offset: start, reason: "invalid UTF-8 in a string") }
        return text
    }

    /// `String(validating:as:)` where the system's standard library predates it (it came with
    /// macOS 15 and iOS 18): the bytes are checked scalar by scalar, then decoded.
    package static func validatedUTF8(_ buffer: UnsafeBufferPointer<UInt8>) -> String? {
        var bytes = buffer.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&bytes) {
            case .scalarValue: continue
            case .emptyInput: return String(decoding: buffer, as: UTF8.self)
            case .error: return nil
            }
        }
    }

    /// Reads `true` or `false`.
    package mutating func readBool() throws(Failure) -> Bool {
        if consumeLiteral("true") { return true }
        if consumeLiteral("false") { return false }
        throw failure("expected true or false")
    }

    /// Consumes `null` when it is next.
    package mutating func consumeNull() -> Bool { consumeLiteral("null") }

    private mutating func consumeLiteral(_ literal: StaticString) -> Bool {
        skipWhitespace()
        let count = literal.utf8CodeUnitCount
        guard offset + count <= bytes.count else { return false }
        for index in 0..<count where bytes[offset + index] != literal.utf8Start[index] { return false }
        offset += count
        return true
    }

    /// Reads a number by the JSON grammar and returns its text (for `Double` parsing).
    package mutating func readNumberText() throws(Failure) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[try readNumber()]), as: UTF8.self)
    }

    /// The integer a number's text at `range` writes (digits, optionally after '-'), when it fits
    /// `T`; `nil` for a fraction, an exponent, or a value out of range.
    package func integer<T: FixedWidthInteger>(in range: Range<Int>, as type: T.Type) -> T? {
        let negative = bytes[range.lowerBound] == UInt8(ascii: "-")
        // `-0` for an unsigned type is left to the caller's other path.
        if negative && !T.isSigned { return nil }
        var value: T = 0
        for index in (negative ? range.lowerBound + 1 : range.lowerBound)..<range.upperBound {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
            // Negative values are built downwards, so `T.min` fits.
            let (next, carry) = negative ? shifted.subtractingReportingOverflow(T(digit)) : shifted.addingReportingOverflow(T(digit))
            guard !overflow, !carry else { return nil }
            value = next
        }
        return value
    }

    /// Reads a number by the JSON grammar and returns where its text is.
    package mutating func readNumber() throws(Failure) -> Range<Int> {
        skipWhitespace()
        let start = offset
        func digits() -> Int {
            let first = offset
            while offset < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[offset]) { offset += 1 }
            return offset - first
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "-") { offset += 1 }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "0") {
            offset += 1
        } else if digits() == 0 {
            throw failure("expected a number")
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
            offset += 1
            guard digits() > 0 else { throw failure("expected digits after '.'") }
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "e") || bytes[offset] == UInt8(ascii: "E") {
            offset += 1
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") { offset += 1 }
            guard digits() > 0 else { throw failure("expected digits in the exponent") }
        }
        return start..<offset
    }

    private mutating func enterNesting() throws(Failure) {
        guard depth < Self.maximumDepth else { throw failure("nested too deeply") }
        depth += 1
    }

    /// Skips one value of any kind, checking it is well-formed.
    package mutating func skipValue() throws(Failure) {
        switch peek() {
        case UInt8(ascii: "\""): try skipString()
        case UInt8(ascii: "{"):
            try readMembers { scanner throws(Failure) in
                try scanner.skipString()
                try scanner.expect(UInt8(ascii: ":"), "':'")
                try scanner.skipValue()
            }
        case UInt8(ascii: "["): try readArray { scanner throws(Failure) in try scanner.skipValue() }
        case UInt8(ascii: "t"), UInt8(ascii: "f"): _ = try readBool()
        case UInt8(ascii: "n"):
            guard consumeNull() else { throw failure("expected null") }
        case .some: _ = try readNumber()
        case nil: throw failure("expected a value")
        }
    }

    private func failure(_ reason: String) -> Failure { Failure(offset: offset, reason: reason) }
}
