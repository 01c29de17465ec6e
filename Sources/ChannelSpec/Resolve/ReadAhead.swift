import Dispatch

/// One spec file read, checked and parsed on another thread (see `SpecWorkspace.readAhead`).
final class ReadAhead: @unchecked Sendable {
    // @unchecked: `parsed` is written once, before `done` is signalled, and read only after waiting on it.
    private let done = DispatchSemaphore(value: 0)
    private var parsed: SpecWorkspace.Parsed?

    init(path: String, allowedFolder: String?) {
        DispatchQueue.global().async { [self] in
            defer { done.signal() }
            // The same checks as a read on the spot: nothing outside `allowedFolder` is opened.
            guard let bytes = try? SpecWorkspace.read(path, allowedFolder: allowedFolder, requestedAt: nil),
                  let node = try? SpecWorkspace.parse(bytes, file: path) else { return }
            parsed = SpecWorkspace.Parsed(node: node, references: ReferenceScan.files(in: bytes))
        }
    }

    /// The parsed file, once ready; `nil` when it could not be read or parsed.
    func wait() -> SpecWorkspace.Parsed? {
        done.wait()
        return parsed
    }
}

/// Finds, in a spec file's text, the files its `$ref`s name: a guess made before parsing, so the
/// files can be read ahead. What it finds is only read ahead, never trusted: resolving a `$ref` still
/// goes by the parsed value.
package enum ReferenceScan {
    /// At most this many files per text.
    static let maximumFiles = 64

    /// The file part (before `#`) of every `$ref: <value>` and `"$ref": "<value>"` that names another
    /// file, in order of first appearance, each once. Remote references are left out.
    package static func files(in bytes: [UInt8]) -> [String] {
        var files: [String] = []
        var seen: Set<String> = []
        bytes.withUnsafeBufferPointer { text in
            var index = 0
            while index + 4 < text.count, files.count < maximumFiles {
                defer { index += 1 }
                guard text[index] == UInt8(ascii: "$"), text[index + 1] == UInt8(ascii: "r"),
                      text[index + 2] == UInt8(ascii: "e"), text[index + 3] == UInt8(ascii: "f") else { continue }
                guard let file = fileValue(in: text, after: index + 4), seen.insert(file).inserted else { continue }
                files.append(file)
            }
        }
        return files
    }

    /// The file part of the value after a `$ref` key ending at `start`, if it names one.
    private static func fileValue(in text: UnsafeBufferPointer<UInt8>, after start: Int) -> String? {
        var index = start
        func skipBlanks() {
            while index < text.count, text[index] == UInt8(ascii: " ") || text[index] == UInt8(ascii: "\t") { index += 1 }
        }
        if index < text.count, text[index] == UInt8(ascii: "\"") || text[index] == UInt8(ascii: "'") { index += 1 }
        skipBlanks()
        guard index < text.count, text[index] == UInt8(ascii: ":") else { return nil }
        index += 1
        skipBlanks()
        var quote: UInt8?
        if index < text.count, text[index] == UInt8(ascii: "\"") || text[index] == UInt8(ascii: "'") {
            quote = text[index]
            index += 1
        }
        let valueStart = index
        while index < text.count, index - valueStart < 1024 {
            let byte = text[index]
            if byte == UInt8(ascii: "#") || byte == quote || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") { break }
            if quote == nil, byte == UInt8(ascii: " ") || byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") { break }
            index += 1
        }
        guard index > valueStart else { return nil }
        let file = String(decoding: UnsafeBufferPointer(rebasing: text[valueStart..<index]), as: UTF8.self)
        return FilePath.isRemote(file) ? nil : file
    }
}
