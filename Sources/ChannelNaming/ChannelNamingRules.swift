/// The channel naming rules of one transport: how many segments a channel path may have, and what
/// a segment may hold. One definition per transport, used by the generator (checking a spec's
/// channel addresses), the runtime (validating parameter values before they become part of a path)
/// and the emulator (checking what clients send), so the three cannot drift apart.
///
/// This module has no dependencies: the generator tool, built in every user's build, stays light.
public struct ChannelNamingRules: Sendable, Hashable {
    /// The transport the rules are those of, for messages ("AppSync Events").
    public let transportName: String
    /// The most segments a channel path may have.
    public let maximumSegments: Int
    /// The longest segment, in characters (all allowed characters are ASCII).
    public let maximumSegmentLength: Int
    /// Whether the first segment names a namespace (and so cannot be a parameter).
    public let firstSegmentIsNamespace: Bool
    private let alphabet: Alphabet

    private enum Alphabet: Sendable, Hashable {
        /// `A–Z a–z 0–9 -`, no `-` at either end of a segment.
        case appSync
        /// Printable ASCII but what would change a topic's meaning or its quoting.
        case topic
    }

    /// AppSync Events: 1–5 segments of 1–50 characters `A–Z a–z 0–9 -`, not starting or ending
    /// with `-`; the first segment is the namespace; a subscription may end in `*`.
    public static let appSyncEvents = ChannelNamingRules(
        transportName: "AppSync Events", maximumSegments: 5, maximumSegmentLength: 50, firstSegmentIsNamespace: true, alphabet: .appSync)

    /// Server-Sent Events from a Mercure hub, where a channel is a topic (any string): up to 32
    /// segments of up to 255 printable ASCII characters, so the addresses of MQTT, Kafka, Pusher or
    /// Centrifugo documents (`.`, `:`, `_`, `+`, `=`, `?`, …) and URL topics (`https://example.com/books/1`,
    /// Mercure's own convention, with its empty segment after the scheme) are carried as they are. Refused:
    /// `*` (a wildcard in channel routes), `{` `}` (templates), `#`, spaces, quotes, `\`, `<` `>`,
    /// `^`, `` ` `` and `|`.
    public static let serverSentEvents = ChannelNamingRules(
        transportName: "Server-Sent Events", maximumSegments: 32, maximumSegmentLength: 255, firstSegmentIsNamespace: false, alphabet: .topic)

    /// The characters a segment allows, as messages spell them.
    public var allowedCharacters: String {
        switch alphabet {
        case .appSync: return "A-Z, a-z, 0-9 and '-'"
        case .topic: return "printable ASCII except * { } # \" < > \\ ^ ` | and space"
        }
    }

    /// Whether `scalar` may appear in a segment.
    public func allows(_ scalar: Unicode.Scalar) -> Bool {
        switch alphabet {
        case .appSync:
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", "-": return true
            default: return false
            }
        case .topic:
            guard scalar.value > 0x20, scalar.value < 0x7F else { return false }
            return !"*{}#\"<>\\^`|/".unicodeScalars.contains(scalar)
        }
    }

    /// Whether a path may hold an empty segment (`a//b`, a URL's `https://`). A parameter value is
    /// never empty: it is checked as a segment on its own.
    public var allowsEmptySegments: Bool { alphabet == .topic }

    /// What is wrong with `segment` as one segment of a concrete channel path, or `nil`.
    public func problem(inSegment segment: some StringProtocol) -> SegmentProblem? {
        if segment.isEmpty { return .empty }
        // In UTF-8 bytes: every allowed character is one byte, and a long text is refused before it is scanned.
        if segment.utf8.count > maximumSegmentLength { return .tooLong(length: segment.utf8.count) }
        if let bad = segment.unicodeScalars.first(where: { !allows($0) }) { return .invalidCharacter(bad) }
        if alphabet == .appSync, segment.hasPrefix("-") || segment.hasSuffix("-") { return .edgeHyphen }
        return nil
    }

    /// Whether `segment` is a valid segment.
    public func isValidSegment(_ segment: some StringProtocol) -> Bool { problem(inSegment: segment) == nil }

    /// Whether a path of `count` segments is allowed.
    public func allowsSegmentCount(_ count: Int) -> Bool { (1...maximumSegments).contains(count) }

    /// What is wrong with a concrete channel path, or `nil`. One `/` may lead and one may end it;
    /// with `allowingWildcard` (a subscription) the last segment may be `*`, everything below the
    /// segments before it. Where there are no namespaces, `/` alone is the root topic.
    public func problem(inPath path: some StringProtocol, allowingWildcard: Bool) -> PathProblem? {
        var body = Substring(path)
        if body.hasPrefix("/") { body = body.dropFirst() }
        if body.hasSuffix("/") { body = body.dropLast() }
        if body.isEmpty { return !firstSegmentIsNamespace && path.hasPrefix("/") ? nil : .noSegments }
        var segments = body.split(separator: "/", omittingEmptySubsequences: false)
        if allowingWildcard, segments.count > 1, segments.last == "*" { segments.removeLast() }
        guard allowsSegmentCount(segments.count) else { return .segmentCount(segments.count) }
        for (index, segment) in segments.enumerated() where !(segment.isEmpty && allowsEmptySegments) {
            if let problem = problem(inSegment: segment) { return .segment(position: index + 1, problem) }
        }
        return nil
    }

    /// Whether `path` is a valid concrete channel path (see `problem(inPath:allowingWildcard:)`).
    public func isValidPath(_ path: some StringProtocol, allowingWildcard: Bool) -> Bool {
        problem(inPath: path, allowingWildcard: allowingWildcard) == nil
    }
}

/// Why a text cannot be a channel path.
public enum PathProblem: Sendable, Hashable {
    /// Nothing but slashes.
    case noSegments
    /// More segments than the transport allows (wildcard not counted).
    case segmentCount(Int)
    /// The segment at `position` (from 1) is not valid.
    case segment(position: Int, SegmentProblem)
}

/// Why a text cannot be a channel segment.
public enum SegmentProblem: Sendable, Hashable {
    /// The segment is empty.
    case empty
    /// Longer than `ChannelNamingRules.maximumSegmentLength` (`length` in UTF-8 bytes).
    case tooLong(length: Int)
    /// Holds a character the rules do not allow (such as `/`, `*` or a space).
    case invalidCharacter(Unicode.Scalar)
    /// Starts or ends with `-`.
    case edgeHyphen
}
