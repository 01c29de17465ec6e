import Foundation
import Logging

/// Where a connection's log lines go: every line has its credentials taken out, is one line of
/// bounded size (`LogText`), and a line repeated within `interval` is written at most `burst`
/// times, the rest summarised by count. `trace` lines (one per frame and per event, for field
/// debugging) are the exception: asked for by setting the logger's level to `trace`, each is written.
///
/// Server input decides how often these lines happen (a `subscribe_error` storm, undecodable
/// events at socket speed) and what they say, so without these limits a hostile server fills the
/// app's disk, forges log lines with newlines or drives a terminal with escape sequences; and the
/// text of an error can carry what the client sent (a server echoing the auth subprotocol).
package final class DiagnosticLog: Sendable {
    package let logger: Logger
    /// Whether `trace` lines are written (the logger's level is `trace`): checked before a trace
    /// line's metadata is built, so a connection that does not trace pays one test per event.
    package let traces: Bool
    private let clock: RuntimeClock
    private let interval: Duration
    private let burst: Int
    private let state = LockedValue(State())

    private struct State {
        var secrets: [String] = []
        var windows: [String: Window] = [:]
    }

    /// The lines of one message text in the current interval.
    private struct Window {
        var start: Duration
        var written = 0
        var suppressed = 0
    }

    /// A log writing to `logger`; `clock` decides when an interval is over.
    package init(logger: Logger, clock: RuntimeClock, interval: Duration = .seconds(10), burst: Int = 5) {
        self.logger = logger
        self.traces = logger.logLevel <= .trace
        self.clock = clock
        self.interval = interval
        self.burst = max(1, burst)
    }

    /// Credentials in use (header values of the authorization), taken out of every later line.
    package func setSecrets(_ values: some Sequence<String>) {
        let secrets = Array(Set(values.filter { $0.utf8.count >= Redaction.shortestSecret })).sorted { $0.count > $1.count }
        state.withLock { $0.secrets = secrets }
    }

    package func error(_ message: String, metadata: Logger.Metadata = [:]) { write(.error, message, metadata) }
    package func warning(_ message: String, metadata: Logger.Metadata = [:]) { write(.warning, message, metadata) }
    package func info(_ message: String, metadata: Logger.Metadata = [:]) { write(.info, message, metadata) }
    package func debug(_ message: String, metadata: Logger.Metadata = [:]) { write(.debug, message, metadata) }

    /// A trace line: not summarised (one per frame or event is what it is for), but made as safe
    /// as any other line. Never give it a payload: it names what came, not what it said.
    package func trace(_ message: String, metadata: Logger.Metadata) {
        guard traces else { return }
        let secrets = state.withLock { $0.secrets }
        let safe = metadata.mapValues { Logger.MetadataValue.string(LogText.safe("\($0)", secrets: secrets)) }
        logger.log(level: .trace, "\(LogText.safe(message, secrets: secrets))", metadata: safe)
    }

    private func write(_ level: Logger.Level, _ message: String, _ metadata: Logger.Metadata) {
        guard logger.logLevel <= level else { return }
        let now = clock.now()
        let (admitted, suppressedBefore, secrets): (Bool, Int, [String]) = state.withLock { state in
            var window = state.windows[message] ?? Window(start: now)
            var suppressedBefore = 0
            if now - window.start >= interval {
                suppressedBefore = window.suppressed
                window = Window(start: now)
            }
            let admitted = window.written < burst
            if admitted { window.written += 1 } else { window.suppressed += 1 }
            state.windows[message] = window
            return (admitted, suppressedBefore, state.secrets)
        }
        guard admitted else { return }
        var safe = metadata.mapValues { Logger.MetadataValue.string(LogText.safe("\($0)", secrets: secrets)) }
        if suppressedBefore > 0 { safe["suppressed"] = "\(suppressedBefore) more in the previous \(interval)" }
        logger.log(level: level, "\(LogText.safe(message, secrets: secrets))", metadata: safe)
    }
}

/// Text for a log line, whatever a server put in it: credentials taken out, control characters
/// escaped (a newline cannot start a forged line, an escape sequence cannot reach a terminal), and
/// at most `limit` UTF-8 bytes, the rest replaced by a marker saying how much was cut.
package enum LogText {
    package static let limit = 1_024

    package static func safe(_ text: String, secrets: [String] = []) -> String {
        // Only a bounded head is looked at (a server's text may be megabytes). It is longer than
        // the limit, so a secret cut at its end is cut off the line too.
        let total = text.utf8.count
        let (head, headSize) = prefix(of: text, bytes: 8 * limit)
        let cleaned = escaped(Redaction.redacted(head, secrets: secrets))
        let (line, lineSize) = prefix(of: cleaned, bytes: limit)
        if headSize == total, lineSize == cleaned.utf8.count { return line }
        return line + "…[cut: \(total) bytes in all]"
    }

    /// The longest prefix of whole scalars within `bytes` UTF-8 bytes, and its size.
    static func prefix(of text: String, bytes: Int) -> (String, Int) {
        guard text.utf8.count > bytes else { return (text, text.utf8.count) }
        var size = 0
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            let width = UTF8.width(scalar)
            guard size + width <= bytes else { break }
            size += width
            scalars.append(scalar)
        }
        return (String(scalars), size)
    }

    /// `text` with C0 and C1 control characters, DEL and the Unicode line separators escaped.
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where isControl(scalar): result += "\\u{\(String(scalar.value, radix: 16))}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7f...0x9f).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029
    }
}

/// Takes credentials out of text meant for a log.
package enum Redaction {
    /// Secrets shorter than this are not searched for (a one-character "secret" would blank the line).
    package static let shortestSecret = 4
    package static let replacement = "<redacted>"

    /// `text` without: any of `secrets` (the header values of the authorization in use: an API key,
    /// a JWT, a SigV4 signature, a custom scheme's token); any `header-…` WebSocket subprotocol (the
    /// AppSync connect authorization, base64url-encoded); and anything shaped like a JWT.
    package static func redacted(_ text: String, secrets: [String] = []) -> String {
        var result = text
        for secret in secrets where secret.utf8.count >= shortestSecret && result.contains(secret) {
            result = result.replacingOccurrences(of: secret, with: replacement)
        }
        return redactingTokens(in: result)
    }

    /// Replaces `header-<base64url>` and `eyJ…​.…​.…` (a JWT: base64url JSON header, payload and
    /// signature) by `replacement`.
    private static func redactingTokens(in text: String) -> String {
        guard text.contains("header-") || text.contains("eyJ") else { return text }
        let scalars = Array(text.unicodeScalars)
        var output = String.UnicodeScalarView()
        var index = 0
        func isBase64URL(_ scalar: Unicode.Scalar) -> Bool {
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || scalar == "-" || scalar == "_" || scalar == "=")
        }
        func startsWith(_ prefix: String, at position: Int) -> Bool {
            let prefixScalars = Array(prefix.unicodeScalars)
            return position + prefixScalars.count <= scalars.count && Array(scalars[position..<position + prefixScalars.count]) == prefixScalars
        }
        while index < scalars.count {
            let atWordStart = index == 0 || !isBase64URL(scalars[index - 1])
            if atWordStart, startsWith("header-", at: index) {
                var end = index + 7
                while end < scalars.count, isBase64URL(scalars[end]) { end += 1 }
                if end > index + 7 {
                    output.append(contentsOf: "header-\(replacement)".unicodeScalars)
                    index = end
                    continue
                }
            }
            if atWordStart, startsWith("eyJ", at: index) {
                var end = index
                var dots = 0
                while end < scalars.count, isBase64URL(scalars[end]) || (scalars[end] == "." && dots < 2) {
                    if scalars[end] == "." { dots += 1 }
                    end += 1
                }
                if dots == 2 {
                    output.append(contentsOf: replacement.unicodeScalars)
                    index = end
                    continue
                }
            }
            output.append(scalars[index])
            index += 1
        }
        return String(output)
    }
}
