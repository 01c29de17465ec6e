import ChannelSpec
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `channelgen diff`'s output: the changes grouped by verdict, as text for a terminal, Markdown
/// for a pull-request comment or JSON for tools.
package enum DiffReport {
    package enum Format: String, CaseIterable, Sendable {
        case text, markdown, json
    }

    /// The groups, in the order a reviewer reads them.
    static func groups(_ changes: [SpecChange]) -> [(title: String, changes: [SpecChange])] {
        [
            ("Breaking on the wire (apps already shipped)", changes.filter { $0.wire == .breaking }),
            ("Breaking in source only (app code using the generated Swift)", changes.filter { $0.wire == .compatible && $0.source == .breaking }),
            ("Compatible", changes.filter { !$0.isBreaking }),
        ].filter { !$0.changes.isEmpty }
    }

    static func summary(_ changes: [SpecChange]) -> String {
        let wire = changes.filter { $0.wire == .breaking }.count
        let source = changes.filter { $0.source == .breaking }.count
        if changes.isEmpty { return "no API change" }
        return "\(changes.count) change\(changes.count == 1 ? "" : "s"): \(wire) wire-breaking, \(source) source-breaking"
    }

    package static func render(_ changes: [SpecChange], format: Format) -> String {
        switch format {
        case .text: return text(changes)
        case .markdown: return markdown(changes)
        case .json: return json(changes)
        }
    }

    static func text(_ changes: [SpecChange]) -> String {
        var lines = ["channelgen diff: \(summary(changes))"]
        for group in groups(changes) {
            lines.append("")
            lines.append("\(group.title):")
            for change in group.changes {
                lines.append("  \(change.location.map { "\($0): " } ?? "")\(change.symbol): \(change.reason) [wire: \(change.wire.rawValue), source: \(change.source.rawValue)]")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func markdown(_ changes: [SpecChange]) -> String {
        var lines = ["### channelgen diff: \(summary(changes))"]
        for group in groups(changes) {
            lines += ["", "#### \(group.title)", "", "| Where | Swift symbol | Wire | Source | Why |", "|---|---|---|---|---|"]
            for change in group.changes {
                let cells = [change.location.map { "`\($0)`" } ?? "", "`\(change.symbol)`", change.wire.rawValue, change.source.rawValue, change.reason]
                lines.append("| " + cells.map { $0.replacing("|", with: "\\|") }.joined(separator: " | ") + " |")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    struct JSONReport: Encodable {
        struct Location: Encodable { let file: String; let line: Int; let column: Int }
        struct Change: Encodable {
            let wire: String
            let source: String
            let location: Location?
            let symbol: String
            let reason: String
        }
        let wireBreaking: Bool
        let sourceBreaking: Bool
        let changes: [Change]
    }

    static func json(_ changes: [SpecChange]) -> String {
        let report = JSONReport(
            wireBreaking: changes.contains { $0.wire == .breaking },
            sourceBreaking: changes.contains { $0.source == .breaking },
            changes: changes.map { change in
                JSONReport.Change(
                    wire: change.wire.rawValue, source: change.source.rawValue,
                    location: change.location.map { JSONReport.Location(file: $0.file, line: $0.line, column: $0.column) },
                    symbol: change.symbol, reason: change.reason)
            })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(report)) ?? Data("{}".utf8), as: UTF8.self) + "\n"
    }
}
