/// Turns spec names into idiomatic Swift identifiers: UpperCamel types, lowerCamel members,
/// enum cases from any casing (`PASSWORD_CHANGED` → `passwordChanged`, `SetupStatus` → `setupStatus`).
public enum SwiftIdentifiers {
    /// Words of a name: split on anything that is not a letter or digit, and on case changes
    /// (`aiControlSetting` → ai, Control, Setting; `AIControl` → AI, Control; `PASSWORD_CHANGED` → PASSWORD, CHANGED).
    static func words(_ name: String) -> [String] {
        var words: [String] = []
        for chunk in name.split(whereSeparator: { !($0.isLetter || $0.isNumber) || !$0.isASCII }) {
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
        return words
    }

    /// `device presence` → `DevicePresence`; acronyms and existing capitals are kept (`AISettings`).
    public static func upperCamel(_ name: String) -> String {
        let result = words(name).map { word -> String in
            let isShout = word.count > 1 && word.allSatisfy { !$0.isLowercase } && word.contains { $0.isLetter }
            let base = isShout && !isAcronym(word) ? word.lowercased() : word
            return base.prefix(1).uppercased() + base.dropFirst()
        }.joined()
        return leadingDigitSafe(result.isEmpty ? "Value" : result)
    }

    /// `DevicePresence` → `devicePresence`, `AIControlSetting` → `aiControlSetting`, `PASSWORD_CHANGED` → `passwordChanged`.
    public static func lowerCamel(_ name: String) -> String {
        let parts = words(name)
        guard let first = parts.first else { return "value" }
        let head = first.lowercased()
        let tail = parts.dropFirst().map { word -> String in
            let isShout = word.allSatisfy { !$0.isLowercase }
            let base = isShout && !isAcronym(word) ? word.lowercased() : word
            return base.prefix(1).uppercased() + base.dropFirst()
        }
        return leadingDigitSafe(head + tail.joined())
    }

    /// Short all-caps words kept as written inside UpperCamel names (`AI`, `URL`, `ID`); longer ones are words (`PASSWORD`).
    private static func isAcronym(_ word: String) -> Bool { word.count <= 3 }

    private static func leadingDigitSafe(_ name: String) -> String {
        guard let first = name.first, first.isNumber else { return name }
        return "_" + name
    }

    /// The identifier as written in Swift source: keywords in backticks.
    public static func escaped(_ identifier: String) -> String {
        keywords.contains(identifier) ? "`\(identifier)`" : identifier
    }

    /// Names that cannot be used for a nested type without confusing the compiler (`Foo.Type` is a metatype).
    static let reservedTypeNames: Set<String> = ["Type", "Protocol", "Self", "Any", "Sendable", "Codable", "Hashable"]

    /// Swift keywords that need backticks as identifiers (declaration, statement, expression and type keywords).
    static let keywords: Set<String> = [
        "associatedtype", "borrowing", "class", "consuming", "deinit", "enum", "extension", "fileprivate", "func",
        "import", "init", "inout", "internal", "let", "nonisolated", "open", "operator", "package", "private",
        "precedencegroup", "protocol", "public", "rethrows", "static", "struct", "subscript", "typealias", "var",
        "break", "case", "catch", "continue", "default", "defer", "do", "else", "fallthrough", "for", "guard", "if",
        "in", "repeat", "return", "throw", "switch", "where", "while", "Any", "as", "await", "false", "is", "nil",
        "self", "Self", "super", "throws", "true", "try", "_",
    ]
}
