import ChannelSpec

/// Pass 2: each type's members — properties (and the storage of boxed ones and of a wide object's
/// parts), enum and union cases — each type a scope of its own, so a large API names them on all
/// cores; the results are kept in `api.types` order, and so are their diagnostics.
struct MemberNaming: Sendable {
    /// Type id → Swift names of its properties, in order.
    private(set) var properties: [String: [Identifier]] = [:]
    /// Type id → Swift case names of its values or variants, in order.
    private(set) var cases: [String: [Identifier]] = [:]
    /// Type id → property index → the stored property holding a boxed property's value.
    private(set) var boxStorage: [String: [Int: Identifier]] = [:]
    /// Type id → a wide object's stored parts (see `WideObjects`).
    private(set) var partStorage: [String: [Identifier]] = [:]

    init(api: ChannelAPI, recursion: Recursion, diagnostics: inout Diagnostics) {
        let boxed = recursion.boxedProperties
        let memberNames: @Sendable (NamedType) -> MemberNames = { Self.names(of: $0, boxed: boxed[$0.id]) }
        let allMemberNames = Generator.isLarge(api) ? api.types.concurrentMap(memberNames) : api.types.map(memberNames)
        for (type, names) in zip(api.types, allMemberNames) {
            if let names = names.properties { properties[type.id] = names }
            if let storage = names.boxStorage { boxStorage[type.id] = storage }
            if let storage = names.partStorage { partStorage[type.id] = storage }
            if let names = names.cases { cases[type.id] = names }
            diagnostics.append(contentsOf: names.diagnostics.all)
        }
    }

    /// The Swift names of one type's members: properties (and boxed storage), enum or union cases.
    struct MemberNames: Sendable {
        var properties: [Identifier]?
        var boxStorage: [Int: Identifier]?
        /// A wide object's stored parts (see `WideObjects`).
        var partStorage: [Identifier]?
        var cases: [Identifier]?
        var diagnostics = Diagnostics()
    }

    static func names(of type: NamedType, boxed: Set<Int>?) -> MemberNames {
        var result = MemberNames()
        switch type.kind {
        case .object(let members), .composition(let members):
            var scope = Scope(what: "property")
            scope.reserve("hashValue", "Hashable's hash value")
            if type.extraProperties != nil { scope.reserve("additionalProperties", "the properties the schema does not name") }
            let names = scope.claim(members.map { member in
                .init(SwiftIdentifiers.lowerCamel(member.swiftName ?? member.jsonName), explicit: member.swiftName != nil,
                      location: member.origin.location, original: member.swiftName ?? member.jsonName)
            }, &result.diagnostics)
            result.properties = names.map(Identifier.init)
            if let boxed = boxed?.sorted() {
                let storage = scope.claim(boxed.map { index in
                    .init("_" + names[index], explicit: false, location: members[index].origin.location,
                          original: members[index].jsonName, what: "boxed property storage")
                }, &result.diagnostics)
                result.boxStorage = Dictionary(uniqueKeysWithValues: zip(boxed, storage.map(Identifier.init)))
            }
            if WideObjects.isWide(type, boxed: boxed) {
                result.partStorage = scope.claim(WideObjects.partRanges(propertyCount: members.count).indices.map { index in
                    .init("part\(index)", explicit: false, location: type.origin.location, isInternal: true)
                }, &result.diagnostics).map(Identifier.init)
            }
        case .stringEnum(let values):
            var scope = Scope(what: "enum case", hint: "the value on the wire is unchanged")
            scope.reserve("unknown", "the case for values this client does not know")
            for name in ["knownCases", "byRawValue", "rawValue", "hashValue"] { scope.reserve(name, "a member the generator declares") }
            result.cases = scope.claim(values.map { value in
                .init(SwiftIdentifiers.lowerCamel(value.swiftName ?? value.value), explicit: value.swiftName != nil,
                      location: value.location, original: value.swiftName ?? value.value)
            }, &result.diagnostics).map(Identifier.init)
        case .union(let union):
            var scope = Scope(what: "union case")
            scope.reserve("unknown", "the case for variants this client does not know")
            scope.reserve("hashValue", "Hashable's hash value")
            result.cases = scope.claim(union.variants.map { variant in
                .init(SwiftIdentifiers.lowerCamel(variant.swiftName ?? variant.preferredName), explicit: variant.swiftName != nil,
                      location: variant.origin.location, original: variant.swiftName ?? variant.preferredName)
            }, &result.diagnostics).map(Identifier.init)
        }
        return result
    }
}
