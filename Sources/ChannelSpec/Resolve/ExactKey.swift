/// `text` as a dictionary key that keeps apart what Swift's `String ==` calls equal.
///
/// Swift compares strings by canonical equivalence, so `é` (U+00E9) and `e` + U+0301 are one key of
/// a `Dictionary<String, _>`; in a spec they are two JSON keys, two schemas, two `$ref`s. Every
/// non-ASCII scalar is written as `\u{…}` (and `\` as `\\`): the key is ASCII, where Swift's
/// equality is byte equality. Most keys are ASCII already and are returned as they are.
package func exactKey(_ text: String) -> String {
    if text.utf8.allSatisfy({ $0 < 0x80 && $0 != UInt8(ascii: "\\") }) { return text }
    var key = ""
    for scalar in text.unicodeScalars {
        if scalar == "\\" {
            key += "\\\\"
        } else if scalar.isASCII {
            key.unicodeScalars.append(scalar)
        } else {
            key += "\\u{" + String(scalar.value, radix: 16) + "}"
        }
    }
    return key
}

/// A dictionary keyed by spec text compared by Unicode scalars (`exactKey`): channels, operations
/// or parameters whose names are canonically equivalent (`café` written two ways) stay apart.
package struct ExactKeyDictionary<Value>: ExpressibleByDictionaryLiteral {
    private var storage: [String: Value] = [:]

    package init(dictionaryLiteral elements: (String, Value)...) {
        for (key, value) in elements { self[key] = value }
    }

    package subscript(key: String) -> Value? {
        get { storage[exactKey(key)] }
        set { storage[exactKey(key)] = newValue }
    }

    package subscript(key: String, default value: @autoclosure () -> Value) -> Value {
        get { storage[exactKey(key)] ?? value() }
        set { storage[exactKey(key)] = newValue }
    }

    package var values: Dictionary<String, Value>.Values { storage.values }
    package var count: Int { storage.count }
}

extension ExactKeyDictionary: Sendable where Value: Sendable {}
