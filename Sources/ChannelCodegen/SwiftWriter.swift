import ChannelSpec

/// Builds Swift source text with 4-space indentation; the renderers' only output primitive.
struct SwiftWriter {
    private(set) var text = ""
    private var depth = 0

    init(header: String) {
        text = header
    }

    mutating func line(_ content: String = "") {
        if content.isEmpty {
            text += "\n"
        } else {
            text += String(repeating: "    ", count: depth) + content + "\n"
        }
    }

    /// `opening {`, the body one level deeper, then `}`.
    mutating func block(_ opening: String, _ body: (inout SwiftWriter) -> Void) {
        line(opening + " {")
        depth += 1
        body(&self)
        depth -= 1
        line("}")
    }

    /// A `///` comment: summary, description, documented constraints, then where it came from.
    mutating func documentation(_ docs: Documentation, fallback: String? = nil, remark: String?) {
        var paragraphs: [[String]] = []
        if let summary = docs.summary ?? (docs.description == nil ? fallback : nil) {
            paragraphs.append(Self.lines(summary))
        }
        if let description = docs.description, description != docs.summary {
            paragraphs.append(Self.lines(description))
        }
        var bullets = docs.notes.map { "- " + $0 }
        if let remark { bullets.append("- Remark: Generated from `\(remark)`.") }
        if !bullets.isEmpty { paragraphs.append(bullets) }
        for (index, paragraph) in paragraphs.enumerated() {
            if index > 0 { line("///") }
            for text in paragraph { line(text.isEmpty ? "///" : "/// " + text) }
        }
        if docs.isDeprecated { line("@available(*, deprecated)") }
    }

    /// Description text split into lines, trailing whitespace and blank edges removed.
    private static func lines(_ text: String) -> [String] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            String(line.reversed().drop(while: { $0 == " " || $0 == "\t" || $0 == "\r" }).reversed())
        }
        while lines.first?.isEmpty == true { lines.removeFirst() }
        while lines.last?.isEmpty == true { lines.removeLast() }
        return lines
    }
}

extension String {
    /// A Swift string literal for this text.
    var swiftLiteral: String {
        var result = "\""
        for scalar in unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    result += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}
