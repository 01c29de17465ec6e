import ChannelSpec
import Foundation

/// Each value a model holds must come from its own key: what the model writes back (its encoding)
/// is compared with what was sent, key by key, keys by their exact scalars. A property that reads
/// another key (two names one normalization apart, say) writes its own key with the other key's
/// value, or writes a key that was never sent.
///
/// The model may write less than it was sent (unknown keys, a union's variant chosen by trying them
/// in order, which keeps only its own keys), but not less than the payload's `kept` members (its
/// declared properties), and writes dates in its own format; what it writes must be what was sent:
/// the same string, an instant equal to the millisecond, the same number, `null` or nothing where
/// `null` was sent.
extension DecodeCheck {
    /// A `FAIL` line per payload whose encoding (the program's `ENC` lines) differs from it.
    static func keyFailures(stdout: String, payloads: [Payload]) -> [String] {
        var failures: [String] = []
        let lines = stdout.split(separator: "\n").filter { $0.hasPrefix("ENC ") }
        // Every payload that decoded is written back: a check of nothing would pass.
        if let summary = summary(of: stdout), lines.count < summary.checked - summary.failures {
            failures.append("FAIL \(lines.count) encodings for \(summary.checked - summary.failures) decoded payloads")
        }
        for line in lines {
            let fields = line.split(separator: " ")
            guard fields.count == 3, let index = Int(fields[1]), payloads.indices.contains(index),
                  let written = Data(base64Encoded: String(fields[2])) else {
                failures.append("FAIL unreadable line: \(line.prefix(200))")
                continue
            }
            let payload = payloads[index]
            let difference: String?
            do {
                let writtenNode = try JSONDocumentReader.read(Array(written), file: "encoding")
                difference = try PerKey.difference(written: writtenNode, sent: JSONDocumentReader.read(Array(payload.json.utf8), file: "payload"), at: "$")
                    ?? payload.kept.flatMap { try PerKey.missing(kept: JSONDocumentReader.read(Array($0.utf8), file: "kept"), written: writtenNode, at: "$") }
            } catch {
                difference = "unreadable JSON: \(error)"
            }
            if let difference {
                failures.append("FAIL \(payload.label) (\(payload.type)): \(difference)\n    sent    \(payload.json)\n    written \(String(decoding: written, as: UTF8.self))")
            }
        }
        return failures
    }
}

enum PerKey {
    /// Where `written` says something `sent` did not, or `nil`.
    static func difference(written: YAMLNode, sent: YAMLNode, at path: String) -> String? {
        switch (written.content, sent.content) {
        case (.mapping(let entries), .mapping):
            for entry in entries {
                let here = path + "." + entry.key.debugDescription
                guard let value = sent[entry.key] else {
                    if entry.value.scalar?.isNull == true { continue }
                    return "\(here) is written, but no such key was sent"
                }
                if let difference = difference(written: entry.value, sent: value, at: here) { return difference }
            }
            return nil
        case (.sequence(let writtenItems), .sequence(let sentItems)):
            guard writtenItems.count == sentItems.count else { return "\(path): \(writtenItems.count) items written, \(sentItems.count) sent" }
            for (index, (item, sentItem)) in zip(writtenItems, sentItems).enumerated() {
                if let difference = difference(written: item, sent: sentItem, at: "\(path)[\(index)]") { return difference }
            }
            return nil
        case (.scalar(let writtenScalar), .scalar(let sentScalar)) where same(writtenScalar, sentScalar):
            return nil
        default:
            return "\(path): \(describe(written)) written, \(describe(sent)) sent"
        }
    }

    /// A member of `kept` (what must be written back) that `written` lacks, or `nil`.
    static func missing(kept: YAMLNode, written: YAMLNode, at path: String) -> String? {
        switch (kept.content, written.content) {
        case (.mapping(let entries), .mapping):
            for entry in entries where entry.value.scalar?.isNull != true {
                let here = path + "." + entry.key.debugDescription
                guard let value = written[entry.key] else { return "\(here) was sent but is not written back" }
                if let missing = missing(kept: entry.value, written: value, at: here) { return missing }
            }
            return nil
        case (.sequence(let keptItems), .sequence(let writtenItems)) where keptItems.count == writtenItems.count:
            for (index, (item, writtenItem)) in zip(keptItems, writtenItems).enumerated() {
                if let missing = missing(kept: item, written: writtenItem, at: "\(path)[\(index)]") { return missing }
            }
            return nil
        default:
            return nil  // what differs is `difference`'s to say
        }
    }

    private static func same(_ written: YAMLScalar, _ sent: YAMLScalar) -> Bool {
        guard written.isPlain == sent.isPlain else { return false }
        if written.text.unicodeScalars.elementsEqual(sent.text.unicodeScalars) { return true }
        guard written.isPlain else {
            // Dates in another format: the same instant.
            guard let a = date(written.text), let b = date(sent.text) else { return false }
            return abs(a.timeIntervalSince(b)) < 0.001
        }
        if let a = Int64(written.text), let b = Int64(sent.text) { return a == b }
        if let a = Double(written.text), let b = Double(sent.text) { return a == b }
        return false
    }

    private static func date(_ text: String) -> Date? {
        (try? Date(text, strategy: .iso8601)) ?? (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
    }

    private static func describe(_ node: YAMLNode) -> String {
        switch node.content {
        case .mapping: "an object"
        case .sequence(let items): "a list of \(items.count)"
        case .scalar(let scalar): scalar.isPlain ? scalar.text : "\"\(scalar.text)\""
        }
    }
}
