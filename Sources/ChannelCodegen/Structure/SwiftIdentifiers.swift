/// Turns spec names into idiomatic Swift identifiers: UpperCamel types, lowerCamel members,
/// enum cases from any casing (`PASSWORD_CHANGED` → `passwordChanged`, `SetupStatus` → `setupStatus`).
///
/// Every result is a valid Swift identifier (keywords aside, which `TextRenderer` escapes):
/// Unicode letters are kept (`été`, `日付`), characters Swift does not allow in identifiers
/// separate words, and a name made only of such characters is spelled out (`*/` → `asteriskSlash`,
/// `""` → `empty`) so that it still means something and never collapses to a shared placeholder.
package enum SwiftIdentifiers {
    /// Words of a name: split on `_` and anything Swift does not allow in an identifier, and on case
    /// changes (`aiControlSetting` → ai, Control, Setting; `AIControl` → AI, Control).
    package static func words(_ name: String) -> [String] {
        asciiWords(name) ?? unicodeWords(name)
    }

    /// `words` for any text, by `Character`.
    package static func unicodeWords(_ name: String) -> [String] {
        var words: [String] = []
        for chunk in name.split(whereSeparator: { $0 == "_" || !isIdentifierCharacter($0) }) {
            let characters = Array(chunk)
            var current = ""
            for (index, character) in characters.enumerated() {
                if !current.isEmpty, character.isUppercase {
                    let previous = characters[index - 1]
                    let next = index + 1 < characters.count ? characters[index + 1] : nil
                    // Boundary before an uppercase letter that follows a lowercase letter or digit,
                    // or that starts a capitalised word after an acronym ("AIControl" → "AI", "Control").
                    if previous.isLowercase || previous.isNumber || (previous.isUppercase && next?.isLowercase == true) {
                        words.append(current)
                        current = ""
                    }
                }
                current.append(character)
            }
            if !current.isEmpty { words.append(current) }
        }
        return words.isEmpty ? spelledOut(name) : words
    }

    /// `words` for plain ASCII names (nearly all of them), on bytes: the same rules without
    /// grapheme breaking, which cost a tenth of a large run. `nil` for anything else.
    package static func asciiWords(_ name: String) -> [String]? {
        let bytes = Array(name.utf8)
        guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
        func isUpper(_ byte: UInt8) -> Bool { byte >= 0x41 && byte <= 0x5A }
        func isLower(_ byte: UInt8) -> Bool { byte >= 0x61 && byte <= 0x7A }
        func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
        var words: [String] = []
        var start: Int?
        for (index, byte) in bytes.enumerated() {
            guard isUpper(byte) || isLower(byte) || isDigit(byte) else {
                // `_` and every other ASCII character outside identifiers separate words.
                if let first = start { words.append(String(decoding: bytes[first..<index], as: UTF8.self)) }
                start = nil
                continue
            }
            guard let first = start else {
                start = index
                continue
            }
            if isUpper(byte) {
                let previous = bytes[index - 1]
                let next = index + 1 < bytes.count ? bytes[index + 1] : 0
                if isLower(previous) || isDigit(previous) || (isUpper(previous) && isLower(next)) {
                    words.append(String(decoding: bytes[first..<index], as: UTF8.self))
                    start = index
                }
            }
        }
        if let first = start { words.append(String(decoding: bytes[first...], as: UTF8.self)) }
        return words.isEmpty ? nil : words
    }

    /// `device presence` → `DevicePresence`; acronyms and existing capitals are kept (`AISettings`).
    package static func upperCamel(_ name: String) -> String {
        isPlainCamel(name, upper: true) ? name : upperCamelFromWords(name)
    }

    /// `upperCamel` word by word, without the shortcut for names that are already UpperCamel.
    package static func upperCamelFromWords(_ name: String) -> String {
        let result = words(name).map { word -> String in
            let isShout = word.count > 1 && word.allSatisfy { !$0.isLowercase } && word.contains { $0.isLetter }
            let base = isShout && !isAcronym(word) ? word.lowercased() : word
            return base.prefix(1).uppercased() + base.dropFirst()
        }.joined()
        return identifier(result)
    }

    /// `DevicePresence` → `devicePresence`, `AIControlSetting` → `aiControlSetting`, `PASSWORD_CHANGED` → `passwordChanged`.
    package static func lowerCamel(_ name: String) -> String {
        isPlainCamel(name, upper: false) ? name : lowerCamelFromWords(name)
    }

    /// `lowerCamel` word by word, without the shortcut for names that are already lowerCamel.
    package static func lowerCamelFromWords(_ name: String) -> String {
        let parts = words(name)
        let head = parts.first?.lowercased() ?? ""
        let tail = parts.dropFirst().map { word -> String in
            let isShout = word.allSatisfy { !$0.isLowercase }
            let base = isShout && !isAcronym(word) ? word.lowercased() : word
            return base.prefix(1).uppercased() + base.dropFirst()
        }
        return identifier(head + tail.joined())
    }

    /// Whether `name` is already what the camel-casing makes of it (most spec names are):
    /// ASCII letters and digits, starting with a letter of the wanted case, never two capitals in a
    /// row (an acronym or shouted word may be re-cased).
    private static func isPlainCamel(_ name: String, upper: Bool) -> Bool {
        var previousIsUpper = false
        for (offset, byte) in name.utf8.enumerated() {
            let isUpper = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")
            let isLower = byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")
            let isDigit = byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
            if offset == 0 {
                guard upper ? isUpper : isLower else { return false }
            } else {
                guard isUpper || isLower || isDigit, !(isUpper && previousIsUpper) else { return false }
            }
            previousIsUpper = isUpper
        }
        return !name.isEmpty
    }

    /// Whether `name` can be written as it is (or in backticks) as a Swift identifier.
    package static func isValidIdentifier(_ name: String) -> Bool {
        if let ascii = asciiIdentifierCheck(name) { return ascii.isIdentifier }
        return isValidIdentifierByScalars(name)
    }

    /// `isValidIdentifier(_:)` scalar by scalar, for any name (its ASCII shortcut must agree).
    package static func isValidIdentifierByScalars(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, isIdentifierHead(first) else { return false }
        return name.unicodeScalars.allSatisfy(isIdentifierScalar)
    }

    /// All-caps words kept as written after the first word (`imageURL`, `userID`, `AISettings`), as
    /// the Swift API design guidelines write acronyms: known acronyms, and codes holding a digit
    /// (`H265`, `MP4`). Any other all-caps word is a word (`PICKED_UP` → `pickedUp`, `READY_FOR_PICKUP`
    /// → `readyForPickup`); a team's own acronyms go in `names:` in channelgen.yaml.
    private static func isAcronym(_ word: String) -> Bool {
        knownAcronyms.contains(word) || (word.contains(where: \.isNumber) && word.count <= 5)
    }

    static let knownAcronyms: Set<String> = [
        "AI", "API", "ARN", "AWS", "BLE", "CPU", "CSS", "CSV", "DNS", "FAQ", "GPS", "GPU", "HTML", "HTTP", "HTTPS", "ID", "IDS",
        "IMAP", "IO", "IP", "ISO", "JPEG", "JSON", "JWT", "LAN", "LED", "MIME", "NFC", "OS", "PDF", "PIN", "PNG", "QR", "RAM",
        "RGB", "RSS", "SDK", "SHA", "SKU", "SMS", "SMTP", "SQL", "SSE", "SSH", "SSID", "SSL", "SSO", "SVG", "TCP", "TLS", "TTL",
        "TV", "UDP", "UI", "URI", "URL", "URLS", "USB", "UTC", "UTF", "UUID", "VAT", "VPN", "XML",
    ]

    /// Drops what case mapping may have introduced that Swift does not allow, and makes a leading
    /// digit or combining mark legal with `_`.
    package static func identifier(_ text: String) -> String {
        // Most names are ASCII letters and digits already: nothing to drop, no scalars to rebuild.
        if let ascii = asciiIdentifierCheck(text), ascii.onlyIdentifierCharacters, !text.isEmpty {
            if ascii.isIdentifier { return text == "_" ? "underscore" : text }
            return "_" + text  // starts with a digit
        }
        return identifierByScalars(text)
    }

    /// `identifier(_:)` scalar by scalar, for any text (its ASCII shortcut must agree).
    package static func identifierByScalars(_ text: String) -> String {
        var scalars = String.UnicodeScalarView(text.unicodeScalars.filter(isIdentifierScalar))
        if scalars.isEmpty { return "value" }
        if !isIdentifierHead(scalars.first!) { scalars.insert("_", at: scalars.startIndex) }
        let result = String(scalars)
        return result == "_" ? "underscore" : result  // `_` alone is not a name, even in backticks
    }

    // MARK: Names without letters

    /// A name with no identifier characters, spelled out: `"\r\n"` → cr, lf; `*/` → asterisk, slash; `""` → empty.
    private static func spelledOut(_ name: String) -> [String] {
        if name.isEmpty { return ["empty"] }
        return name.unicodeScalars.map { scalar in
            symbolNames[scalar] ?? "u" + String(scalar.value, radix: 16, uppercase: true)
        }
    }

    private static let symbolNames: [Unicode.Scalar: String] = [
        " ": "space", "!": "exclamation", "\"": "quote", "#": "hash", "$": "dollar", "%": "percent",
        "&": "ampersand", "'": "apostrophe", "(": "leftParen", ")": "rightParen", "*": "asterisk", "+": "plus",
        ",": "comma", "-": "minus", ".": "dot", "/": "slash", ":": "colon", ";": "semicolon", "<": "less",
        "=": "equals", ">": "greater", "?": "question", "@": "at", "[": "leftBracket", "\\": "backslash",
        "]": "rightBracket", "^": "caret", "`": "backtick", "{": "leftBrace", "|": "pipe", "}": "rightBrace",
        "~": "tilde", "_": "underscore", "\n": "lf", "\r": "cr", "\t": "tab", "\0": "nul",
    ]

    // MARK: What Swift allows

    /// For an ASCII name, whether every character may appear in an identifier (letters, digits, `_`)
    /// and whether it is one (also not empty, not starting with a digit): what the scalar checks
    /// below answer, on bytes. `nil` for any other name.
    private static func asciiIdentifierCheck(_ name: String) -> (onlyIdentifierCharacters: Bool, isIdentifier: Bool)? {
        var valid = true
        for byte in name.utf8 {
            guard byte < 0x80 else { return nil }
            let letter = (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            if !(letter || (byte >= 0x30 && byte <= 0x39) || byte == 0x5F) { valid = false }
        }
        let head = name.utf8.first.map { !($0 >= 0x30 && $0 <= 0x39) } ?? false
        return (valid, valid && head)
    }

    private static func isIdentifierCharacter(_ character: Character) -> Bool {
        character.unicodeScalars.allSatisfy(isIdentifierScalar)
    }

    /// The identifier characters of The Swift Programming Language's lexical grammar, less the
    /// invisible ones (zero-width, bidirectional controls, soft hyphen, variation selectors): a
    /// generated API must not contain names a reader cannot see.
    static func isIdentifierScalar(_ scalar: Unicode.Scalar) -> Bool {
        if isInvisible(scalar) { return false }
        if isIdentifierHead(scalar) { return true }
        switch scalar.value {
        case 0x30...0x39, 0x300...0x36F, 0x1DC0...0x1DFF, 0x20D0...0x20FF, 0xFE20...0xFE2F: return true
        default: return false
        }
    }

    static func isIdentifierHead(_ scalar: Unicode.Scalar) -> Bool {
        if isInvisible(scalar) { return false }
        switch scalar.value {
        case 0x41...0x5A, 0x61...0x7A, 0x5F,
             0xA8, 0xAA, 0xAF, 0xB2...0xB5, 0xB7...0xBA, 0xBC...0xBE, 0xC0...0xD6, 0xD8...0xF6, 0xF8...0xFF,
             0x100...0x2FF, 0x370...0x167F, 0x1681...0x180D, 0x180F...0x1DBF, 0x1E00...0x1FFF,
             0x203F...0x2040, 0x2054, 0x2070...0x20CF, 0x2100...0x218F, 0x2460...0x24FF, 0x2776...0x2793,
             0x2C00...0x2DFF, 0x2E80...0x2FFF, 0x3004...0x3007, 0x3021...0x302F, 0x3031...0x303F, 0x3040...0xD7FF,
             0xF900...0xFD3D, 0xFD40...0xFDCF, 0xFDF0...0xFE1F, 0xFE30...0xFE44, 0xFE47...0xFFFD,
             0x10000...0x1FFFD, 0x20000...0x2FFFD, 0x30000...0x3FFFD, 0x40000...0x4FFFD, 0x50000...0x5FFFD,
             0x60000...0x6FFFD, 0x70000...0x7FFFD, 0x80000...0x8FFFD, 0x90000...0x9FFFD, 0xA0000...0xAFFFD,
             0xB0000...0xBFFFD, 0xC0000...0xCFFFD, 0xD0000...0xDFFFD, 0xE0000...0xEFFFD:
            return true
        default:
            return false
        }
    }

    private static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0xAD, 0x180E, 0x200B...0x200F, 0x202A...0x202E, 0x2060...0x206F, 0xFE00...0xFE0F, 0xFEFF, 0xE0000...0xE0FFF:
            return true
        default:
            return false
        }
    }

    // MARK: Keywords

    /// Swift keywords that need backticks as identifiers (declaration, statement, expression and type keywords).
    static let keywords: Set<String> = [
        "associatedtype", "borrowing", "class", "consuming", "deinit", "enum", "extension", "fileprivate", "func",
        "import", "init", "inout", "internal", "let", "nonisolated", "open", "operator", "package", "private",
        "precedencegroup", "protocol", "public", "rethrows", "static", "struct", "subscript", "typealias", "var",
        "break", "case", "catch", "continue", "default", "defer", "do", "else", "fallthrough", "for", "guard", "if",
        "in", "repeat", "return", "throw", "switch", "where", "while", "Any", "as", "await", "false", "is", "nil",
        "self", "Self", "super", "throws", "true", "try", "_", "Type", "Protocol", "some", "any", "async",
    ]

    /// The keywords by their length in UTF-8 bytes: `isKeyword` compares an identifier with the few
    /// of its length, small strings compared whole, where a `Set` would hash it (the renderer asks
    /// for every identifier it writes).
    private static let keywordsByLength: [[String]] = {
        var table = [[String]](repeating: [], count: 1 + keywords.map(\.utf8.count).max()!)
        for keyword in keywords.sorted() { table[keyword.utf8.count].append(keyword) }
        return table
    }()

    /// Whether `identifier` needs backticks in Swift source (`TextRenderer` adds them).
    package static func isKeyword(_ identifier: String) -> Bool {
        let length = identifier.utf8.count
        guard length < keywordsByLength.count else { return false }
        return keywordsByLength[length].contains(identifier)
    }
}
