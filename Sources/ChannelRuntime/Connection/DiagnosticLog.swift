import Foundation
import Logging

/// Where a connection's error and warning lines go: every line has its credentials taken out, and a
/// line repeated within `interval` is written at most `burst` times, the rest summarised by count.
///
/// Server input decides how often these lines happen (a `subscribe_error` storm, undecodable
/// events at socket speed), so without a limit a hostile server fills the app's disk; and the text
/// of an error can carry what the client sent (a server echoing the auth subprotocol).
package final class DiagnosticLog: Sendable {
    package let logger: Logger
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
        var redacted = metadata.mapValues { Logger.MetadataValue.string(Redaction.redacted("\($0)", secrets: secrets)) }
        if suppressedBefore > 0 { redacted["suppressed"] = "\(suppressedBefore) more in the previous \(interval)" }
        logger.log(level: level, "\(Redaction.redacted(message, secrets: secrets))", metadata: redacted)
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
