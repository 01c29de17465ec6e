#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A node together with where it lives: its file and its JSON pointer inside that file.
/// The translator walks cursors so every diagnostic and every "Generated from" remark can
/// name the exact place.
package struct Cursor: Sendable {
    package var node: YAMLNode
    package var file: String
    package var pointer: String
    /// Where the key naming this node was written, when it is a mapping value.
    package var keyLocation: SourceLocation?

    package init(node: YAMLNode, file: String, pointer: String, keyLocation: SourceLocation? = nil) {
        self.node = node
        self.file = file
        self.pointer = pointer
        self.keyLocation = keyLocation
    }

    package var location: SourceLocation { node.location }

    /// The place to report a declaration: its key (`Ping:`) when it has one, else the node.
    package var declarationLocation: SourceLocation { keyLocation ?? node.location }

    package func child(_ key: String) -> Cursor? {
        // By Unicode scalars, as `YAMLNode`'s subscript: canonically equivalent keys are two keys.
        guard let entry = node.entries?.first(where: { $0.key.utf8.elementsEqual(key.utf8) }) else { return nil }
        return Cursor(node: entry.value, file: file, pointer: pointer + "/" + JSONPointer.escape(key), keyLocation: entry.keyLocation)
    }

    /// Children of a mapping in file order.
    package var children: [(key: String, keyLocation: SourceLocation, cursor: Cursor)] {
        (node.entries ?? []).map { entry in
            (entry.key, entry.keyLocation, Cursor(node: entry.value, file: file, pointer: pointer + "/" + JSONPointer.escape(entry.key), keyLocation: entry.keyLocation))
        }
    }

    package var elements: [Cursor] {
        (node.items ?? []).enumerated().map { index, item in Cursor(node: item, file: file, pointer: pointer + "/\(index)") }
    }

    package var isReference: Bool { node["$ref"] != nil }
}

/// Loads each spec file once and follows `$ref`s: local (`#/components/...`) and relative-file
/// (`./openapi-schemas.yaml#/components/schemas/X`), with JSON-pointer escapes and cycle detection.
///
/// Files are read only inside `allowedFolder` (the package the spec belongs to): a `$ref` to
/// `/etc/passwd`, `../../outside.yaml` or through a symlink that leads out is an error naming it.
package final class SpecWorkspace {
    /// The file generation started from (as given by the user).
    package let rootFile: String
    /// The folder every file read must lie in (absolute, symlinks resolved).
    package let allowedFolder: String?
    /// Mapping keys → entry index, for mappings that `$ref`s look into (`components/schemas` with
    /// thousands of entries must not be searched linearly per reference).
    private var childIndexes: [String: [String: Int]] = [:]
    /// File → `$ref` text → its target: what `target(of:from:at:)` found.
    private var targets: [String: [String: Cursor]] = [:]
    private var documents: [String: YAMLNode] = [:]
    private var displayPrefixes: [String: String] = [:]
    /// `$ref`s whose target is being looked for (file#ref): one met again on its own path is a cycle.
    private var targetsBeingFound: Set<String> = []
    /// Files that failed to load: their error is reported once, at the first `$ref` into them.
    private var failedFiles: Set<String> = []
    /// Every file read, in the order first read: the inputs a build system must watch.
    package private(set) var loadedFiles: [String] = []

    /// - Parameters:
    ///   - rootFile: the spec document `$ref`s are resolved from.
    ///   - allowedFolder: where files may be read; by default the package holding the root file
    ///     (nearest `Package.swift` above it); outside any package, the working folder when the
    ///     root file lies in it (`channelgen lint examples/service/asyncapi.yaml` may read
    ///     `examples/common/`), else the root file's folder.
    ///   - readAheadMinimumSize: files named by `$ref`s this large or larger are parsed ahead on other
    ///     threads (32 KB by default; below that, a thread costs more than it saves).
    package init(rootFile: String, allowedFolder: String? = nil, readAheadMinimumSize: Int = 32 << 10) {
        self.rootFile = FilePath.normalize(rootFile)
        self.readAheadMinimumSize = readAheadMinimumSize
        self.allowedFolder = allowedFolder.flatMap(FilePath.real)
            ?? FilePath.packageRoot(containing: rootFile) ?? Self.workingFolder(containing: rootFile)
            ?? FilePath.real(FilePath.directory(of: rootFile))
    }

    /// The working folder, when it holds `file` and is not `/` (which would allow every file).
    private static func workingFolder(containing file: String) -> String? {
        guard let working = FilePath.real("."), working != "/", let folder = FilePath.real(FilePath.directory(of: file)),
              FilePath.isInside(folder, working) else { return nil }
        return working
    }

    /// The root document.
    package func root() throws(DiagnosticsError) -> Cursor {
        Cursor(node: try document(at: rootFile, requestedAt: nil), file: rootFile, pointer: "")
    }

    /// A reference to `cursor` for doc comments, e.g. `openapi-schemas.yaml#/components/schemas/X`
    /// (the file part is relative to the root spec's folder and omitted for the root spec).
    package func displayReference(_ cursor: Cursor) -> String {
        displayPrefix(of: cursor.file) + "#" + cursor.pointer
    }

    /// A file as doc comments name it: relative to the root spec's folder, empty for the root spec.
    /// Worked out once per file; every schema and property asks.
    private func displayPrefix(of file: String) -> String {
        if file == rootFile { return "" }
        if let known = displayPrefixes[exactKey(file)] { return known }
        let prefix = FilePath.relative(file, to: FilePath.directory(of: rootFile))
        displayPrefixes[exactKey(file)] = prefix
        return prefix
    }

    func document(at path: String, requestedAt location: SourceLocation?) throws(DiagnosticsError) -> YAMLNode {
        // By scalars: on Linux, file names that differ only in normalization are two files.
        if let node = documents[exactKey(path)] { return node }
        if failedFiles.contains(exactKey(path)) { throw DiagnosticsError([]) }
        do {
            return try load(path, requestedAt: location)
        } catch {
            failedFiles.insert(exactKey(path))
            throw error
        }
    }

    private func load(_ path: String, requestedAt location: SourceLocation?) throws(DiagnosticsError) -> YAMLNode {
        let node: YAMLNode
        if let ahead = readAhead.removeValue(forKey: exactKey(path)), let parsed = ahead.wait() {
            readAhead(parsed.references, from: path)
            node = parsed.node
        } else {
            // Not read ahead, or that read failed: read here, so a failure reports at this `$ref`.
            let bytes = try Self.read(path, allowedFolder: allowedFolder, requestedAt: location)
            // The files it names start parsing on other threads before this one parses it.
            readAhead(ReferenceScan.files(in: bytes), from: path)
            node = try Self.parse(bytes, file: path)
        }
        documents[exactKey(path)] = node
        loadedFiles.append(path)
        return node
    }

    /// A spec file's tree and the files its `$ref`s seem to name.
    struct Parsed: Sendable {
        var node: YAMLNode
        var references: [String]
    }

    /// Reads and checks one file; touches no state, so it may run on any thread.
    static func read(_ path: String, allowedFolder: String?, requestedAt location: SourceLocation?) throws(DiagnosticsError) -> [UInt8] {
        guard let kind = FileSystem.kind(of: path) else {
            let message = location == nil ? "cannot read spec '\(path)': no such file" : "cannot read '\(path)' named by $ref: no such file"
            throw DiagnosticsError(.error(message, at: location))
        }
        if let allowedFolder {
            let what = location == nil ? "the spec '\(path)'" : "'\(path)' named by $ref"
            guard let real = FilePath.real(path) else {
                throw DiagnosticsError(.error("cannot read \(what): \(FileSystem.reason(errno))", at: location))
            }
            if !FilePath.isInside(real, allowedFolder) {
                throw DiagnosticsError(.error("\(what) is outside '\(allowedFolder)'; specs may only read files inside their package", at: location))
            }
        }
        if !kind.isRegularFile {
            let what = location == nil ? "spec '\(path)'" : "'\(path)' named by $ref"
            throw DiagnosticsError(.error("cannot read \(what): not a regular file", at: location))
        }
        if kind.size > maximumFileSize {
            let what = location == nil ? "spec '\(path)'" : "'\(path)' named by $ref"
            throw DiagnosticsError(.error("cannot read \(what): \(kind.size) bytes is over the \(Self.maximumFileSize)-byte limit for a spec file", at: location))
        }
        let bytes: [UInt8]
        switch FileSystem.read(path) {
        case .success(let contents):
            bytes = contents
        case .failure(let failure):
            let message = location == nil ? "cannot read spec '\(path)': \(failure)" : "cannot read '\(path)' named by $ref: \(failure)"
            throw DiagnosticsError(.error(message, at: location))
        }
        if let offset = firstInvalidUTF8(bytes) {
            let lineStart = bytes[..<offset].lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
            let line = bytes[..<offset].reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
            throw DiagnosticsError(.error(
                "invalid UTF-8 (byte 0x\(String(bytes[offset], radix: 16, uppercase: true)) at offset \(offset)); spec files must be UTF-8 text",
                at: SourceLocation(file: path, line: line, column: offset - lineStart + 1)))
        }
        return bytes
    }

    /// Parses a file's checked bytes.
    static func parse(_ bytes: [UInt8], file: String) throws(DiagnosticsError) -> YAMLNode {
        try YAMLLoader.load(String(decoding: bytes, as: UTF8.self), file: file)
    }

    // MARK: Reading ahead

    /// Files named by `$ref`s, being parsed on other threads: a spec split into files (`asyncapi.yaml`
    /// and `schemas.yaml`) parses its second file on the other core while this thread parses and
    /// translates the first. Only a speed-up: a file used is the same tree either way, and a read
    /// ahead that failed is done again here, so its error is reported at the `$ref` that needs it.
    private var readAhead: [String: ReadAhead] = [:]
    /// Every file ever read ahead, so each is read ahead once (also after it is taken).
    private var readAheadStarted: Set<String> = []
    /// A bound on reads ahead: each holds a thread while it runs.
    static let maximumReadsAhead = 16
    /// Smaller files are parsed on the spot: handing one to another thread costs more than it saves.
    private let readAheadMinimumSize: Int

    /// Starts reading ahead the files `references` (relative to `file`'s folder) name.
    private func readAhead(_ references: [String], from file: String) {
        for reference in references where readAheadStarted.count < Self.maximumReadsAhead {
            let path = FilePath.join(FilePath.directory(of: file), reference)
            guard documents[exactKey(path)] == nil, let kind = FileSystem.kind(of: path), kind.size >= readAheadMinimumSize,
                  readAheadStarted.insert(exactKey(path)).inserted else { continue }
            readAhead[exactKey(path)] = ReadAhead(path: path, allowedFolder: allowedFolder)
        }
    }

    /// The offset of the first byte that does not start or continue a valid UTF-8 sequence.
    static func firstInvalidUTF8(_ bytes: [UInt8]) -> Int? {
        var index = 0
        while index < bytes.count {
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            let length: Int
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0...0xEF: length = 3
            case 0xF0...0xF4: length = 4
            default: return index
            }
            guard index + length <= bytes.count else { return index }
            var scalar = UInt32(lead) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
            for offset in 1..<length {
                let byte = bytes[index + offset]
                guard byte & 0xC0 == 0x80 else { return index }
                scalar = scalar << 6 | UInt32(byte & 0x3F)
            }
            let overlong = (length == 3 && scalar < 0x800) || (length == 4 && scalar < 0x10000)
            if overlong || scalar > 0x10FFFF || (0xD800...0xDFFF).contains(scalar) { return index }
            index += length
        }
        return nil
    }

    /// Spec files larger than this are refused before reading (a spec is a few hundred KB at most).
    static let maximumFileSize = 64 << 20

    /// Follows `$ref`s from `cursor` until a node that is not a reference; reports dangling
    /// references and cycles at the `$ref` that starts them.
    package func resolve(_ cursor: Cursor) throws(DiagnosticsError) -> Cursor {
        guard cursor.isReference else { return cursor }
        do {
            return try follow(cursor)
        } catch {
            throw error.markingBrokenReferences()
        }
    }

    private func follow(_ cursor: Cursor) throws(DiagnosticsError) -> Cursor {
        guard let refNode = cursor.node["$ref"] else { return cursor }
        // Most references name a schema directly: one hop, no cycle bookkeeping.
        if let ref = refNode.string {
            let first = try target(of: ref, from: cursor.file, at: refNode.location)
            if first.node["$ref"] == nil { return first }
        }
        var current = cursor
        var chain: [String] = []
        var seen: Set<String> = []
        while let refNode = current.node["$ref"] {
            guard let ref = refNode.string else {
                throw DiagnosticsError(.error("$ref must be a string, found \(refNode.kindDescription)", at: refNode.location))
            }
            let key = current.file + "#" + current.pointer
            if !seen.insert(exactKey(key)).inserted {
                let names = (chain + [key]).map { displayName($0) }
                throw DiagnosticsError(.error("$ref cycle: \(names.joined(separator: " → "))", at: refNode.location))
            }
            chain.append(key)
            current = try target(of: ref, from: current.file, at: refNode.location)
        }
        return current
    }

    private func displayName(_ key: String) -> String {
        guard let hash = key.firstIndex(of: "#") else { return key }
        return displayPrefix(of: String(key[..<hash])) + key[hash...]
    }

    private func target(of ref: String, from file: String, at location: SourceLocation) throws(DiagnosticsError) -> Cursor {
        // The same `$ref` from the same file (a shared parameter on every channel) resolves once.
        if let resolved = targets[file]?[exactKey(ref)] { return resolved }
        let finding = exactKey(file + "#" + ref)
        guard targetsBeingFound.insert(finding).inserted else {
            throw DiagnosticsError(.error("$ref cycle: '\(ref)' passes through a $ref that leads back to it", at: location))
        }
        defer { targetsBeingFound.remove(finding) }
        let cursor = try findTarget(of: ref, from: file, at: location)
        targets[file, default: [:]][exactKey(ref)] = cursor
        return cursor
    }

    private func findTarget(of ref: String, from file: String, at location: SourceLocation) throws(DiagnosticsError) -> Cursor {
        let filePart: Substring
        let fragment: Substring
        // `utf8`: `String.firstIndex(of:)` steps through characters.
        if let hash = ref.utf8.firstIndex(of: UInt8(ascii: "#")) {
            filePart = ref[..<hash]
            fragment = ref[ref.index(after: hash)...]
        } else {
            filePart = ref[...]
            fragment = ""
        }
        if FilePath.isRemote(filePart) {
            throw DiagnosticsError(.unsupported(
                "remote $ref '\(ref)' is not supported: download the document and reference it by relative path",
                at: location))
        }
        if ref.isEmpty {
            throw DiagnosticsError(.error("$ref is empty; name a target such as '#/components/schemas/Name'", at: location))
        }
        guard let decoded = JSONPointer.percentDecoded(String(fragment)) else {
            throw DiagnosticsError(.error("$ref '\(ref)' has an invalid percent-escape (each '%' must be followed by two hex digits)", at: location))
        }
        guard let tokens = JSONPointer.tokens(decoded) else {
            throw DiagnosticsError(.error("$ref '\(ref)' has an invalid JSON pointer (it must start with '#/')", at: location))
        }
        // A `$ref` is a URI reference: its path may be percent-encoded (`./o%20x.yaml` names `o x.yaml`).
        guard let path = JSONPointer.percentDecoded(String(filePart)) else {
            throw DiagnosticsError(.error("$ref '\(ref)' has an invalid percent-escape (each '%' must be followed by two hex digits)", at: location))
        }
        // No file name holds a NUL; the system would read the path only up to it (another file).
        if path.utf8.contains(0) {
            throw DiagnosticsError(.error("$ref '\(ref)' names a file whose path holds a NUL character (%00), which no file name can", at: location))
        }
        let targetFile = filePart.isEmpty ? file : FilePath.join(FilePath.directory(of: file), path)
        var cursor = Cursor(node: try document(at: targetFile, requestedAt: location), file: targetFile, pointer: "")
        for token in tokens {
            // A pointer may pass through a reference (`#/channels/echo/messages/echo` where
            // `echo` is `$ref: ./channels.yaml#/echo`): it continues in the referenced node, as the
            // official parser resolves it.
            // The child first: it is looked up by index, while `isReference` reads every key of the
            // mapping (`#/components/schemas` of thousands), which made each `$ref` cost the document's size.
            var next = child(of: cursor, token)
            if next == nil, cursor.isReference {
                cursor = try follow(cursor)
                next = child(of: cursor, token)
            }
            if let next {
                cursor = next
            } else if let items = cursor.node.items, let index = Int(token), items.indices.contains(index) {
                cursor = cursor.elements[index]
            } else {
                let parent = cursor.pointer.isEmpty ? "the document root" : "'#\(cursor.pointer)'"
                throw DiagnosticsError(.error(
                    "unresolved $ref '\(ref)': \(parent) in \(FilePath.lastComponent(of: targetFile)) has no '\(token)'",
                    at: location))
            }
        }
        return cursor
    }

    /// `cursor.child(key)` through a per-mapping index built on first use.
    private func child(of cursor: Cursor, _ key: String) -> Cursor? {
        guard let entries = cursor.node.entries else { return nil }
        if entries.count < 16 { return cursor.child(key) }
        let id = exactKey(cursor.file + "#" + cursor.pointer)
        let index: [String: Int]
        if let cached = childIndexes[id] {
            index = cached
        } else {
            index = Dictionary(entries.enumerated().map { (exactKey($1.key), $0) }, uniquingKeysWith: { first, _ in first })
            childIndexes[id] = index
        }
        guard let position = index[exactKey(key)] else { return nil }
        let entry = entries[position]
        return Cursor(node: entry.value, file: cursor.file, pointer: cursor.pointer + "/" + JSONPointer.escape(key), keyLocation: entry.keyLocation)
    }
}
