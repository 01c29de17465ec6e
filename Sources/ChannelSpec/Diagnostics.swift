/// A position in a spec file, 1-based, as compilers and editors print it.
package struct SourceLocation: Hashable, Sendable, CustomStringConvertible {
    package var file: String
    package var line: Int
    package var column: Int

    package init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    package var description: String { "\(file):\(line):\(column)" }
}

/// One message for the user, printed in the compiler format so Xcode and SwiftPM
/// place it on the YAML line: `path:line:col: error: message`.
package struct Diagnostic: Hashable, Sendable, CustomStringConvertible, Error {
    package enum Severity: String, Sendable, Hashable {
        case error, warning, note
    }

    package var severity: Severity
    package var message: String
    package var location: SourceLocation?
    /// About a construct the generator cannot serve (a union, a header schema, an address the
    /// transport cannot carry), not about malformed input: lenient generation skips the channel
    /// instead of failing (`strict: true` keeps it an error).
    package var isOutsideSubset = false
    /// A warning that `strict: true` makes an error: input JSON Schema or AsyncAPI tolerates but
    /// that is likely a mistake (an unknown schema keyword, a document without `info`).
    package var isErrorWhenStrict = false
    /// A `$ref` that does not lead to a node (no such file or key, a cycle): the document is broken
    /// whatever is generated from it, so no mode skips past it (models mode included).
    package var isBrokenReference = false

    package init(_ severity: Severity, _ message: String, at location: SourceLocation?) {
        self.severity = severity
        self.message = message
        self.location = location
    }

    package static func error(_ message: String, at location: SourceLocation?) -> Diagnostic {
        Diagnostic(.error, message, at: location)
    }

    /// An error about a construct outside what the generator serves (see `isOutsideSubset`).
    package static func unsupported(_ message: String, at location: SourceLocation?) -> Diagnostic {
        var diagnostic = Diagnostic(.error, message, at: location)
        diagnostic.isOutsideSubset = true
        return diagnostic
    }

    package static func warning(_ message: String, at location: SourceLocation?) -> Diagnostic {
        Diagnostic(.warning, message, at: location)
    }

    package static func note(_ message: String, at location: SourceLocation?) -> Diagnostic {
        Diagnostic(.note, message, at: location)
    }

    /// One line in the compiler format. Spec text quoted in the message cannot break the line or
    /// reach the terminal as control sequences: control and bidirectional characters are shown as `\u{…}`.
    package var description: String {
        let text = Self.printable(message)
        if let location {
            return "\(Self.printable(location.description)): \(severity.rawValue): \(text)"
        }
        return "\(severity.rawValue): \(text)"
    }

    /// `text` with control characters, line separators and bidirectional controls escaped.
    package static func printable(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            if scalar.isHiddenOrControl { result += scalar.visibleEscape } else { result.unicodeScalars.append(scalar) }
        }
        return result
    }
}

extension Unicode.Scalar {
    /// Control characters, line and paragraph separators, bidirectional controls and the BOM: text
    /// that would break a line, move the terminal or hide what a reviewer reads. Diagnostics, comments
    /// and literals show these as `\u{…}`.
    package var isHiddenOrControl: Bool {
        switch value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0xFEFF: return true
        default: return false
        }
    }

    /// `\u{…}` with the scalar's hexadecimal value, as Swift writes it.
    package var visibleEscape: String { "\\u{" + String(value, radix: 16, uppercase: true) + "}" }
}

/// Collects diagnostics across a pipeline stage; a stage fails when it holds any error.
package struct Diagnostics: Sendable {
    package private(set) var all: [Diagnostic] = []

    package init() {}

    package var hasErrors: Bool { all.contains { $0.severity == .error } }

    package mutating func append(_ diagnostic: Diagnostic) { all.append(diagnostic) }

    package mutating func append(contentsOf diagnostics: [Diagnostic]) { all.append(contentsOf: diagnostics) }

    package mutating func error(_ message: String, at location: SourceLocation?) {
        all.append(.error(message, at: location))
    }

    package mutating func warning(_ message: String, at location: SourceLocation?) {
        all.append(.warning(message, at: location))
    }

    package mutating func unsupported(_ message: String, at location: SourceLocation?) {
        all.append(.unsupported(message, at: location))
    }

    /// A warning that strict generation reports as an error (see `Diagnostic.isErrorWhenStrict`).
    package mutating func strictWarning(_ message: String, at location: SourceLocation?) {
        var diagnostic = Diagnostic.warning(message, at: location)
        diagnostic.isErrorWhenStrict = true
        all.append(diagnostic)
    }

    /// Strict generation: every `strictWarning` becomes an error.
    package mutating func promoteStrictWarnings() {
        for index in all.indices where all[index].isErrorWhenStrict { all[index].severity = .error }
    }

    /// Whether the diagnostics from `start` on hold errors and every one is outside the subset.
    package func onlyOutsideSubsetErrors(from start: Int) -> Bool {
        let errors = all[start...].filter { $0.severity == .error }
        return !errors.isEmpty && errors.allSatisfy(\.isOutsideSubset)
    }

    /// Lenient generation, when the spec fails for another reason: what is merely outside the subset
    /// is reported as the warning it would be on its own, so the errors are the ones to fix. (A
    /// channel with a real error is not skipped, so its unsupported parts were never demoted.)
    package mutating func demoteOutsideSubsetErrorsBesideOtherErrors() {
        guard all.contains(where: { $0.severity == .error && !$0.isOutsideSubset }) else { return }
        for index in all.indices where all[index].severity == .error && all[index].isOutsideSubset { all[index].severity = .warning }
    }

    /// Any errors from `start` on become warnings (what lenient generation skipped).
    package mutating func demoteErrors(from start: Int) {
        for index in all.indices[start...] where all[index].severity == .error { all[index].severity = .warning }
    }

    /// Whether the diagnostics from `start` on hold an error about a broken `$ref`.
    package func hasBrokenReferenceErrors(from start: Int) -> Bool {
        all[start...].contains { $0.severity == .error && $0.isBrokenReference }
    }

    /// Errors from `start` on become warnings, but for broken `$ref`s (models mode's checks of what it
    /// does not generate from).
    package mutating func demoteErrorsButBrokenReferences(from start: Int) {
        for index in all.indices[start...] where all[index].severity == .error && !all[index].isBrokenReference {
            all[index].severity = .warning
        }
    }
}

/// Thrown when a stage cannot go on; carries every diagnostic gathered so far.
package struct DiagnosticsError: Error, Sendable, CustomStringConvertible {
    package var diagnostics: [Diagnostic]

    package init(_ diagnostics: [Diagnostic]) { self.diagnostics = diagnostics }

    package init(_ diagnostic: Diagnostic) { self.diagnostics = [diagnostic] }

    package var description: String { diagnostics.map(\.description).joined(separator: "\n") }

    /// The same diagnostics, their errors marked as broken references (but what is outside the subset,
    /// a remote `$ref`).
    func markingBrokenReferences() -> DiagnosticsError {
        var marked = self
        for index in marked.diagnostics.indices where marked.diagnostics[index].severity == .error && !marked.diagnostics[index].isOutsideSubset {
            marked.diagnostics[index].isBrokenReference = true
        }
        return marked
    }
}
