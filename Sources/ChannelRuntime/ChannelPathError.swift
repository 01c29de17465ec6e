import ChannelNaming

/// A channel path the connection's transport cannot carry, found before anything is sent.
///
/// Generated code checks each parameter by the rules of the transport its spec targets; a
/// connection checks the whole path again by its own rules, so a client generated for one transport
/// and run on another (or a hand-written path) fails here with the reason, not at the server.
public struct ChannelPathError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The path that was refused.
    public let channel: String
    /// The transport whose rules refused it ("AppSync Events").
    public let transportName: String
    /// What is wrong with it.
    public let problem: PathProblem
    /// The segment rules' allowed characters, for the message.
    private let allowedCharacters: String
    private let maximumSegments: Int
    private let maximumSegmentLength: Int

    /// Checks `channel` by `rules`; `allowingWildcard` for a subscription (a last segment of `*`).
    /// Generated subscriptions of channels whose address the spec leaves open check their path with it.
    @_spi(Generated) public static func check(_ channel: String, rules: ChannelNamingRules, allowingWildcard: Bool) throws(ChannelPathError) {
        guard let problem = rules.problem(inPath: channel, allowingWildcard: allowingWildcard) else { return }
        throw ChannelPathError(
            channel: channel, transportName: rules.transportName, problem: problem, allowedCharacters: rules.allowedCharacters,
            maximumSegments: rules.maximumSegments, maximumSegmentLength: rules.maximumSegmentLength)
    }

    /// What is wrong, and what the transport allows.
    public var description: String {
        let reason: String
        switch problem {
        case .noSegments:
            reason = "it has no segments"
        case .segmentCount(let count):
            reason = "it has \(count) segments; at most \(maximumSegments) are allowed"
        case .segment(let position, .empty):
            reason = "segment \(position) is empty"
        case .segment(let position, .tooLong(let length)):
            reason = "segment \(position) is \(length) characters long; at most \(maximumSegmentLength) are allowed"
        case .segment(let position, .invalidCharacter(let scalar)):
            reason = "segment \(position) contains \(shownInMessage(scalar)); only \(allowedCharacters) are allowed"
        case .segment(let position, .edgeHyphen):
            reason = "segment \(position) starts or ends with '-'"
        }
        return "channel '\(Self.printable(channel))' cannot be used on \(transportName): \(reason)"
    }

    /// The path as a log line can hold it: control characters escaped, at most 200 characters.
    private static func printable(_ channel: String) -> String {
        let shown = channel.unicodeScalars.prefix(200).map { $0.properties.generalCategory == .control ? $0.escaped(asASCII: true) : String($0) }.joined()
        return channel.unicodeScalars.count > 200 ? shown + "…" : shown
    }
}
