/// `oneOf` / `anyOf`: a value of one of several types, an open Swift enum (a case per variant plus
/// one that keeps an unknown variant's JSON).
///
/// How a payload picks its case, in order of preference:
/// - a `discriminator` (AsyncAPI's property name, or OpenAPI's `propertyName` with `mapping`,
///   whose keys may hold `/`): the property's value names the variant; a variant without a
///   `mapping` entry is named by its component key;
/// - a string property every variant fixes to a different value (`const`, or an enum of one);
/// - a string property some variants fix, each to its own value (the most such variants): its
///   value picks one of them, and any other value is tried on the variants that fix none;
/// - otherwise each variant in order; of those that decode, the one that declares the most of the
///   value's keys wins (`oneOf` and `anyOf` alike).
/// `{type: 'null'}` variants make the value optional; one variant left is that variant's type.
extension SchemaTranslator {
    mutating func union(_ cursor: Cursor, variants list: Cursor, keyword: String, name: String, parent: String?, documentation: Documentation) -> TypeReference? {
        if cursor.node["oneOf"] != nil, cursor.node["anyOf"] != nil {
            diagnostics.unsupported("schema '\(name)' has both 'oneOf' and 'anyOf'; that has no single Swift type", at: list.keyLocation ?? list.location)
            return nil
        }
        if let properties = cursor.child("properties") {
            diagnostics.unsupported(
                "'properties' beside '\(keyword)' in schema '\(name)' is not supported; put the shared properties into each variant (allOf)",
                at: properties.keyLocation ?? properties.location)
            return nil
        }
        guard let items = list.node.items, !items.isEmpty else {
            diagnostics.error("'\(keyword)' must be a non-empty list of schemas, found \(list.node.kindDescription)", at: list.location)
            return nil
        }
        // A `false` variant matches no value: it adds no case (`true` allows any value: `JSONValue`).
        let members = list.elements.filter { !Self.isNullSchema($0.node) && $0.node.scalar?.bool != false }
        guard !members.isEmpty else {
            // Only null (`anyOf: [{type: 'null'}]`): always null, as `type: 'null'` alone is: `JSONValue`.
            if list.elements.contains(where: { Self.isNullSchema($0.node) }) { return .json }
            diagnostics.unsupported("every variant of '\(keyword)' in schema '\(name)' is 'false': no value is valid, so there is nothing to decode", at: list.keyLocation ?? list.location)
            return nil
        }
        if members.count == 1 {
            return type(of: members[0], name: name, parent: parent)  // `[T, null]`: T, optional
        }

        // Reserve the slot first so variants' inline types nest in this one, after it.
        let id = Self.id(of: cursor)
        let index = types.count
        types.append(NamedType(
            id: id, preferredName: name, swiftName: cursor.node["x-swift-name"]?.string,
            kind: .union(Union(decoding: .firstThatDecodes, variants: [])), documentation: documentation,
            origin: Origin(location: cursor.declarationLocation, reference: workspace.displayReference(cursor)), parent: parent))
        typeIndex[id] = index

        var variants: [UnionVariant] = []
        var components: [String?] = []  // each variant's component key, when it is a `$ref`
        for (offset, member) in members.enumerated() {
            let title = member.node["title"]?.string
            guard let type = type(of: member, name: title ?? "Case\(offset + 1)", parent: id) else { continue }
            if type == .named(id) {
                // `X = X | string` is `string`: the union itself adds no value as its own variant.
                diagnostics.warning("a variant of '\(name)' is '\(name)' itself; it adds no value and is left out", at: member.location)
                continue
            }
            let preferredName = title ?? caseName(for: type)
            variants.append(UnionVariant(
                preferredName: preferredName, type: type, tags: [],
                origin: Origin(location: member.location, reference: workspace.displayReference(member))))
            components.append(member.node["$ref"]?.string.map(Self.lastToken))
        }
        guard !variants.isEmpty else {
            // Every variant was left out (`anyOf: [X, X]` inside `X`): no Swift type has no cases.
            diagnostics.unsupported("'\(keyword)' in schema '\(name)' has no variant left but itself; it constrains nothing channelgen can type", at: list.keyLocation ?? list.location)
            return nil
        }
        let decoding = decoding(of: cursor, variants: &variants, components: components, name: name)
        warnAboutLookalikes(variants, decoding: decoding, of: name)
        types[index].kind = .union(Union(decoding: decoding, variants: variants))
        // Decoding a variant that is this union again (directly or through other unions) reads the
        // same value again: it would never end. Only an object in between moves on in the JSON.
        if let loop = unionLoop(from: id, through: variants) {
            diagnostics.unsupported(
                "'\(keyword)' in schema '\(name)' contains itself through unions only (\(([name] + loop).joined(separator: " → "))); decoding it would never end",
                at: list.keyLocation ?? list.location)
            return nil
        }
        return .named(id)
    }

    /// The names along a path of union variants from `variants` back to the union `id`, if any.
    private func unionLoop(from id: String, through variants: [UnionVariant]) -> [String]? {
        var seen: Set<String> = []
        var stack: [(id: String, path: [String])] = variants.compactMap { variant in
            if case .named(let next) = variant.type { (next, []) } else { nil }
        }
        while let (next, path) = stack.popLast() {
            guard let index = typeIndex[next], case .union(let union) = types[index].kind else { continue }
            let here = path + [types[index].preferredName]
            if next == id { return here }
            guard seen.insert(next).inserted else { continue }
            for variant in union.variants {
                if case .named(let further) = variant.type { stack.append((further, here)) }
            }
        }
        return nil
    }

    static func isNullSchema(_ node: YAMLNode) -> Bool {
        guard let type = node["type"] else { return false }
        return type.string == "null" || type.scalar?.isNull == true
    }

    /// The name a case gets from its type: the named type's, or the primitive's.
    private func caseName(for type: TypeReference) -> String {
        switch type {
        case .string: return "string"
        case .dateTime: return "date"
        case .integer: return "integer"
        case .number: return "number"
        case .boolean: return "boolean"
        case .array: return "array"
        case .optional(let wrapped): return caseName(for: wrapped)
        case .dictionary: return "object"
        case .json: return "value"
        case .named(let id): return typeIndex[id].map { types[$0].preferredName } ?? "value"
        }
    }

    /// How the union picks its variant; sets each variant's tags for property decoding.
    private mutating func decoding(of cursor: Cursor, variants: inout [UnionVariant], components: [String?], name: String) -> Union.Decoding {
        if let discriminator = cursor.child("discriminator") {
            let property: String?
            var mapping: [(value: String, target: String)] = []
            if let text = discriminator.node.string {
                property = text  // AsyncAPI: the property's name
            } else {
                property = discriminator.node["propertyName"]?.string
                if let mapping = discriminator.child("mapping"), mapping.node.entries == nil {
                    diagnostics.error("'mapping' of the discriminator of '\(name)' must be a mapping from values to schemas, found \(mapping.node.kindDescription)", at: mapping.location)
                }
                for (key, _, target) in discriminator.child("mapping")?.children ?? [] {
                    guard let reference = target.node.string else { continue }
                    let component = Self.lastToken(of: reference)
                    // A mapping to a schema that is not a variant names nothing the union can decode.
                    if !components.contains(component) {
                        diagnostics.warning(
                            "discriminator mapping '\(key)' of '\(name)' names '\(reference)', which is not one of its variants; values '\(key)' decode as the unknown case",
                            at: target.location)
                        continue
                    }
                    mapping.append((key, component))
                }
            }
            guard let property else {
                diagnostics.error("'discriminator' in schema '\(name)' names no property ('propertyName')", at: discriminator.location)
                return .firstThatDecodes
            }
            warnAboutDiscriminatorProperty(property, of: name, variants: variants, at: discriminator)
            for (offset, variant) in variants.enumerated() {
                guard let component = components[offset] else {
                    variants[offset].tags = constant(property, of: variant.type).map { [$0] } ?? []
                    continue
                }
                let mapped = mapping.filter { $0.target == component }.map(\.value)
                variants[offset].tags = mapped.isEmpty ? [component] : mapped
            }
            // A value names one variant: the first that claims it.
            var claimed: Set<String> = []
            for offset in variants.indices {
                variants[offset].tags = variants[offset].tags.filter { claimed.insert($0).inserted }
            }
            for variant in variants where variant.tags.isEmpty {
                diagnostics.warning(
                    "a variant of '\(name)' has no '\(property)' value to be recognized by; it decodes as the unknown case",
                    at: variant.origin.location)
            }
            return .property(property)
        }
        return constantProperty(tagging: &variants) ?? .firstThatDecodes
    }

    /// OpenAPI asks every object variant to declare the discriminator property as a string. One
    /// that is not a string names no variant (a warning says so); undeclared, the property's value
    /// still picks the variant (decoding reads it from the JSON, encoding writes it back).
    private mutating func warnAboutDiscriminatorProperty(_ property: String, of name: String, variants: [UnionVariant], at discriminator: Cursor) {
        var declaredBy = 0
        var allObjects = true
        for variant in variants {
            guard case .named(let id) = variant.type, let index = typeIndex[id], case .object(let properties) = types[index].kind else {
                allObjects = false  // a composition or a union may declare it inside
                continue
            }
            guard let declared = properties.first(where: { $0.jsonName == property }) else { continue }
            declaredBy += 1
            if !isString(declared.type) {
                diagnostics.warning(
                    "discriminator property '\(property)' of '\(name)' is not a string in variant '\(types[index].preferredName)'; a discriminator names its variant with a string",
                    at: declared.origin.location)
            }
        }
        if declaredBy == 0, allObjects {
            diagnostics.warning(
                "discriminator property '\(property)' of '\(name)' is declared by none of its variants (OpenAPI asks each to declare it); its value still picks the variant, and encoding writes it back",
                at: discriminator.location)
        }
    }

    /// A string or a string enum.
    private func isString(_ type: TypeReference) -> Bool {
        if type == .string { return true }
        guard case .named(let id) = type, let index = typeIndex[id], case .stringEnum = types[index].kind else { return false }
        return true
    }

    /// The string property that the most variants (objects) fix, each to its own value, with the
    /// variants tagged by it: `.property` when every variant fixes it, `.fixedProperty` when only
    /// some do (the others are tried when the value names none). A property two variants fix to
    /// one value cannot tell them apart and is not chosen.
    private func constantProperty(tagging variants: inout [UnionVariant]) -> Union.Decoding? {
        var candidates: [String] = []
        for variant in variants {
            guard case .named(let id) = variant.type, let index = typeIndex[id], case .object(let properties) = types[index].kind else { continue }
            for property in properties where property.constant != nil && !candidates.contains(property.jsonName) {
                candidates.append(property.jsonName)
            }
        }
        var best: (property: String, tags: [String?], fixed: Int)?
        for candidate in candidates {
            let tags = variants.map { constant(candidate, of: $0.type) }
            let fixed = tags.compactMap { $0 }
            guard Set(fixed).count == fixed.count, fixed.count > best?.fixed ?? 0 else { continue }
            best = (candidate, tags, fixed.count)
        }
        guard let best else { return nil }
        for offset in variants.indices { variants[offset].tags = best.tags[offset].map { [$0] } ?? [] }
        return best.fixed == variants.count ? .property(best.property) : .fixedProperty(best.property)
    }

    /// Variants tried in turn (none of them fixes a value that picks it) whose values nothing tells
    /// apart, the same properties of the same types with the same required: each such value is
    /// read as the first, so the second is never chosen. A warning names both and what to add.
    private mutating func warnAboutLookalikes(_ variants: [UnionVariant], decoding: Union.Decoding, of name: String) {
        let tried: [UnionVariant] = switch decoding {
        case .property: []
        case .fixedProperty: variants.filter { $0.tags.isEmpty }
        case .firstThatDecodes: variants
        }
        var firstOfShape: [Shape: UnionVariant] = [:]
        for variant in tried {
            guard let shape = shape(of: variant.type) else { continue }
            guard let first = firstOfShape[shape] else {
                firstOfShape[shape] = variant
                continue
            }
            diagnostics.strictWarning(
                "variants '\(first.preferredName)' and '\(variant.preferredName)' of '\(name)' cannot be told apart (the same properties, none fixed to a value): every such value decodes as '\(first.preferredName)'; give each a property fixed to its own value (`const`) or add a 'discriminator'",
                at: variant.origin.location)
        }
    }

    /// What decoding can tell a variant by: an object's properties (name, type, whether required,
    /// fixed value), or a value's type; `nil` for compositions and unions (not compared).
    private func shape(of type: TypeReference) -> Shape? {
        guard case .named(let id) = type else { return Shape(type: type, properties: []) }
        guard let index = typeIndex[id], case .object(let properties) = types[index].kind, types[index].extraProperties == nil else { return nil }
        return Shape(type: nil, properties: properties.map { Shape.Property(name: $0.jsonName, type: $0.type, isOptional: $0.isOptional, constant: $0.constant) }.sorted { $0.name < $1.name })
    }

    private struct Shape: Hashable {
        struct Property: Hashable {
            var name: String
            var type: TypeReference
            var isOptional: Bool
            var constant: String?
        }
        var type: TypeReference?
        var properties: [Property]
    }

    /// The messages of a channel that carries several: one union of their payloads, a case per
    /// message (named by its key). A payload is recognized by a property each message fixes, or by
    /// its `eventType` naming the message (the AppSync Events convention), or else by trying each.
    mutating func messageUnion(of messages: [Message], name: String, declaredAt cursor: Cursor, reference: String, selectedByName: Bool = false) -> Message {
        let id = Self.id(of: cursor)
        // A name two messages share chooses the first (the translator warned).
        var named: Set<String> = []
        var variants = messages.map { message in
            let eventName = selectedByName ? message.name.flatMap { named.insert($0).inserted ? $0 : nil } : nil
            return UnionVariant(preferredName: message.key, type: message.payload, tags: [], origin: message.origin, eventName: eventName)
        }
        var decoding = constantProperty(tagging: &variants)
        let names = messages.compactMap(\.name)
        let everyVariantFixesAValue = if case .property? = decoding { true } else { false }
        if !everyVariantFixesAValue, names.count == messages.count, Set(names).count == names.count,
           messages.allSatisfy({ hasRequiredString("eventType", in: $0.payload) }) {
            // A name or alias of two messages would choose either: it stays with the first.
            var taken: Set<String> = []
            for offset in variants.indices {
                variants[offset].tags = messages[offset].eventTypes.filter { taken.insert($0).inserted }
                for alias in messages[offset].eventTypes where !variants[offset].tags.contains(alias) {
                    diagnostics.warning(
                        "event type '\(alias)' of message '\(messages[offset].key)' already names another message of the channel; it chooses that one",
                        at: messages[offset].origin.location)
                }
            }
            decoding = .property("eventType")
        }
        // An own stream's event names tell its messages apart before their payloads are decoded.
        if !selectedByName { warnAboutLookalikes(variants, decoding: decoding ?? .firstThatDecodes, of: name) }
        typeIndex[id] = types.count
        types.append(NamedType(
            id: id, preferredName: name, swiftName: nil,
            kind: .union(Union(decoding: decoding ?? .firstThatDecodes, variants: variants, selectsByEventName: selectedByName)),
            documentation: Documentation(summary: "One of the messages of the channel."),
            origin: Origin(location: cursor.declarationLocation, reference: reference), parent: nil))
        return Message(
            key: "messages", name: nil, payload: .named(id),
            documentation: Documentation(), origin: Origin(location: cursor.declarationLocation, reference: reference))
    }

    /// The named type `type` refers to, if it is one.
    func namedType(_ type: TypeReference) -> NamedType? {
        guard case .named(let id) = type, let index = typeIndex[id] else { return nil }
        return types[index]
    }

    func hasRequiredString(_ property: String, in type: TypeReference) -> Bool {
        guard case .named(let id) = type, let index = typeIndex[id], case .object(let properties) = types[index].kind else { return false }
        return properties.contains { $0.jsonName == property && $0.type == .string && !$0.isOptional }
    }

    /// The fixed value of `property` in `type`, when it is an object that fixes one.
    func constant(_ property: String, of type: TypeReference) -> String? {
        guard case .named(let id) = type, let index = typeIndex[id], case .object(let properties) = types[index].kind else { return nil }
        return properties.first { $0.jsonName == property }?.constant
    }

    /// `#/components/schemas/Walk` → `Walk`; a bare `Walk` stays.
    static func lastToken(of reference: String) -> String {
        guard let hash = reference.firstIndex(of: "#") else { return reference.split(separator: "/").last.map(String.init) ?? reference }
        return JSONPointer.lastToken(String(reference[reference.index(after: hash)...])) ?? reference
    }

    /// The value a property schema fixes: `const`, or an enum of one non-null string.
    static func constant(of cursor: Cursor) -> String? {
        if let value = cursor.node["const"]?.scalar, !value.isNull { return value.text }
        if let values = cursor.node["enum"]?.items?.filter({ $0.scalar?.isNull != true }), values.count == 1 { return values[0].scalar?.text }
        return nil
    }
}
