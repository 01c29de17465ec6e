import ChannelSpec

/// `Channels.swift`: one `ChannelTemplate` constant per channel, plus `all`.
struct ChannelsStructure {
    let api: ChannelAPI
    let names: SwiftNaming
    let types: SwiftTypes
    let access: AccessModifier?

    func file(header: [String]) -> SwiftFile {
        let template = types.runtime("ChannelTemplate")
        var members = names.channelNames.channels.map { named in
            let channel = named.channel
            return Declaration(
                documentation: SwiftTypes.documentation(
                    channel.documentation,
                    notes: channel.address.isOpen ? ["Note: The spec leaves the address open: each subscription names its channel."] : [],
                    remark: channel.origin.reference),
                .variable(Variable(
                    access: access, isStatic: true, binding: .let, name: named.constant,
                    value: .code("\(template)(\(literal: channel.address.text))"))))
        }
        members.append(Declaration(
            documentation: DocComment(["Every channel, in spec order."]),
            .variable(Variable(
                access: access, isStatic: true, binding: .let, name: Identifier("all"), type: "[\(template)]",
                value: .array(names.channelNames.channels.map { .identifier($0.constant) })))))
        let namespace = Declaration(
            documentation: DocComment(["The channel addresses of \(api.displayName)."]),
            .type(TypeDeclaration(access: access, keyword: .enum, name: .identifier(names.channelsNamespace), members: members)))
        return SwiftFile(header: header, imports: [.runtime], declarations: [namespace])
    }
}
