/// Lexical path helpers. Paths keep the form the user gave (relative stays relative) so
/// diagnostics print the way the user typed them; `..` and `.` are folded away.
enum FilePath {
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    static func lastComponent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// `relative` resolved against `directory`, lexically normalised.
    static func join(_ directory: String, _ relative: String) -> String {
        if relative.hasPrefix("/") { return normalize(relative) }
        return normalize(directory == "." ? relative : directory + "/" + relative)
    }

    static func normalize(_ path: String) -> String {
        let isAbsolute = path.hasPrefix("/")
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
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
}
