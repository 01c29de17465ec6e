#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Lexical path helpers. Paths keep the form the user gave (relative stays relative) so
/// diagnostics print the way the user typed them; `..` and `.` are folded away.
package enum FilePath {
    package static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    static func lastComponent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// `name` inside `directory` (no normalisation), as `NSString.appendingPathComponent` writes it.
    package static func appending(_ directory: String, _ name: String) -> String {
        if directory.isEmpty { return name }
        return directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    /// Whether a `$ref`'s file part names a remote document: it holds a scheme's `://`. (On bytes:
    /// `String.contains(_:)` with a string argument is a generic search, and every `$ref` asks.)
    static func isRemote(_ reference: some StringProtocol) -> Bool {
        var last: UInt8 = 0, beforeLast: UInt8 = 0
        for byte in reference.utf8 {
            if byte == UInt8(ascii: "/"), last == UInt8(ascii: "/"), beforeLast == UInt8(ascii: ":") { return true }
            (beforeLast, last) = (last, byte)
        }
        return false
    }

    /// `relative` resolved against `directory`, lexically normalised.
    static func join(_ directory: String, _ relative: String) -> String {
        if relative.hasPrefix("/") { return normalize(relative) }
        return normalize(directory == "." ? relative : directory + "/" + relative)
    }

    package static func normalize(_ path: String) -> String {
        let isAbsolute = path.utf8.first == UInt8(ascii: "/")
        var parts: [Substring] = []
        // Split on bytes: a path separator is the byte `/`, whatever follows it (a split by
        // `Character` would also be slower: every `$ref` into another file is normalised).
        for bytes in path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true) {
            let part = Substring(bytes)
            if part == "." { continue }
            if part == "..", let last = parts.last, last != ".." {
                parts.removeLast()
                continue
            }
            if part == "..", isAbsolute { continue }
            parts.append(part)
        }
        let joined = parts.joined(separator: "/")
        if isAbsolute { return "/" + joined }
        return joined.isEmpty ? "." : joined
    }

    /// `path` relative to `base` (both lexically normalised, same anchoring), for display.
    static func relative(_ path: String, to base: String) -> String {
        let pathParts = normalize(path).split(separator: "/")
        let baseParts = base == "." ? [] : normalize(base).split(separator: "/")
        var common = 0
        while common < pathParts.count, common < baseParts.count, pathParts[common] == baseParts[common] { common += 1 }
        let up = Array(repeating: "..", count: baseParts.count - common)
        return (up + pathParts[common...].map(String.init)).joined(separator: "/")
    }

    /// `path` made absolute against the working directory and lexically normalised (symlinks kept).
    package static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return normalize(path) }
        guard let cwd = getcwd(nil, 0) else { return normalize(path) }
        defer { free(cwd) }
        return normalize(String(cString: cwd) + "/" + path)
    }

    /// The absolute, symlink-free form of an existing path (`realpath`); `nil` when it does not exist.
    static func real(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Whether `path` is `folder` or lies inside it (both absolute and normalised).
    static func isInside(_ path: String, _ folder: String) -> Bool {
        folder == "/" || path == folder || path.hasPrefix(folder + "/")
    }

    /// The package a file belongs to: the nearest folder above it holding a `Package.swift`
    /// (absolute, symlinks resolved), or `nil` when there is none.
    package static func packageRoot(containing path: String) -> String? {
        guard var folder = real(directory(of: path)) else { return nil }
        while true {
            if FileSystem.kind(of: folder + "/Package.swift") != nil { return folder }
            if folder == "/" { return nil }
            folder = directory(of: folder)
        }
    }
}
