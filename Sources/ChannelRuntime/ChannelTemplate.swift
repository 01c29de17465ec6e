import Foundation

/// A channel address with `{parameter}` placeholders, e.g.
/// `vortex-app/user/{userId}/device/presenceChanged`. The generator has checked the template
/// against the channel rules; values are checked by `ChannelSegment`.
public struct ChannelTemplate: Hashable, Sendable, CustomStringConvertible {
    /// The address as the spec writes it, with `{parameter}` placeholders.
    public let address: String
    /// Parameter names in address order.
    public let parameterNames: [String]
    /// The address read once: its text between placeholders, and the placeholders' names.
    private let parts: [Part]

    private enum Part: Hashable, Sendable {
        case text(Substring)
        case parameter(String)
    }

    /// A template for `address`; its parameter names are read from the `{…}` placeholders.
    public init(_ address: String) {
        self.address = address
        var parts: [Part] = []
        var rest = address[...]
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            parts.append(.text(rest[..<open]))
            parts.append(.parameter(String(rest[rest.index(after: open)..<close])))
            rest = rest[rest.index(after: close)...]
        }
        parts.append(.text(rest))
        self.parts = parts
        self.parameterNames = parts.compactMap { if case .parameter(let name) = $0 { name } else { nil } }
    }

    /// The concrete channel for `parameters`; throws when one is missing. A value is never read
    /// again as a placeholder.
    public func channel(_ parameters: [String: ChannelSegment]) throws(ChannelParameterError) -> String {
        var result = ""
        for part in parts {
            switch part {
            case .text(let text): result += text
            case .parameter(let name):
                guard let value = parameters[name] else { throw .missing(parameter: name, channel: address) }
                result += value.value
            }
        }
        return result
    }

    /// The address with its placeholders.
    public var description: String { address }
}
