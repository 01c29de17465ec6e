import ChannelSpec

/// Pass 3: every type's name at its depth, and the types to declare as they nest. A nested type
/// never shadows a type visible where it is declared, so a path from the top level (`Outer.Inner`)
/// always means what it says; nor does it take a name of its enclosing type's members (pass 2):
/// `日付` and `_1abc` read the same as a property and as a type.
struct TypeNaming: Sendable {
    /// Every type's name, by type id.
    private(set) var types: [String: SwiftNaming.TypeName]
    /// Type id → the parts a wide object keeps its properties in (see `WideObjects`).
    private(set) var wideParts: [String: [WidePart]] = [:]
    /// The types to declare: the top-level ones in `api.types` order, each with its nested ones.
    private(set) var declarations: [SwiftNaming.TypeDeclarationNames] = []
    /// Every type name the generated module declares, at any depth.
    let declaredTypeNames: Set<String>

    init(api: ChannelAPI, topLevel: TopLevelNames, members: MemberNaming, diagnostics: inout Diagnostics) {
        types = topLevel.types
        // Parents come before their children in `api.types`, so each parent is named when its
        // children are.
        let children = Dictionary(grouping: api.types.filter { $0.parent != nil }, by: { $0.parent! })
        // The names visible inside a type: the top level's, then each enclosing type's nested names.
        var visibleInside: [String: [Set<String>]] = [:]
        // The standard types reserved at the top level are not declared there: a nested type may
        // take their names (`Payload.String`), which the generated code qualifies (`Swift.String`).
        let topLevelNames = [topLevel.taken.subtracting(SwiftNaming.standardTypeNames.flatMap(\.names))]
        for type in api.types {
            guard let parent = types[type.id] else { continue }
            let visible = visibleInside[type.id] ?? topLevelNames
            let nested = children[type.id] ?? []
            let parts = members.partStorage[type.id] ?? []
            guard !nested.isEmpty || !parts.isEmpty else { continue }
            var scope = Scope(what: "nested type", visible: visible, visibleDescription: "a type visible in '\(parent.local.name)'")
            scope.reserve(parent.local.name, "its enclosing type")
            for property in members.properties[type.id] ?? [] { scope.reserve(property.name, "a property of '\(parent.local.name)'") }
            if case .union = type.kind {
                for name in members.cases[type.id] ?? [] { scope.reserve(name.name, "a case of '\(parent.local.name)'") }
            }
            scope.reserve("CodingKeys", "the coding keys the generator declares")
            let names = scope.claim(nested.map(SwiftNaming.candidate), &diagnostics)
            // A wide object's part types, after the spec's nested types: they never shadow a name
            // its properties' types are written with.
            let partTypes = scope.claim(parts.indices.map { index in
                .init("Part\(index)", explicit: false, location: type.origin.location, isInternal: true)
            }, &diagnostics)
            if !parts.isEmpty {
                wideParts[type.id] = zip(zip(parts, partTypes), WideObjects.partRanges(propertyCount: members.properties[type.id]?.count ?? 0)).map {
                    WidePart(storage: $0.0, type: Identifier($0.1), properties: $1)
                }
            }
            let siblings = Set(names + partTypes)
            for (child, name) in zip(nested, names) {
                types[child.id] = SwiftNaming.TypeName(local: Identifier(name), path: parent.path + [Identifier(name)])
                visibleInside[child.id] = visible + [siblings]
            }
        }
        declaredTypeNames = Set(types.values.map(\.local.name) + topLevel.subscriptions.map(\.name) + [
            topLevel.notifier.name, topLevel.notifierProtocol.name, topLevel.mockType.name, topLevel.channelsNamespace.name, "CodingKeys",
        ])
        // Every type with its name, nested as declared: a type is named with its parent's scope
        // above, and every parent is in `api.types`, so no type is left out here.
        let types = self.types
        func declaration(_ type: NamedType) -> SwiftNaming.TypeDeclarationNames? {
            types[type.id].map { name in
                SwiftNaming.TypeDeclarationNames(type: type, name: name, nested: (children[type.id] ?? []).compactMap(declaration))
            }
        }
        declarations = api.types.filter { $0.parent == nil }.compactMap(declaration)
    }
}
