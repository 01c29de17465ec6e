import ChannelSpec

/// One difference between two versions of a spec that matters to apps built on the older one,
/// judged twice because the two questions have different answers.
package struct SpecChange: Sendable, Hashable {
    package enum Verdict: String, Sendable, Hashable, Comparable {
        case breaking
        case compatible

        package static func < (lhs: Verdict, rhs: Verdict) -> Bool { lhs == .breaking && rhs == .compatible }
    }

    /// Can apps already shipped still decode (and subscribe to) what the server sends after the change?
    package var wire: Verdict
    /// Does app code written against the old generated Swift still compile?
    package var source: Verdict
    /// Where the change is in the new spec (a removed property: its type there; a removed channel:
    /// where it was in the old spec).
    package var location: SourceLocation?
    /// The generated Swift symbol it affects, e.g. `DevicePresenceOutput.online`.
    package var symbol: String
    /// One line: what changed and why the verdicts are what they are.
    package var reason: String

    package init(wire: Verdict, source: Verdict, location: SourceLocation?, symbol: String, reason: String) {
        self.wire = wire
        self.source = source
        self.location = location
        self.symbol = symbol
        self.reason = reason
    }

    /// Breaking in either sense.
    package var isBreaking: Bool { wire == .breaking || source == .breaking }
}
