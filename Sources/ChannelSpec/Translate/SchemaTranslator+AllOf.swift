/// `allOf`: a value that satisfies every member schema.
///
/// - A lone schema plus annotations (`allOf: [{$ref: X}, {description: …}]`, the usual way to
///   document a reference) is that schema's type: the same Swift type, not a copy.
/// - Objects merge into one struct: the members' properties in order (a property declared again
///   by a later member takes the later declaration, at the first one's place, as a derived type
///   narrows its base), `required` is the union. The schema's own `properties` come last.
/// - Members of one primitive type are that type (`date-time` wins over a plain string).
/// - A union with other members is a struct of each member's value (see `composition`).
/// Anything else (an object with a string, two different primitives) has no single Swift type.
extension SchemaTranslator {
    /// Keys that only document a schema: a member made of them adds nothing to the type.
    static let annotationKeys: Set<String> = [
        "description", "title", "deprecated", "example", "examples", "default", "readOnly", "writeOnly",
        "externalDocs", "$comment", "nullable", "xml",
        // AsyncAPI's string discriminator names the property telling derived types apart; decoding
        // an object by its own properties does not need it.
        "discriminator",
    ]

    /// `constraintKeywords` as a set: a member made of them (and annotations) narrows, it adds no type.
    static let constraintKeywordSet = Set(constraintKeywords.map(\.key))

    /// One member of an `allOf`, with `$ref`s followed.
    private enum Part {
        /// Annotations only.
        case annotations
        /// An object schema: its shape, read where it is declared.
        case object(ObjectShape)
        /// Any other schema, as written in the `allOf` (a `$ref` keeps its component name).
        case other(Cursor)
    }

    mutating func composed(_ cursor: Cursor, allOf: Cursor, name: String, parent: String?, documentation: Documentation) -> TypeReference? {
        var visiting: Set<String> = [Self.id(of: cursor)]
        guard var parts = parts(of: allOf, visiting: &visiting) else { return nil }
        // The schema's own keywords beside `allOf` are one more member (already checked by the caller).
        var own = cursor
        own.node = YAMLNode(.mapping((cursor.node.entries ?? []).filter { $0.key != "allOf" && $0.key != "x-swift-name" }), at: cursor.node.location)
        guard let ownPart = part(own, checkingKeys: false) else { return nil }
        parts.append((ownPart, own))

        let typed = parts.filter { if case .annotations = $0.part { false } else { true } }
        if typed.isEmpty {
            return .json  // annotations only: nothing constrains the value
        }
        if typed.count == 1, typed[0].member.isReference {
            // A reference plus annotations: the referenced type itself.
            return type(of: typed[0].member, name: name, parent: parent)
        }
        guard keysAreDistinct(across: typed.map(\.part), in: name) else { return nil }
        var objects: [ObjectShape] = []
        var others: [Cursor] = []
        for (part, _) in typed {
            switch part {
            case .annotations: break
            case .object(let shape): objects.append(shape)
            case .other(let member): others.append(member)
            }
        }
        if others.contains(where: isUnion) {
            return composition(cursor, allOf: allOf, parts: typed, name: name, parent: parent, documentation: documentation)
        }
        if !objects.isEmpty {
            guard others.isEmpty else {
                diagnostics.unsupported(
                    "'allOf' in schema '\(name)' combines an object with a non-object schema; that has no single Swift type",
                    at: allOf.keyLocation ?? allOf.location)
                return nil
            }
            return makeObject(cursor, name: name, parent: parent, documentation: documentation, shape: merged(objects))
        }
        return primitive(of: others, allOf: allOf, name: name, parent: parent)
    }

    /// Whether no two keys the members declare differ only in Unicode normalization (`café` written
    /// two ways), in one member or in two. Every member decodes the same value, and `JSONDecoder`
    /// finds keys by Swift's string equality: the two would read one key, so a value valid for the
    /// schema fails the event (merged, one declaration would silently replace the other). A union
    /// member counts with its variants' keys.
    private mutating func keysAreDistinct(across parts: [Part], in name: String) -> Bool {
        // By Swift's `String ==`, as `JSONDecoder` looks keys up.
        var seen: [String: String] = [:]
        for part in parts {
            for (key, location) in declaredKeys(of: part) {
                if let earlier = seen[key], !earlier.unicodeScalars.elementsEqual(key.unicodeScalars) {
                    diagnostics.unsupported(
                        "properties '\(Self.spelledByScalars(earlier))' and '\(Self.spelledByScalars(key))' of the 'allOf' of '\(name)' differ only "
                            + "in Unicode normalization; JSONDecoder finds keys by Swift's string equality, so both would read one value (rename one)",
                        at: location)
                    return false
                }
                seen[key] = seen[key] ?? key
            }
        }
        return true
    }

    /// The property keys an `allOf` member declares: an object's own, a union's variants' (after
    /// `$ref`s), both for an object beside a union.
    private func declaredKeys(of part: Part) -> [(key: String, location: SourceLocation)] {
        switch part {
        case .annotations: return []
        case .object(let shape): return shape.properties.map { ($0.key, $0.keyLocation) }
        case .other(let member):
            let target = member.isReference ? (try? workspace.resolve(member)) ?? member : member
            let variants = (target.child("oneOf") ?? target.child("anyOf"))?.elements ?? []
            return ([target] + variants).flatMap { schema in
                let resolved = schema.isReference ? (try? workspace.resolve(schema)) ?? schema : schema
                return (resolved.child("properties")?.children ?? []).map { ($0.key, $0.keyLocation) }
            }
        }
    }

    /// Whether a member is a `oneOf`/`anyOf` (after following its `$ref`): it has no properties to merge.
    private func isUnion(_ member: Cursor) -> Bool {
        let target = member.isReference ? (try? workspace.resolve(member)) ?? member : member
        return target.node["oneOf"] != nil || target.node["anyOf"] != nil
    }

    /// A union with other members (`allOf: [{$ref: Pet}, {properties: …}]` where `Pet` is a `oneOf`):
    /// a struct holding each member's value, every one decoded from the whole value, as
    /// swift-openapi-generator does. The object members merge into one, at the first one's place;
    /// a lone referenced object keeps its component type.
    private mutating func composition(
        _ cursor: Cursor, allOf: Cursor, parts: [(part: Part, member: Cursor)], name: String, parent: String?, documentation: Documentation
    ) -> TypeReference? {
        // Reserve the slot first: a member may refer back to this type (a variant of its union).
        let id = Self.id(of: cursor)
        let index = types.count
        var documentation = documentation
        documentation.notes.append("Each `allOf` member decodes the whole value, in order (`value1`, `value2`, …); objects merge into one member")
        types.append(NamedType(
            id: id, preferredName: name, swiftName: cursor.node["x-swift-name"]?.string,
            kind: .composition([]), documentation: documentation,
            origin: Origin(location: cursor.declarationLocation, reference: workspace.displayReference(cursor)), parent: parent))
        typeIndex[id] = index

        let objectParts = parts.filter { if case .object = $0.part { true } else { false } }
        var members: [Property] = []
        var objectsAdded = false
        for (part, member) in parts {
            let position = members.count + 1
            let type: TypeReference?
            switch part {
            case .annotations:
                continue
            case .object where objectsAdded:
                continue
            case .object:
                objectsAdded = true
                if objectParts.count == 1, member.isReference {
                    type = self.type(of: member, name: "Value\(position)", parent: id)
                } else {
                    let shapes = objectParts.compactMap { if case .object(let shape) = $0.part { shape } else { nil } }
                    type = makeObject(allOf, name: "Value\(position)", parent: id, documentation: Documentation(), shape: merged(shapes))
                }
            case .other:
                type = self.type(of: member, name: "Value\(position)", parent: id)
            }
            guard let type else { return nil }
            members.append(Property(
                jsonName: "value\(position)", type: type, isOptional: false,
                documentation: Documentation(),
                origin: Origin(location: member.location, reference: workspace.displayReference(member))))
        }
        types[index].kind = .composition(members)
        return .named(id)
    }

    /// The members of `allOf`, flattening nested `allOf`s; each with the cursor it was written as.
    private mutating func parts(of allOf: Cursor, visiting: inout Set<String>) -> [(part: Part, member: Cursor)]? {
        guard let items = allOf.node.items, !items.isEmpty else {
            diagnostics.error("'allOf' must be a non-empty list of schemas, found \(allOf.node.kindDescription)", at: allOf.location)
            return nil
        }
        var result: [(part: Part, member: Cursor)] = []
        for member in allOf.elements {
            // JSON Schema's boolean schemas: `true` allows anything (it adds nothing), `false` nothing.
            if let allowsAnything = member.node.scalar?.bool {
                if allowsAnything { continue }
                diagnostics.unsupported("an 'allOf' member is 'false': no value is valid, so there is nothing to decode", at: member.location)
                return nil
            }
            guard member.node.entries != nil else {
                diagnostics.error("an 'allOf' member must be a schema mapping, found \(member.node.kindDescription)", at: member.location)
                return nil
            }
            var target = member
            if member.isReference {
                do {
                    target = try workspace.resolve(member)
                } catch {
                    diagnostics.append(contentsOf: error.diagnostics)
                    return nil
                }
            }
            if let nested = target.child("allOf") {
                // Flatten: a member that is itself a composition contributes its members.
                let id = Self.id(of: target)
                // The flattening recurses once per level: bounded as `type(of:)` is.
                guard visiting.count < Self.maximumDepth else {
                    diagnostics.error(
                        "'allOf' of schema '\(JSONPointer.lastToken(target.pointer) ?? "?")' is nested more than \(Self.maximumDepth) levels deep",
                        at: member.location)
                    return nil
                }
                guard visiting.insert(id).inserted else {
                    diagnostics.unsupported("'allOf' of schema '\(JSONPointer.lastToken(target.pointer) ?? "?")' includes itself", at: member.location)
                    return nil
                }
                // Its own keywords beside `allOf` are one more member. Annotations, or an object
                // (`type: object` and `properties`, as a type extending its base writes them):
                // `allOf` is a conjunction, so its members join this one's.
                var own = target
                own.node = YAMLNode(.mapping((target.node.entries ?? []).filter { $0.key != "allOf" && $0.key != "x-swift-name" }), at: target.node.location)
                guard let ownPart = part(own, checkingKeys: true) else { return nil }
                if case .other = ownPart {
                    // Anything else (a union beside its `allOf`): translated whole as one member.
                    result.append((.other(member), member))
                    continue
                }
                guard let inner = parts(of: nested, visiting: &visiting) else { return nil }
                result += inner
                if case .object = ownPart { result.append((ownPart, own)) }
                continue
            }
            guard let part = part(target, checkingKeys: true) else { return nil }
            if case .other = part { result.append((.other(member), member)) } else { result.append((part, member)) }
        }
        return result
    }

    /// What one (resolved) member contributes.
    private mutating func part(_ target: Cursor, checkingKeys: Bool) -> Part? {
        let keys = Set((target.node.entries ?? []).map(\.key)).filter { !$0.hasPrefix("x-") && !Self.constraintKeywordSet.contains($0) }
        if keys.isSubset(of: Self.annotationKeys) { return .annotations }
        let declaredType = target.node["type"]?.string
        let isObject = declaredType == "object"
            || (declaredType == nil && (target.node["properties"] != nil || target.node["required"] != nil))
        // An object beside a union is no plain object: merging only its properties would drop the
        // union, and every value its variants read. Translated whole, it is a member of its own.
        guard isObject, target.node["oneOf"] == nil, target.node["anyOf"] == nil else { return .other(target) }
        if checkingKeys {
            let reported = diagnostics.all.count
            KeyRules.schema.check(target, named: "'\(JSONPointer.lastToken(target.pointer) ?? "allOf member")'", into: &diagnostics)
            if diagnostics.all[reported...].contains(where: { $0.severity == .error }) { return nil }
        }
        guard var shape = objectShape(target) else { return nil }
        shape.extras = target.child("additionalProperties")
        return .object(shape)
    }

    /// Objects merged: properties in first-declared order, a later declaration replacing an earlier one.
    private func merged(_ shapes: [ObjectShape]) -> ObjectShape {
        var result = ObjectShape()
        var positions: [String: Int] = [:]
        for shape in shapes {
            for property in shape.properties {
                if let position = positions[property.key] {
                    result.properties[position] = property
                } else {
                    positions[property.key] = result.properties.count
                    result.properties.append(property)
                }
            }
            result.required += shape.required
            // The last member that says anything about other properties decides.
            if let extras = shape.extras { result.extras = extras }
        }
        return result
    }

    /// Several non-object members: one type when they all are one primitive.
    private mutating func primitive(of members: [Cursor], allOf: Cursor, name: String, parent: String?) -> TypeReference? {
        if let narrowed = stringEnumNarrowing(members) {
            return narrowedEnum(narrowed, members: members, allOf: allOf, name: name, parent: parent)
        }
        var found: [TypeReference] = []
        for member in members {
            guard let type = type(of: member, name: name, parent: parent) else { return nil }
            if !found.contains(type) { found.append(type) }
        }
        if found.count == 1 { return found[0] }
        if Set(found) == [.string, .dateTime] { return .dateTime }  // a string that is also a date-time
        diagnostics.unsupported(
            "'allOf' in schema '\(name)' requires values of different types at once; that has no single Swift type",
            at: allOf.keyLocation ?? allOf.location)
        return nil
    }

    /// String members of an `allOf`, at least one an enum (`allOf: [{$ref: Mode}, {enum: [hide, none]}]`,
    /// a base's values narrowed): the values every member admits, in the first enum's order, and
    /// the members whose enum lists exactly those. `nil` when a member is no string schema.
    private func stringEnumNarrowing(_ members: [Cursor]) -> (values: [YAMLNode], exact: [Cursor])? {
        var enums: [(member: Cursor, values: [YAMLNode])] = []
        for member in members {
            let target = member.isReference ? (try? workspace.resolve(member)) ?? member : member
            let type = target.node["type"]?.string
            if let values = target.node["enum"]?.items {
                let texts = values.filter { $0.scalar?.isNull != true }
                guard type == nil || type == "string", texts.allSatisfy({ $0.isJSONString }) else { return nil }
                enums.append((member, texts))
            } else {
                // A plain string narrows nothing; a date-time or any other keyword with a type of its own does.
                let keys = Set((target.node.entries ?? []).map(\.key)).subtracting(Self.annotationKeys).filter { !$0.hasPrefix("x-") }
                guard type == "string", keys.isSubset(of: ["type", "pattern", "minLength", "maxLength"]) else { return nil }
            }
        }
        guard let first = enums.first else { return nil }
        let admitted = enums.dropFirst().map { Set($0.values.compactMap(\.scalar?.text)) }
        let values = first.values.filter { value in admitted.allSatisfy { $0.contains(value.scalar?.text ?? "") } }
        let texts = Set(values.compactMap(\.scalar?.text))
        let exact = enums.filter { Set($0.values.compactMap(\.scalar?.text)) == texts }.map(\.member)
        return (values, exact)
    }

    /// The enum of the values every member admits: a member's own type when its enum is exactly
    /// that (a referenced one first, so a component keeps its name), else a new enum named for the schema.
    private mutating func narrowedEnum(
        _ narrowing: (values: [YAMLNode], exact: [Cursor]), members: [Cursor], allOf: Cursor, name: String, parent: String?
    ) -> TypeReference? {
        guard !narrowing.values.isEmpty else {
            diagnostics.unsupported(
                "'allOf' in schema '\(name)' admits no value: its members' enums have no value in common",
                at: allOf.keyLocation ?? allOf.location)
            return nil
        }
        if let member = narrowing.exact.first(where: \.isReference) ?? narrowing.exact.first {
            return type(of: member, name: name, parent: parent)
        }
        // The values every member admits, as an enum schema of its own at the `allOf`'s place.
        var narrowed = allOf
        let location = allOf.node.location
        narrowed.node = YAMLNode(.mapping([
            YAMLNode.Entry(key: "type", keyLocation: location, value: YAMLNode(.scalar(YAMLScalar(text: "string", isPlain: false)), at: location)),
            YAMLNode.Entry(key: "enum", keyLocation: location, value: YAMLNode(.sequence(narrowing.values), at: location)),
        ]), at: location)
        return type(of: narrowed, name: name, parent: parent)
    }
}
