import Foundation

/// A channel address with `{parameter}` placeholders, e.g.
/// `vortex-app/user/{userId}/device/presenceChanged`. The generator has checked the template
/// against the channel rules; values are checked by `ChannelSegment`.
public struct ChannelTemplate: Hashable, Sendable, CustomStringConvertible {
    /// The address as the spec writes it, with `{parameter}` placeholders.
    public let address: String
    /// Parameter names in address order.
    public let parameterNames: [String]

    /// A template for `address`; its parameter names are read from the `{…}` placeholders.
    public init(_ address: String) {
        self.address = address
        var names: [String] = []
        var rest = address[...]
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            names.append(String(rest[rest.index(after: open)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        self.parameterNames = names
    }

    /// The concrete channel for `parameters`; throws when one is missing. One pass over the
    /// address, so a value is never read again as a placeholder.
    public func channel(_ parameters: [String: ChannelSegment]) throws(ChannelParameterError) -> String {
        var result = ""
        var rest = address[...]
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            let name = String(rest[rest.index(after: open)..<close])
            guard let value = parameters[name] else { throw .missing(parameter: name, channel: address) }
            result += rest[..<open]
            result += value.value
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }

    /// The address with its placeholders.
    public var description: String { address }
}
