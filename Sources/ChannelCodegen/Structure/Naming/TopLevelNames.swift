import ChannelSpec

/// Pass 1: the module's top-level scope. The notifier and its companions, then every channel's
/// subscription type (before the types: a channel's API keeps its name when a schema shares it),
/// then the top-level types, in one scope where the names the generated code and an app's own code
/// rely on are reserved.
struct TopLevelNames: Sendable {
    let notifier: Identifier
    let notifierProtocol: Identifier
    let mockType: Identifier
    let channelsNamespace = Identifier("Channels")
    /// Each channel's subscription type, in `api.channels` order.
    let subscriptions: [Identifier]
    /// Each top-level type's name, by type id.
    let types: [String: SwiftNaming.TypeName]
    /// Every name the scope holds, reserved or claimed: nested types must not shadow them.
    let taken: Set<String>

    init(api: ChannelAPI, config: GeneratorConfig, diagnostics: inout Diagnostics) {
        let rootLocation = api.channels.first?.origin.location
            ?? api.types.first?.origin.location ?? SourceLocation(file: api.files.first ?? "", line: 1, column: 1)
        let notifierName = config.notifierName.map(SwiftNaming.typeName) ?? api.notifierName.map(SwiftNaming.typeName)
            ?? SwiftIdentifiers.upperCamel(api.title) + "Notifier"
        var scope = Scope(what: "type")
        scope.reserve(channelsNamespace.name, "the channel constants")
        for (name, description) in SwiftNaming.reservedTopLevel { scope.reserve(name, description) }
        for (module, names) in SwiftNaming.standardTypeNames {
            for name in names { scope.reserve(name, "\(module)'s '\(name)', which the app's own code in this module would no longer see") }
        }
        // Not the client module's name: the mocks must name every type as the client run did, and
        // that run does not know it. A type named like its module still compiles in the mocks,
        // which refer to it unqualified.
        let notifierCandidate = Scope.Candidate(notifierName, explicit: false, location: rootLocation, what: "notifier type")
        notifier = Identifier(scope.claim([notifierCandidate], &diagnostics)[0])
        notifierProtocol = Identifier(notifier.name + "Protocol")
        mockType = Identifier("Mock" + notifier.name)
        scope.reserve(notifierProtocol.name, "the notifier protocol")
        scope.reserve(mockType.name, "the mock notifier")

        subscriptions = scope.claim(api.channels.map { channel in
            .init(SwiftIdentifiers.upperCamel(channel.swiftName ?? channel.key) + "Subscription",
                  explicit: channel.swiftName != nil, location: channel.origin.location, what: "subscription type")
        }, &diagnostics).map(Identifier.init)

        let topLevelTypes = api.types.filter { $0.parent == nil }
        var types: [String: SwiftNaming.TypeName] = [:]
        for (type, name) in zip(topLevelTypes, scope.claim(topLevelTypes.map(SwiftNaming.candidate), &diagnostics)) {
            types[type.id] = SwiftNaming.TypeName(local: Identifier(name), path: [Identifier(name)])
        }
        self.types = types
        taken = scope.names
    }
}
