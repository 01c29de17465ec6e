/// Turns the structured representation into Swift text. The one place that escapes and lays out:
/// identifiers get backticks where they are keywords, spec text becomes valid string literals
/// (raw strings when that reads better) and comment lines that cannot end early, and layout
/// follows one set of rules (4-space indent, `case` level with `switch`, trailing commas in
/// lists split over lines).
struct TextRenderer {
    /// Lines longer than this are split where the structure allows (parameter lists, arrays).
    static let lineWidth = 100

    /// The text so far as UTF-8, each line ended by `\n`; written once, never joined from pieces.
    /// Bytes, not a `String`: appending to a `String` costs several hundred instructions of
    /// bookkeeping each time, an array's append is a copy.
    private var output: [UInt8] = []
    /// Blank lines at the end of `output` (they are dropped at the end of the file).
    private var trailingBlankLines = 0
    private var depth = 0

    static func render(_ file: SwiftFile) -> String {
        let text = renderedLines(of: file)
        return text.isEmpty ? "\n" : text
    }

    /// Several files at once, on all cores: long files are cut into runs of declarations rendered
    /// side by side and joined with the blank line `render` puts between declarations, so the text
    /// is byte for byte what `render` writes.
    static func render(_ files: [SwiftFile]) -> [String] {
        let piecesPerFile = files.map { file -> [SwiftFile] in
            let runs = stride(from: 0, to: file.declarations.count, by: declarationsPerPiece).map {
                Array(file.declarations[$0..<Swift.min($0 + declarationsPerPiece, file.declarations.count)])
            }
            guard runs.count > 1 else { return [file] }
            return runs.enumerated().map { index, run in
                index == 0 ? SwiftFile(header: file.header, imports: file.imports, declarations: run) : SwiftFile(header: [], imports: [], declarations: run)
            }
        }
        let pieces = piecesPerFile.flatMap { $0 }
        // Threads only pay off when there is a long file to cut; small outputs render in turn.
        var rendered = (pieces.count > files.count ? pieces.concurrentMap(renderedBytes) : pieces.map(renderedBytes))[...]
        return piecesPerFile.map { pieces in
            let text = joinedLines(rendered.prefix(pieces.count).filter { !$0.isEmpty })
            rendered = rendered.dropFirst(pieces.count)
            return text.isEmpty ? "\n" : text
        }
    }

    /// The pieces' bytes with a line break between each two, as the file's text.
    private static func joinedLines(_ pieces: [[UInt8]]) -> String {
        String(decoding: Array(pieces.joined(separator: [UInt8(ascii: "\n")])), as: UTF8.self)
    }

    /// Enough declarations per piece that a thread's start-up is noise next to the work.
    private static let declarationsPerPiece = 64

    /// The file's lines, each ended by `\n`; empty when nothing is written.
    private static func renderedLines(of file: SwiftFile) -> String {
        String(decoding: renderedBytes(of: file), as: UTF8.self)
    }

    /// `renderedLines` as UTF-8 bytes.
    private static func renderedBytes(of file: SwiftFile) -> [UInt8] {
        var renderer = TextRenderer()
        renderer.output.reserveCapacity(1 << 16)
        renderer.renderFile(file)
        return renderer.output
    }

    // MARK: Files and declarations

    private mutating func renderFile(_ file: SwiftFile) {
        for paragraph in file.header {
            comment(paragraph, prefix: "//")
            blank()
        }
        for module in file.imports.sorted() {
            emit("\(module.spi.map { "@_spi(\(Self.identifier($0))) " } ?? "")import \(Self.identifier(module.module))")
        }
        for declaration in file.declarations {
            if !output.isEmpty { blank() }
            render(declaration)
        }
        output.removeLast(trailingBlankLines)
        trailingBlankLines = 0
    }

    private mutating func render(_ declaration: Declaration) {
        if let documentation = declaration.documentation { render(documentation) }
        if declaration.isDeprecated { emit("@available(*, deprecated)") }
        // On the declaration's line, as an access modifier would be.
        let spi = declaration.spi.map { "@_spi(\(Self.identifier($0))) " } ?? ""
        switch declaration.kind {
        case .type(let type): render(type, attributes: spi)
        case .variable(let variable): render(variable, attributes: spi)
        case .function(let function):
            if !spi.isEmpty { emit(String(spi.dropLast())) }
            render(function)
        case .enumCase(let enumCase):
            let value = enumCase.associatedValue.map { "(\(Self.text($0)))" } ?? ""
            let raw = enumCase.rawValue.map { " = " + Self.text($0) } ?? ""
            emit("case \(Self.identifier(enumCase.name))\(value)\(raw)")
        case .typeAlias(let alias):
            emit("\(Self.prefix(alias.access))typealias \(Self.identifier(alias.name)) = \(Self.text(alias.type))")
        case .lineComment(let text):
            for line in text { comment(line, prefix: "//") }
        }
    }

    private mutating func render(_ type: TypeDeclaration, attributes: String = "") {
        let conformances = type.conformances.isEmpty ? "" : ": " + type.conformances.map(Self.text).joined(separator: ", ")
        let opening = "\(attributes)\(Self.prefix(type.access))\(type.keyword.rawValue) \(Self.text(type.name))\(conformances)"
        guard !type.members.isEmpty else {
            emit(opening + " {}")
            return
        }
        emit(opening + " {")
        depth += 1
        for (index, member) in type.members.enumerated() {
            if index > 0 && !Self.staysTogether(type.members[index - 1], member) { blank() }
            render(member)
        }
        depth -= 1
        emit("}")
    }

    /// Runs of stored properties and runs of enum cases are written without blank lines between
    /// them, as a hand-written type would be; documented static constants stand apart.
    private static func staysTogether(_ previous: Declaration, _ next: Declaration) -> Bool {
        switch (previous.kind, next.kind) {
        case (.enumCase, .enumCase), (.lineComment, _):
            return true
        case (.variable(let a), .variable(let b)) where a.getter == nil && b.getter == nil && a.isStatic == b.isStatic:
            return !a.isStatic || (previous.documentation == nil && next.documentation == nil)
        default:
            return false
        }
    }

    private mutating func render(_ variable: Variable, attributes: String = "") {
        let wrappers = variable.attributes.map { Self.text($0) + " " }.joined()
        var text = "\(attributes)\(wrappers)\(Self.prefix(variable.access))\(variable.isStatic ? "static " : "")\(variable.binding.rawValue) \(Self.identifier(variable.name))"
        if let type = variable.type { text += ": " + Self.text(type) }
        if let getter = variable.getter {
            if getter.count == 1, case .code(let code) = getter[0] {
                emit(text + " { \(Self.text(code)) }")
            } else {
                block(text, getter)
            }
        } else if let value = variable.value {
            expression(value, after: text + " = ")
        } else {
            emit(text)
        }
    }

    private mutating func render(_ function: Function) {
        // Gathered as bytes, as every line is (`emit(bytes:)`); see Benchmarks/README.md.
        var prefix: [UInt8] = []
        Self.appendBytes(of: Self.prefix(function.access), to: &prefix)
        if function.isStatic { Self.appendBytes(of: "static ", to: &prefix) }
        switch function.name {
        case .initializer: Self.appendBytes(of: "init", to: &prefix)
        case .failableInitializer: Self.appendBytes(of: "init?", to: &prefix)
        case .function(let name):
            Self.appendBytes(of: "func ", to: &prefix)
            Self.appendBytes(of: Self.identifier(name), to: &prefix)
        case .operator(let symbol):
            Self.appendBytes(of: "func ", to: &prefix)
            Self.append(symbol, to: &prefix)
            prefix.append(UInt8(ascii: " "))
        }
        if let generics = function.genericParameters { Self.append(generics, to: &prefix) }
        var suffix: [UInt8] = []
        if let effects = function.effects {
            suffix.append(UInt8(ascii: " "))
            Self.append(effects, to: &suffix)
        }
        if let returnType = function.returnType {
            Self.appendBytes(of: " -> ", to: &suffix)
            Self.append(returnType, to: &suffix)
        }
        let parameters = function.parameters.map(Self.parameter)
        var inline = prefix
        inline.append(UInt8(ascii: "("))
        for (index, parameter) in parameters.enumerated() {
            if index > 0 { Self.appendBytes(of: ", ", to: &inline) }
            inline += parameter
        }
        inline.append(UInt8(ascii: ")"))
        inline += suffix
        let fits = Self.width(inline) + depth * 4 + 2 <= Self.lineWidth
        guard let body = function.body else {
            if parameters.count <= 2 || fits { emit(bytes: inline) } else { list(parameters, opening: prefix + [UInt8(ascii: "(")], closing: [UInt8(ascii: ")")] + suffix) }
            return
        }
        if parameters.count <= 2 && fits || parameters.isEmpty {
            emit(bytes: inline + Array(" {".utf8))
        } else {
            list(parameters, opening: prefix + [UInt8(ascii: "(")], closing: [UInt8(ascii: ")")] + suffix + Array(" {".utf8))
        }
        if body.isEmpty {
            output.removeLast()  // the line break after `{`
            output += "}\n".utf8
            return
        }
        depth += 1
        statements(body)
        depth -= 1
        emit("}")
    }

    /// `label local: Type = value` as bytes.
    private static func parameter(_ parameter: Parameter) -> [UInt8] {
        var bytes: [UInt8] = []
        if let local = parameter.localName {
            // An argument label may be any keyword but `inout`, `var` and `let` (`func f(for x: T)`).
            let label = parameter.label.map { ["inout", "var", "let"].contains($0.name) ? identifier($0) : $0.name } ?? "_"
            appendBytes(of: label, to: &bytes)
            bytes.append(UInt8(ascii: " "))
            appendBytes(of: identifier(local), to: &bytes)
        } else {
            appendBytes(of: parameter.label.map(identifier) ?? "_", to: &bytes)
        }
        appendBytes(of: ": ", to: &bytes)
        append(parameter.type, to: &bytes)
        if let value = parameter.defaultValue {
            appendBytes(of: " = ", to: &bytes)
            append(value, to: &bytes)
        }
        return bytes
    }

    // MARK: Statements and expressions

    private mutating func statements(_ statements: [Statement]) {
        for statement in statements {
            switch statement {
            case .code(let code):
                emit(Self.text(code))
            case .block(let opening, let body):
                block(Self.text(opening), body)
            case .call(let callee, let arguments):
                let items = arguments.map(Self.text)
                let inline = Self.text(callee) + "(" + items.joined(separator: ", ") + ")"
                if items.isEmpty || Self.width(inline) + depth * 4 <= Self.lineWidth {
                    emit(inline)
                } else {
                    list(items, opening: Self.text(callee) + "(", closing: ")")
                }
            case .closure(let call, let signature, let body):
                emit(Self.text(call) + " { " + Self.text(signature) + " in")
                depth += 1
                self.statements(body)
                depth -= 1
                emit("}")
            case .ifChain(let branches, let otherwise):
                for (index, branch) in branches.enumerated() {
                    let keyword = index == 0 ? "if " : "} else if "
                    emit(keyword + Self.text(branch.condition) + " {")
                    depth += 1
                    self.statements(branch.body)
                    depth -= 1
                }
                if let otherwise {
                    emit("} else {")
                    depth += 1
                    self.statements(otherwise)
                    depth -= 1
                }
                emit("}")
            case .switch(let subject, let cases):
                emit("switch \(Self.text(subject)) {")
                for switchCase in cases {
                    let label = switchCase.pattern.map { "case " + Self.text($0) + ":" } ?? "default:"
                    if switchCase.body.count == 1, case .code(let code) = switchCase.body[0] {
                        emit(label + " " + Self.text(code))
                    } else {
                        emit(label)
                        depth += 1
                        self.statements(switchCase.body)
                        depth -= 1
                    }
                }
                emit("}")
            }
        }
    }

    private mutating func block(_ opening: String, _ body: [Statement]) {
        emit(opening + " {")
        depth += 1
        statements(body)
        depth -= 1
        emit("}")
    }

    private mutating func expression(_ expression: Expression, after prefix: String) {
        switch expression {
        case .code(let code):
            emit(prefix + Self.text(code))
        case .array(let elements):
            let items = elements.map(Self.text)
            let inline = prefix + "[" + items.joined(separator: ", ") + "]"
            if items.isEmpty || Self.width(inline) + depth * 4 <= Self.lineWidth {
                emit(inline)
            } else {
                list(items, opening: prefix + "[", closing: "]")
            }
        }
    }

    /// `list` for lines made as `String`s.
    private mutating func list(_ items: [String], opening: String, closing: String) {
        list(items.map { Array($0.utf8) }, opening: Array(opening.utf8), closing: Array(closing.utf8))
    }

    /// `opening`, one item per line with a trailing comma, `closing` (lines as UTF-8 bytes).
    private mutating func list(_ items: [[UInt8]], opening: [UInt8], closing: [UInt8]) {
        emit(bytes: opening)
        depth += 1
        for item in items { emit(bytes: item + [UInt8(ascii: ",")]) }
        depth -= 1
        emit(bytes: closing)
    }

    // MARK: Comments

    private mutating func render(_ documentation: DocComment) {
        let paragraphs = documentation.paragraphs.map(Self.commentLines).filter { !$0.isEmpty }
        for (index, paragraph) in paragraphs.enumerated() {
            if index > 0 { emit("///") }
            for line in paragraph { emit(line.isEmpty ? "///" : "/// " + line) }
        }
    }

    private mutating func comment(_ text: String, prefix: String) {
        for line in Self.commentLines(text) { emit(line.isEmpty ? prefix : prefix + " " + line) }
    }

    /// Comment text as lines that cannot end the comment early: split at every line break Swift
    /// or an editor honours (LF, CR, CRLF, VT, FF, NEL, LS, PS); other control characters and
    /// bidirectional overrides shown as `\u{…}`; trailing blanks and blank edges dropped.
    static func commentLines(_ text: String) -> [String] {
        // Most texts are one line of plain ASCII: nothing to split, escape or trim.
        if text.utf8.last != UInt8(ascii: " "), allBytes(of: text, satisfy: { $0 >= 0x20 && $0 < 0x7F }) {
            return text.isEmpty ? [] : [text]
        }
        // Plain ASCII with `\n`: split without visiting each scalar.
        if allBytes(of: text, satisfy: { ($0 >= 0x20 && $0 < 0x7F) || $0 == 0x0A }) {
            // Split the bytes, not the characters: grapheme breaking cost a tenth of a Vortex run.
            let lines = text.utf8.withContiguousStorageIfAvailable { bytes in
                bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
            }
            return trimmed(lines ?? text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).map { String(Substring($0)) })
        }
        var lines: [String] = []
        var current = ""
        var previousWasCR = false
        for scalar in text.unicodeScalars {
            defer { previousWasCR = scalar == "\r" }
            switch scalar.value {
            case 0x0A where previousWasCR:
                continue
            case 0x0A, 0x0B, 0x0C, 0x0D, 0x85, 0x2028, 0x2029:
                lines.append(current)
                current = ""
            case 0x09:
                current += "    "
            default:
                if scalar.isHiddenOrControl { current += scalar.visibleEscape } else { current.unicodeScalars.append(scalar) }
            }
        }
        lines.append(current)
        return trimmed(lines)
    }

    /// Lines without trailing blanks, and without blank lines at either end.
    private static func trimmed(_ lines: [String]) -> [String] {
        var lines = lines.map { line -> String in
            guard line.utf8.last == UInt8(ascii: " ") else { return line }
            var end = line.utf8.endIndex
            while end > line.utf8.startIndex, line.utf8[line.utf8.index(before: end)] == UInt8(ascii: " ") {
                end = line.utf8.index(before: end)
            }
            return String(line[..<end])
        }
        while lines.first?.isEmpty == true { lines.removeFirst() }
        while lines.last?.isEmpty == true { lines.removeLast() }
        return lines
    }

    // MARK: Code

    static func text(_ code: Code) -> String {
        // One piece is most often the whole text; more are gathered as bytes (see `output`).
        if code.pieces.count == 1, case .syntax(let text) = code.pieces[0] { return text }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64)
        append(code, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func append(_ code: Code, to bytes: inout [UInt8]) {
        for piece in code.pieces {
            switch piece {
            case .syntax(let text): appendBytes(of: text, to: &bytes)
            case .identifier(let name): appendBytes(of: identifier(name), to: &bytes)
            case .stringLiteral(let text): appendBytes(of: stringLiteral(text), to: &bytes)
            case .interpolatedString(let parts):
                bytes.append(UInt8(ascii: "\""))
                for part in parts {
                    switch part {
                    case .text(let text): appendBytes(of: escapedStringContents(text), to: &bytes)
                    case .code(let code):
                        bytes += "\\(".utf8
                        append(code, to: &bytes)
                        bytes.append(UInt8(ascii: ")"))
                    }
                }
                bytes.append(UInt8(ascii: "\""))
            }
        }
    }

    /// The identifier as written in source: keywords in backticks.
    static func identifier(_ identifier: Identifier) -> String {
        SwiftIdentifiers.isKeyword(identifier.name) ? "`\(identifier.name)`" : identifier.name
    }

    /// A Swift string literal with exactly `text`'s value. Text with quotes or backslashes (and no
    /// other escapes needed) becomes a raw string (`#"a\b"#`) so it reads as the spec wrote it.
    static func stringLiteral(_ text: String) -> String {
        let needsEscapes = text.unicodeScalars.contains(where: \.isHiddenOrControl)
        let hasQuoteOrBackslash = text.utf8.contains { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\"") }
        if !needsEscapes && hasQuoteOrBackslash {
            var delimiter = "#"
            while text.contains("\"" + delimiter) || text.contains("\\" + delimiter) { delimiter += "#" }
            return delimiter + "\"" + text + "\"" + delimiter
        }
        return "\"" + escapedStringContents(text) + "\""
    }

    /// `text` escaped for the inside of a `"…"` literal.
    static func escapedStringContents(_ text: String) -> String {
        let isPlain = allBytes(of: text) { $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }
        if isPlain { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\0": result += "\\0"
            default:
                if scalar.isHiddenOrControl { result += scalar.visibleEscape } else { result.unicodeScalars.append(scalar) }
            }
        }
        return result
    }

    // MARK: Lines

    private mutating func emit(_ text: String) {
        indent()
        Self.appendBytes(of: text, to: &output)
        output.append(UInt8(ascii: "\n"))
        trailingBlankLines = text.isEmpty && depth == 0 ? trailingBlankLines + 1 : 0
    }

    /// `emit` for a line gathered as UTF-8 bytes.
    private mutating func emit(bytes: [UInt8]) {
        indent()
        output += bytes
        output.append(UInt8(ascii: "\n"))
        trailingBlankLines = bytes.isEmpty && depth == 0 ? trailingBlankLines + 1 : 0
    }

    private mutating func indent() {
        var indent = depth * 4
        while indent > 0 {
            let run = Swift.min(indent, Self.spaces.count)
            output += Self.spaces[..<run]
            indent -= run
        }
    }

    private mutating func blank() {
        if output.isEmpty || trailingBlankLines == 0 {
            output.append(UInt8(ascii: "\n"))
            trailingBlankLines += 1
        }
    }

    /// Indentation, copied in runs.
    private static let spaces = [UInt8](repeating: UInt8(ascii: " "), count: 64)

    /// The width of `text` as an editor counts it, in characters: one per byte for ASCII, which
    /// nearly every line is (counting characters walks grapheme clusters).
    private static func width(_ text: String) -> Int {
        allBytes(of: text, satisfy: { $0 < 0x80 }) ? text.utf8.count : text.count
    }

    private static func width(_ bytes: [UInt8]) -> Int {
        bytes.allSatisfy { $0 < 0x80 } ? bytes.count : String(decoding: bytes, as: UTF8.self).count
    }

    // MARK: Bytes
    // `String.UTF8View` visited as a collection costs per byte what its contiguous storage costs per
    // call: these take the storage (a native string always has it) and fall back to the view.

    /// Appends `text`'s UTF-8 bytes to `bytes` in one copy.
    private static func appendBytes(of text: String, to bytes: inout [UInt8]) {
        if text.utf8.withContiguousStorageIfAvailable({ bytes.append(contentsOf: $0) }) == nil {
            bytes += text.utf8
        }
    }

    /// Whether every UTF-8 byte of `text` satisfies `predicate`.
    private static func allBytes(of text: String, satisfy predicate: (UInt8) -> Bool) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { $0.allSatisfy(predicate) } ?? text.utf8.allSatisfy(predicate)
    }

    /// `public ` etc.; nothing for internal, which is the default.
    private static func prefix(_ access: AccessModifier?) -> String {
        guard let access, access != .internal else { return "" }
        return access.rawValue + " "
    }
}
