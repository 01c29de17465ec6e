import ChannelSpec

/// `Decoders.swift`: a `JSONReadable` conformance per model, the runtime's fast path for payloads.
///
/// Each reads the object's keys in one pass straight from the UTF-8 bytes with the rules the
/// `Codable` conformance follows (optional properties: absent or `null` is `nil`; unknown keys
/// skipped, or kept in `additionalProperties`; open enums keep unknown values; unions told apart by
/// a property or by trying each variant; an `allOf` with a union read once per member), and declines
/// anything else, which the runtime then decodes with `JSONDecoder` (see `JSONReadable`). Models
/// keep their `Codable` conformance.
struct DecodersStructure {
    let api: ChannelAPI
    let names: SwiftNaming
    let types: SwiftTypes
    let access: AccessModifier?

    func file(header: [String]) -> SwiftFile {
        // Reviewers read the models; this file repeats them for speed (tests check both decode alike).
        let note = ["Fast decoders for the models in Models.swift, property by property: review the models."]
        return SwiftFile(header: header + note, imports: [.runtimeForGeneratedCode], declarations: api.types.map(conformance))
    }

    private func conformance(_ type: NamedType) -> Declaration {
        let body: [Statement]
        switch type.kind {
        case .object(let properties):
            body = objectReader(type, properties: properties)
        case .stringEnum:
            body = [.code("self.init(rawValue: try json.readString())")]
        case .composition:
            body = compositionReader(type)
        case .union(let union):
            body = unionReader(type, union: union)
        }
        let reader = Function(
            access: access, name: .initializer,
            parameters: [Parameter(label: Identifier("reading"), localName: Identifier("json"), type: "inout \(types.runtime("JSONReader"))")],
            effects: "throws(\(types.runtime("JSONReadError")))",
            body: body)
        return Declaration(spi: types.spi(for: access), .type(TypeDeclaration(
            keyword: .extension, name: names.qualifiedName(ofType: type.id), conformances: [types.runtime("JSONReadable")],
            members: [Declaration(.function(reader))])))
    }

    /// An `allOf` with a union reads as its `Codable` conformance does (`ModelsStructure`'s
    /// `compositionCoding`): each member reads the whole value, read ahead from its start, and the
    /// reader moves past the value once. A member that can lead back to the composition at the
    /// same place (guarded there against endless recursion) declines.
    private func compositionReader(_ type: NamedType) -> [Statement] {
        guard (names.recursion.guardedMembers[type.id] ?? []).isEmpty else {
            return [.code("throw json.declined(\"an allOf that can contain itself at the same place decodes through JSONDecoder\")")]
        }
        return [
            .code("let value = json"),
            .code("try json.skipValue()"),
            .call("self.init", arguments: (names.properties[type.id] ?? []).map { "\($0): try value.readAhead()" }),
        ]
    }

    /// A union reads as its `Codable` conformance does (`ModelsStructure.unionMembers`).
    ///
    /// Told apart by a property: that property read ahead, then the whole value as the variant it
    /// names; a value that is not an object, or whose property is missing, `null`, not a string or
    /// names no variant, is the unknown case.
    ///
    /// Decoded by trying each variant: each in order, skipping those the value certainly is not
    /// (`JSONReader.readVariant`: another JSON kind, or a required key missing), so the variant read
    /// is the one `JSONDecoder` picks; a value no variant takes is the unknown case. A variant that
    /// might or might not take the value declines the whole union.
    private func unionReader(_ type: NamedType, union: Union) -> [Statement] {
        let cases = Array(zip(union.variants, names.cases[type.id] ?? []))
        guard case .property(let property) = union.decoding else {
            return [.ifChain(cases.map { variant, name in
                ("let variant = try json.readVariant(Self.\(name), kind: \(jsonKind(of: variant.type)))", [.code("self = variant")])
            }, else: [.code("self = .unknown(try json.read())")])]
        }
        guard cases.allSatisfy({ if case .named = $0.0.type { true } else { false } }) else {
            return [.code("throw json.declined(\"a union whose variants are not all named types decodes through JSONDecoder\")")]
        }
        let tagged = cases.filter { !$0.0.tags.isEmpty }.map { variant, name in
            SwitchCase(
                pattern: .joined(variant.tags.map { "\(literal: $0)?" }, separator: ", "),
                body: [.code("self = .\(name)(try json.read())")])
        }
        return [.switch(
            "try json.peekString(forKey: \(literal: property))",
            tagged + [SwitchCase(pattern: nil, body: [.code("self = .unknown(try json.read())")])])]
    }

    /// The JSON kind a value of `type` is read from, as a `JSONKind` literal; `nil` when it may be
    /// several (any JSON, a union, an `allOf`) or when `JSONDecoder` might take any kind (a struct
    /// without properties need not look into its value at all).
    private func jsonKind(of type: TypeReference) -> Code {
        switch type {
        case .string, .dateTime: ".string"
        case .integer, .number: ".number"
        case .boolean: ".bool"
        case .array: ".array"
        case .dictionary: ".object"
        case .json: "nil"
        case .named(let id):
            switch types.namedTypes[id]?.kind {
            case .object(let properties) where !properties.isEmpty: ".object"
            case .stringEnum: ".string"
            default: "nil"
            }
        }
    }

    private func objectReader(_ type: NamedType, properties: [Property]) -> [Statement] {
        let members = Array(zip(properties, names.properties[type.id] ?? []))
        guard !members.isEmpty || type.extraProperties != nil else {
            return [
                .code("try json.readObject { json, _ throws(\(types.runtime("JSONReadError"))) in try json.skipValue() }"),
                .code("self.init()"),
            ]
        }
        // One field per property, named after it; `json`, `key`, `model` and `member` are taken.
        // A field takes the property's type from the property itself, so no type is named here:
        // lookup of a spec type's name could differ between this extension and the model's body.
        var taken: Set<String> = ["json", "key", "model", "member"]
        let fields = members.map { _, name -> Identifier in
            var candidate = name.name == "self" ? "self_" : name.name
            var suffix = 2
            while taken.contains(candidate) {
                candidate = name.name + "Field" + (suffix == 2 ? "" : String(suffix))
                suffix += 1
            }
            taken.insert(candidate)
            return Identifier(candidate)
        }
        var statements = zip(members, fields).map { member, field in
            Statement.code("var \(field) = \(types.runtime("JSONField")) { (model: Self) in model.\(member.1) }")
        }
        let cases = zip(members, fields).map { member, field in
            SwitchCase(
                pattern: .literal(member.0.jsonName),
                body: [.code("try \(field).\(member.0.isOptional ? "readIfPresent" : "read")(from: &json)")])
        }
        // Keys the schema does not name are skipped, or kept as the `Codable` conformance keeps
        // them (`additionalProperties`, each value read as the schema's type).
        var otherKey: [Statement] = [.code("try json.skipValue()")]
        var extras: Identifier?
        if type.extraProperties != nil {
            var candidate = "others", suffix = 2
            while taken.contains(candidate) {
                candidate = "others\(suffix)"
                suffix += 1
            }
            let field = Identifier(candidate)
            extras = field
            statements.append(.code("var \(field) = \(types.runtime("JSONExtraProperties")) { (model: Self) in model.additionalProperties }"))
            otherKey = [.code("try \(field).read(key, from: &json)")]
        }
        // A local function, not a closure: the compiler checks a closure's body together with the
        // call it is passed to, which does not scale to wide objects (Benchmarks/README.md).
        statements.append(.block(
            "func member(_ json: inout \(types.runtime("JSONReader")), _ key: \(types.string)) throws(\(types.runtime("JSONReadError")))",
            [.switch("key", cases + [SwitchCase(pattern: nil, body: otherKey)])]))
        statements.append(.code("try json.readObject(member)"))
        var arguments = zip(members, fields).map { member, field -> Code in
            member.0.isOptional
                ? "\(member.1): \(field).value ?? nil"
                : "\(member.1): try \(field).required(\(literal: member.0.jsonName), in: json)"
        }
        if let extras { arguments.append("additionalProperties: \(extras).values") }
        statements.append(.call("self.init", arguments: arguments))
        return statements
    }
}
