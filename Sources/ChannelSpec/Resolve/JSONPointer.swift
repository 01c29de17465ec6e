
/// RFC 6901 JSON pointers as they appear in `$ref` fragments (`#/components/schemas/a~1b`).
package enum JSONPointer {
    /// Splits a pointer into unescaped reference tokens; `nil` when it does not start with `/`.
    package static func tokens(_ pointer: String) -> [String]? {
        if pointer.isEmpty { return [] }
        let utf8 = pointer.utf8
        guard utf8.first == UInt8(ascii: "/") else { return nil }
        // Split on bytes: `Substring.split` compares `Character`s, so it breaks graphemes, and this
        // runs for every `$ref`.
        var tokens: [String] = []
        var start = utf8.index(after: utf8.startIndex)
        while true {
            let end = utf8[start...].firstIndex(of: UInt8(ascii: "/")) ?? utf8.endIndex
            tokens.append(unescape(Substring(utf8[start..<end])))
            guard end != utf8.endIndex else { return tokens }
            start = utf8.index(after: end)
        }
    }

    /// One token with `~1` and `~0` decoded: `~1` first, then `~0`, so `~01` decodes to `~1` and not `/`.
    private static func unescape(_ token: Substring) -> String {
        guard token.utf8.contains(UInt8(ascii: "~")) else { return String(token) }
        return String(token).replacing("~1", with: "/").replacing("~0", with: "~")
    }

    /// The last token of a pointer (`tokens(pointer)?.last` without splitting the rest).
    package static func lastToken(_ pointer: String) -> String? {
        if pointer.isEmpty { return nil }
        guard pointer.hasPrefix("/"), let slash = pointer.utf8.lastIndex(of: UInt8(ascii: "/")) else { return nil }
        // `utf8.index(after:)`: `String.index(after:)` steps a whole `Character`, which would swallow
        // a combining mark that follows the slash.
        return unescape(Substring(pointer.utf8[pointer.utf8.index(after: slash)...]))
    }

    /// Escapes one token for appending to a pointer.
    package static func escape(_ token: String) -> String {
        // Over the contiguous bytes: the view byte by byte cost more than the rest of a cursor step.
        let special: (UInt8) -> Bool = { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }
        let needsEscapes = token.utf8.withContiguousStorageIfAvailable { $0.contains(where: special) } ?? token.utf8.contains(where: special)
        guard needsEscapes else { return token }
        return token.replacing("~", with: "~0").replacing("/", with: "~1")
    }

    /// Decodes `%XX` escapes of a URI fragment; `nil` for a malformed escape.
    package static func percentDecoded(_ fragment: String) -> String? {
        guard fragment.utf8.contains(UInt8(ascii: "%")) else { return fragment }
        var bytes: [UInt8] = []
        var iterator = Array(fragment.utf8).makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next(), let low = iterator.next(),
                      let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) else { return nil }
                bytes.append(value)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
