import ChannelNaming

/// One validated channel segment, such as a user id placed into
/// `vortex-app/user/{userId}/…`, checked by the rules of the transport the channel is for.
/// AppSync Events (the default) allows 1–50 characters of `A–Z a–z 0–9 -` per segment, with no
/// leading or trailing `-`; Server-Sent Events topics allow 1–255 printable ASCII characters but
/// `/`, `*`, `{`, `}`, `#`, quotes, spaces and a few more. Validating before a value becomes part
/// of a channel path stops one user from naming another's channels (`a/b`, `*`, …).
public struct ChannelSegment: Hashable, Sendable, CustomStringConvertible {
    /// The rules values are checked against by default (AppSync Events).
    public static let rules = ChannelNamingRules.appSyncEvents
    /// The longest segment AppSync Events accepts, in characters (all ASCII).
    public static let maximumLength = rules.maximumSegmentLength

    /// The validated text.
    public let value: String

    /// Validates `value` as one channel segment.
    ///
    /// - Parameters:
    ///   - value: the text that becomes one segment of a channel path.
    ///   - parameter: the spec's parameter name, used in the error.
    ///   - rules: the channel rules of the transport (generated code passes those its spec targets).
    public init(_ value: String, parameter: String = "segment", rules: ChannelNamingRules = Self.rules) throws(ChannelParameterError) {
        switch rules.problem(inSegment: value) {
        case nil: break
        case .empty: throw .empty(parameter: parameter)
        case .tooLong(let length): throw .tooLong(parameter: parameter, length: length, maximum: rules.maximumSegmentLength)
        case .invalidCharacter(let scalar):
            throw .invalidCharacter(parameter: parameter, character: Character(scalar), allowed: rules.allowedCharacters)
        case .edgeHyphen: throw .edgeHyphen(parameter: parameter)
        }
        self.value = value
    }

    /// The validated text, as it appears in a channel path.
    public var description: String { value }
}

/// Why a value cannot be used as a channel parameter. The value itself is not repeated: it may
/// be something the app would rather not log.
public enum ChannelParameterError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The value is empty.
    case empty(parameter: String)
    /// The value is longer than the transport allows (AppSync Events: ``ChannelSegment/maximumLength``).
    case tooLong(parameter: String, length: Int, maximum: Int = ChannelSegment.maximumLength)
    /// The value holds a character the transport does not allow (AppSync Events: outside
    /// `A–Z a–z 0–9 -`, such as `/` or `*`); `allowed` says which it does.
    case invalidCharacter(parameter: String, character: Character, allowed: String = ChannelSegment.rules.allowedCharacters)
    /// The value starts or ends with `-`.
    case edgeHyphen(parameter: String)
    /// No value was set for a parameter the channel needs.
    case missing(parameter: String, channel: String)

    /// What is wrong, naming the parameter but not the value.
    public var description: String {
        switch self {
        case .empty(let parameter):
            return "channel parameter '\(parameter)' is empty"
        case .tooLong(let parameter, let length, let maximum):
            return "channel parameter '\(parameter)' is \(length) characters long; at most \(maximum) are allowed"
        case .invalidCharacter(let parameter, let character, let allowed):
            let shown = character.unicodeScalars.first.map(shownInMessage) ?? "?"
            return "channel parameter '\(parameter)' contains \(shown); only \(allowed) are allowed"
        case .edgeHyphen(let parameter):
            return "channel parameter '\(parameter)' starts or ends with '-'"
        case .missing(let parameter, let channel):
            return "no value for parameter '\(parameter)' of channel '\(channel)'"
        }
    }
}

/// A character as an error message shows it: printable ASCII quoted, anything else as `U+…`, so a
/// message never carries a control character or a look-alike.
func shownInMessage(_ scalar: Unicode.Scalar) -> String {
    scalar.isASCII && scalar.value > 0x20 && scalar.value < 0x7F ? "'\(scalar)'" : "U+" + String(scalar.value, radix: 16, uppercase: true)
}
