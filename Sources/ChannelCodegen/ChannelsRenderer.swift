import ChannelSpec

/// `Channels.swift`: one `ChannelTemplate` constant per channel, plus `all`.
struct ChannelsRenderer {
    let api: ChannelAPI
    let names: SwiftNaming
    let access: String

    func render(header: String) -> String {
        var writer = SwiftWriter(header: header)
        writer.line("import ChannelRuntime")
        writer.line()
        writer.line("/// The channel addresses of \(api.title) \(api.version).")
        writer.block("\(access)enum \(names.channelsNamespace)") { writer in
            for channel in api.channels {
                writer.documentation(channel.documentation, remark: channel.origin.reference)
                writer.line("\(access)static let \(SwiftIdentifiers.escaped(names.channelConstants[channel.key]!)) = ChannelTemplate(\(channel.address.text.swiftLiteral))")
                writer.line()
            }
            writer.line("/// Every channel, in spec order.")
            let list = api.channels.map { SwiftIdentifiers.escaped(names.channelConstants[$0.key]!) }
            if list.isEmpty {
                writer.line("\(access)static let all: [ChannelTemplate] = []")
            } else {
                writer.line("\(access)static let all: [ChannelTemplate] = [")
                for (index, name) in list.enumerated() {
                    writer.line("    \(name)\(index == list.count - 1 ? "" : ",")")
                }
                writer.line("]")
            }
        }
        return writer.text
    }
}
