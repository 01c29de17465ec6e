import Logging

/// Captures every log line with its metadata.
struct CapturingLogHandler: LogHandler {
    let lines: LockedBox<[String]>
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let all = metadata.merging(event.metadata ?? [:]) { $1 }
        lines.mutate { $0.append("\(event.level) \(event.message) \(all) \(event.error.map { "\($0)" } ?? "")") }
    }
}
