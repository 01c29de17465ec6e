#if Emulator
import ChannelNaming

/// AppSync Events channel rules (`ChannelNamingRules.appSyncEvents`): 1–5 segments of 1–50 characters `[A-Za-z0-9-]`, not starting or
/// ending with `-`; optional leading and trailing `/`; the first segment is a namespace; a
/// subscription may end in `*`, which matches every channel below the prefix (not the prefix itself).
struct ChannelPath: Hashable, Sendable {
    let segments: [String]
    let isWildcard: Bool

    enum Invalid: Error, Equatable {
        case syntax
        case unknownNamespace(String)
    }

    init(_ text: String, allowWildcard: Bool, namespaces: Set<String>) throws(Invalid) {
        guard Self.rules.isValidPath(text, allowingWildcard: allowWildcard) else { throw .syntax }
        var body = Substring(text)
        if body.hasPrefix("/") { body = body.dropFirst() }
        if body.hasSuffix("/") { body = body.dropLast() }
        var parts = body.split(separator: "/").map(String.init)
        let wildcard = parts.last == "*"
        if wildcard { parts.removeLast() }
        guard namespaces.contains(parts[0]) else { throw .unknownNamespace(parts[0]) }
        segments = parts
        isWildcard = wildcard
    }

    static let rules = ChannelNamingRules.appSyncEvents

    /// Whether a subscription to `self` receives events published to `channel`.
    func matches(_ channel: ChannelPath) -> Bool {
        if isWildcard {
            return channel.segments.count > segments.count && Array(channel.segments.prefix(segments.count)) == segments
        }
        return channel.segments == segments
    }

    /// The `{userId}` of a `…/user/{userId}/…` path (`*` when a wildcard stands there), if any.
    var userSegment: String? {
        guard let index = segments.firstIndex(of: "user") else { return nil }
        return index + 1 < segments.count ? segments[index + 1] : (isWildcard ? "*" : nil)
    }
}
#endif
