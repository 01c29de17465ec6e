
/// RFC 6901 JSON pointers as they appear in `$ref` fragments (`#/components/schemas/a~1b`).
package enum JSONPointer {
    /// Splits a pointer into unescaped reference tokens; `nil` when it does not start with `/`.
    package static func tokens(_ pointer: String) -> [String]? {
        if pointer.isEmpty { return [] }
        guard pointer.hasPrefix("/") else { return nil }
        return pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map { token in
            guard token.utf8.contains(UInt8(ascii: "~")) else { return String(token) }
            // `~1` first, then `~0`, so `~01` decodes to `~1` and not `/`.
            return String(token).replacing("~1", with: "/").replacing("~0", with: "~")
        }
    }

    /// The last token of a pointer (`tokens(pointer)?.last` without splitting the rest).
    package static func lastToken(_ pointer: String) -> String? {
        if pointer.isEmpty { return nil }
        guard pointer.hasPrefix("/"), let slash = pointer.utf8.lastIndex(of: UInt8(ascii: "/")) else { return nil }
        let token = pointer[pointer.index(after: slash)...]
        guard token.utf8.contains(UInt8(ascii: "~")) else { return String(token) }
        return String(token).replacing("~1", with: "/").replacing("~0", with: "~")
    }

    /// Escapes one token for appending to a pointer.
    package static func escape(_ token: String) -> String {
        guard token.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else { return token }
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
