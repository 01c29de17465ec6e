/// Translates the JSON Schema subset of DESIGN §4 into `TypeReference`s and `NamedType`s.
/// Objects and string enums become named types (a component's key, or a name derived from
/// the property for inline schemas); everything else maps to a primitive or a container.
struct SchemaTranslator {
    let workspace: SpecWorkspace
    var diagnostics = Diagnostics()
    var types: [NamedType] = []
    var typeIndex: [String: Int] = [:]
    /// Referenced schemas being translated (objects, arrays, maps alike), to report recursion
    /// instead of looping; a set beside the path keeps the check O(1).
    private var inProgress: [(id: String, name: String)] = []
    private var inProgressIDs: Set<String> = []
    /// Schemas being translated, through properties, items and `$ref`s: the recursion depth.
    private var depth = 0
    /// File → the schemas an `allOf` in it refers to (see `isAllOfMember`).
    private var allOfMembers: [String: Set<String>] = [:]
    /// Deeper nesting is an error: the translator recurses once per level. Real payloads nest a few levels.
    static let maximumDepth = 64

    init(workspace: SpecWorkspace) { self.workspace = workspace }

    static let knownTypes = ["array", "boolean", "integer", "null", "number", "object", "string"]

    /// The type for the schema at `cursor` (possibly a `$ref`); `nil` after reporting an error.
    /// `name` is the name an inline object or enum gets; `parent` the type it nests in.
    /// What `rollBack(to:)` restores: the types known before a channel was translated.
    struct Checkpoint {
        fileprivate let typeCount: Int
        let diagnosticCount: Int
    }

    /// A checkpoint is a count, not a copy of `typeIndex`: copying it for every channel made
    /// translation quadratic in the number of types.
    func checkpoint() -> Checkpoint {
        Checkpoint(typeCount: types.count, diagnosticCount: diagnostics.all.count)
    }

    /// Forgets the types translated since `checkpoint` (a channel lenient generation skipped).
    /// Every `typeIndex` entry is set to the type appended with it, so an entry the rolled-back
    /// types wrote gets back the last earlier type of that id, or goes.
    mutating func rollBack(to checkpoint: Checkpoint) {
        let kept = types[..<checkpoint.typeCount]
        for type in types[checkpoint.typeCount...] {
            typeIndex[type.id] = kept.lastIndex { $0.id == type.id }
        }
        types.removeLast(types.count - checkpoint.typeCount)
    }

    mutating func type(of cursor: Cursor, name: String, parent: String?) -> TypeReference? {
        guard depth < Self.maximumDepth else {
            diagnostics.error(
                "schema '\(name)' is nested more than \(Self.maximumDepth) levels deep (through properties, items and $refs)",
                at: cursor.declarationLocation)
            return nil
        }
        depth += 1
        defer { depth -= 1 }
        guard cursor.isReference else {
            return translate(cursor, name: name, parent: parent, isComponent: false)
        }
        let target: Cursor
        do {
            target = try workspace.resolve(cursor)
        } catch {
            diagnostics.append(contentsOf: error.diagnostics)
            return nil
        }
        let id = Self.id(of: target)
        // A named type (object or union) is declared before what it contains is translated, so a
        // reference back to it is just its name: the generator stores such values on the heap.
        if let index = typeIndex[id] { return .named(types[index].id) }
        if inProgressIDs.contains(id), let start = inProgress.firstIndex(where: { $0.id == id }) {
            // An array or map of itself (`T: {items: {$ref: T}}`) is an infinitely nested type.
            let loop = (inProgress[start...].map(\.name) + [inProgress[start].name]).joined(separator: " → ")
            diagnostics.unsupported(
                "recursive schema '\(inProgress[start].name)' has no Swift type: it is an array or map of itself (\(loop))",
                at: cursor.node["$ref"]?.location ?? cursor.location)
            return nil
        }
        let componentName = JSONPointer.lastToken(target.pointer) ?? name
        inProgress.append((id, componentName))
        inProgressIDs.insert(id)
        defer {
            inProgress.removeLast()
            inProgressIDs.remove(id)
        }
        return translate(target, name: componentName, parent: nil, isComponent: true)
    }

    /// The type of an array's items or a map's values: optional (`[String?]`) when their schema
    /// admits `null` in any spelling `isNullable` knows. The one place that decides it, as
    /// `Property.isOptional` does for properties; `JSONValue` holds `null` itself.
    mutating func elementType(of cursor: Cursor, name: String, parent: String?) -> TypeReference? {
        guard let type = type(of: cursor, name: name, parent: parent) else { return nil }
        return type != .json && isNullable(cursor) ? .optional(type) : type
    }

    /// Whether the schema at `cursor` admits `null` (`nullable: true`, `type: [T, 'null']`, `null` in
    /// its enum, a union with null, or an `allOf` whose every member does), looking through `$ref`s
    /// as well as at the referring node.
    func isNullable(_ cursor: Cursor, depth: Int = 0) -> Bool {
        guard depth < 16 else { return false }  // a cycle of references admits what its schemas say
        if Self.admitsNull(cursor.node) { return true }
        if let members = cursor.child("allOf")?.elements, !members.isEmpty,
           members.allSatisfy({ allOfMemberAdmitsNull($0, depth: depth + 1) }) { return true }
        guard cursor.isReference, let target = try? workspace.resolve(cursor) else { return false }
        return isNullable(target, depth: depth + 1)
    }

    /// An `allOf` member lets `null` through when it admits it, is `true`, or only documents.
    private func allOfMemberAdmitsNull(_ member: Cursor, depth: Int) -> Bool {
        if member.node.scalar?.bool == true { return true }
        if let keys = member.node.entries?.map(\.key), Set(keys).isSubset(of: Self.annotationKeys) { return true }
        return isNullable(member, depth: depth)
    }

    private static func admitsNull(_ node: YAMLNode) -> Bool {
        if node["nullable"]?.scalar?.bool == true { return true }
        if let types = node["type"]?.items, types.contains(where: { $0.string == "null" || $0.scalar?.isNull == true }) { return true }
        if let values = node["enum"]?.items, values.contains(where: { $0.scalar?.isNull == true }) { return true }
        for keyword in ["oneOf", "anyOf"] where node[keyword]?.items?.contains(where: isNullSchema) == true { return true }
        return false
    }

    /// A schema's identity: where it is written, compared by Unicode scalars (`exactKey`).
    static func id(of cursor: Cursor) -> String { exactKey(cursor.file + "#" + cursor.pointer) }

    private mutating func translate(_ cursor: Cursor, name: String, parent: String?, isComponent: Bool) -> TypeReference? {
        // An inline schema reached twice (a shared message's payload, the items of a component used
        // by two properties) is one type, not two with the same name.
        if let index = typeIndex[Self.id(of: cursor)] { return .named(types[index].id) }
        // JSON Schema's boolean schemas: `true` admits any value (as `{}` does), `false` none.
        if let admitsAnything = cursor.node.scalar?.bool {
            if admitsAnything { return .json }
            diagnostics.unsupported("schema '\(name)' is 'false': no value is valid, so there is nothing to decode", at: cursor.location)
            return nil
        }
        guard cursor.node.entries != nil else {
            diagnostics.error("a schema must be a mapping, found \(cursor.node.kindDescription)", at: cursor.location)
            return nil
        }
        let reported = diagnostics.all.count
        KeyRules.schema.check(cursor, named: "'\(name)'", into: &diagnostics)
        // Documentation the generated comments would lose without a word.
        for key in ["description", "title"] {
            guard let value = cursor.node[key], !value.isJSONString else { continue }
            diagnostics.strictWarning("'\(key)' of schema '\(name)' must be a string, found \(value.kindDescription); it is left out", at: value.location)
        }
        // A schema using an unsupported keyword has no meaningful type; stop before follow-up noise.
        if diagnostics.all[reported...].contains(where: { $0.severity == .error }) { return nil }
        let documentation = documentation(of: cursor)
        if let allOf = cursor.child("allOf") {
            return composed(cursor, allOf: allOf, name: name, parent: parent, documentation: documentation)
        }
        for keyword in ["oneOf", "anyOf"] where cursor.node["properties"] != nil && isObjectUnion(cursor, keyword) {
            // `properties` beside a union: both describe the value, as an `allOf` of the object
            // and the union does (a struct holding each, decoded from the whole value).
            let rewritten = Self.allOf(ofObjectAndUnion: cursor, keyword: keyword)
            if let allOf = rewritten.child("allOf") {
                return composed(rewritten, allOf: allOf, name: name, parent: parent, documentation: documentation)
            }
        }
        for keyword in ["oneOf", "anyOf"] {
            if let variants = cursor.child(keyword) {
                return union(cursor, variants: variants, keyword: keyword, name: name, parent: parent, documentation: documentation)
            }
        }
        if let variants = Self.anyOf(ofTypes: cursor) {
            // `type: [string, integer]`: a value of one of the types, as `anyOf` of each says.
            return union(variants, variants: variants.child("anyOf")!, keyword: "anyOf", name: name, parent: parent, documentation: documentation)
        }
        guard let typeName = schemaType(cursor, name: name) else { return nil }
        warnAboutKeywordsThatDoNotApply(cursor, type: typeName)
        switch typeName {
        case "object":
            return object(cursor, name: name, parent: parent, isComponent: isComponent, documentation: documentation)
        case "string":
            if let values = cursor.child("enum") {
                return stringEnum(cursor, values: values, name: name, parent: parent, documentation: documentation)
            }
            if cursor.node["format"]?.string == "date-time" { return .dateTime }
            return .string
        case "integer":
            switch cursor.node["format"]?.string {
            case "int32": return .integer(bits: 32)
            case "int64": return .integer(bits: 64)
            // Not OpenAPI formats, but written in real documents for values past `Int64.max`.
            case "uint32": return .integer(bits: 32, isUnsigned: true)
            case "uint64": return .integer(bits: 64, isUnsigned: true)
            default: return .integer(bits: nil)
            }
        case "number":
            return .number(isFloat: cursor.node["format"]?.string == "float")
        case "boolean":
            return .boolean
        case "any":
            return .json
        case "array":
            // No `items`: any elements, as JSON Schema says.
            guard let items = cursor.child("items") else { return .array(.json) }
            // `items: false`: an array that must be empty. No element is ever decoded, so any element type
            // reads it; `JSONValue` keeps a server's non-empty array rather than failing the event.
            if items.node.scalar?.bool == false { return .array(.json) }
            if items.node.items != nil {
                diagnostics.unsupported(
                    "'items' as a list in schema '\(name)' is a tuple (each position its own schema), which a Swift array cannot express",
                    at: items.keyLocation ?? items.location)
                return nil
            }
            return elementType(of: items, name: name + "Item", parent: parent).map { .array($0) }
        default:
            // `type: 'null'` alone: the value is always null (a placeholder field, an event with no
            // body). `JSONValue` holds it, and round-trips it.
            return .json
        }
    }

    /// Whether `cursor` has a `keyword` union whose values are objects: the schema says `type:
    /// object`, or no variant declares another type. (`properties` beside a union of strings and
    /// numbers constrains nothing, as JSON Schema applies `properties` to objects only.)
    private func isObjectUnion(_ cursor: Cursor, _ keyword: String) -> Bool {
        guard let variants = cursor.child(keyword), variants.node.items != nil else { return false }
        if cursor.node["type"]?.string == "object" { return true }
        return variants.elements.allSatisfy { variant in
            let target = variant.isReference ? (try? workspace.resolve(variant)) ?? variant : variant
            return target.node["type"].map { $0.string == "object" } ?? true
        }
    }

    /// `{properties: …, oneOf: […]}` written as `{properties: …, allOf: [{oneOf: […]}]}`: the
    /// schema's own keywords are the object member, the union the other. Locations stay those of
    /// the spec's own nodes.
    static func allOf(ofObjectAndUnion cursor: Cursor, keyword: String) -> Cursor {
        let entries = cursor.node.entries ?? []
        guard let union = entries.first(where: { $0.key == keyword }) else { return cursor }
        // The discriminator tells the union's variants apart: it goes with the union.
        let moved = entries.filter { $0.key == keyword || $0.key == "discriminator" }
        let member = YAMLNode(.mapping(moved), at: union.value.location)
        var rewritten = cursor
        rewritten.node = YAMLNode(
            .mapping(entries.filter { $0.key != keyword && $0.key != "discriminator" } + [YAMLNode.Entry(key: "allOf", keyLocation: union.keyLocation, value: YAMLNode(.sequence([member]), at: union.value.location))]),
            at: cursor.node.location)
        return rewritten
    }

    /// `{type: [string, integer, 'null'], …}` written as `{anyOf: [{type: string, …}, {type: integer, …},
    /// {type: 'null'}]}`, each variant keeping the keywords that apply to its type; `nil` unless the
    /// schema lists several types other than null. Locations stay those of the spec's own nodes.
    static func anyOf(ofTypes cursor: Cursor) -> Cursor? {
        guard let names = cursor.node["type"]?.items,
              names.filter({ $0.string != nil && $0.string != "null" }).count > 1,
              names.allSatisfy({ $0.string.map(knownTypes.contains) ?? ($0.scalar?.isNull == true) }) else { return nil }
        let entries = cursor.node.entries ?? []
        let typeEntry = entries.first { $0.key == "type" }!
        let documenting: Set<String> = ["title", "description", "x-swift-name", "nullable", "enum", "const", "type"]
        let variants = names.map { node -> YAMLNode in
            let type = node.string ?? "null"
            let kept = type == "null" ? [] : entries.filter { entry in
                if documenting.contains(entry.key) { return false }
                if let rank = typedKeywordRanks[entry.key] { return typedKeywords[rank].types.contains(type) }
                if entry.key == "format", let text = entry.value.string, let types = formatTypes[text] { return types.contains(type) }
                return true
            }
            let typeNode = YAMLNode(.scalar(YAMLScalar(text: type, isPlain: false)), at: node.location)
            return YAMLNode(.mapping([YAMLNode.Entry(key: "type", keyLocation: typeEntry.keyLocation, value: typeNode)] + kept), at: node.location)
        }
        var rewritten = cursor
        rewritten.node = YAMLNode(
            .mapping(entries.filter { ["title", "description", "x-swift-name"].contains($0.key) }
                + [YAMLNode.Entry(key: "anyOf", keyLocation: typeEntry.keyLocation, value: YAMLNode(.sequence(variants), at: typeEntry.value.location))]),
            at: cursor.node.location)
        return rewritten
    }

    /// Keywords that only mean something for some types.
    private static let typedKeywords: [(key: String, types: Set<String>)] = [
        ("items", ["array"]), ("minItems", ["array"]), ("maxItems", ["array"]), ("uniqueItems", ["array"]),
        ("properties", ["object"]), ("additionalProperties", ["object"]), ("required", ["object"]),
        ("minProperties", ["object"]), ("maxProperties", ["object"]),
        ("pattern", ["string"]), ("minLength", ["string"]), ("maxLength", ["string"]),
        ("minimum", ["integer", "number"]), ("maximum", ["integer", "number"]), ("multipleOf", ["integer", "number"]),
        ("exclusiveMinimum", ["integer", "number"]), ("exclusiveMaximum", ["integer", "number"]),
    ]
    private static let typedKeywordRanks = Dictionary(uniqueKeysWithValues: typedKeywords.enumerated().map { ($1.key, $0) })
    private static let formatTypes: [String: Set<String>] = [
        "date-time": ["string"], "date": ["string"], "time": ["string"], "uuid": ["string"], "email": ["string"],
        "uri": ["string"], "byte": ["string"], "binary": ["string"], "int32": ["integer"], "int64": ["integer"],
        "uint32": ["integer"], "uint64": ["integer"],
        "float": ["number"], "double": ["number"],
    ]

    /// Keywords that mean nothing for the schema's type are ignored, with a warning at the keyword:
    /// `format: date-time` on an integer, `items` on a string, string values in an integer enum.
    private mutating func warnAboutKeywordsThatDoNotApply(_ cursor: Cursor, type: String) {
        // One pass over the schema's keys (this runs for every schema), reported in table order.
        var misplaced: [(rank: Int, key: String, location: SourceLocation)] = []
        for entry in cursor.node.entries ?? [] {
            guard let rank = Self.typedKeywordRanks[entry.key], !Self.typedKeywords[rank].types.contains(type) else { continue }
            if !misplaced.contains(where: { $0.key == entry.key }) { misplaced.append((rank, entry.key, entry.keyLocation)) }
        }
        for (rank, key, location) in misplaced.sorted(by: { $0.rank < $1.rank }) {
            let types = Self.typedKeywords[rank].types
            diagnostics.warning("'\(key)' applies to \(types.sorted().joined(separator: " and ")) schemas; it is ignored on \(Self.article(type)) \(type)", at: location)
        }
        if let format = cursor.node["format"], let text = format.string {
            if let types = Self.formatTypes[text], !types.contains(type) {
                diagnostics.warning("format '\(text)' applies to \(types.sorted().joined(separator: " and ")) schemas; it is ignored on \(Self.article(type)) \(type)", at: format.location)
            }
        }
        if let values = cursor.node["enum"]?.items {
            for value in values where !(value.scalar?.isNull ?? false) {
                let fits: Bool
                switch type {
                case "integer": fits = value.scalar?.integer != nil
                case "number": fits = value.scalar?.number != nil
                case "boolean": fits = value.scalar?.bool != nil
                case "string": fits = value.scalar != nil
                default: fits = true
                }
                if !fits {
                    diagnostics.warning("enum value '\(value.scalar?.text ?? value.kindDescription)' is not \(Self.article(type)) \(type); it is ignored", at: value.location)
                }
            }
        }
    }

    private static func article(_ word: String) -> String { "aeiou".contains(word.first ?? "x") ? "an" : "a" }

    /// The schema's single non-null type, inferred from `properties`, `items`, `enum` or `const` when `type` is absent.
    private mutating func schemaType(_ cursor: Cursor, name: String) -> String? {
        if let typeNode = cursor.node["type"] {
            let names: [YAMLNode]
            if let items = typeNode.items { names = items } else { names = [typeNode] }
            var nonNull: [String] = []
            for node in names {
                // `type: [string, null]` (a YAML null, not the string) means the same as `'null'`.
                if names.count > 1, node.scalar?.isNull == true { continue }
                guard let text = node.string else {
                    diagnostics.error("'type' must be a string or a list of strings, found \(node.kindDescription)", at: node.location)
                    return nil
                }
                guard Self.knownTypes.contains(text) else {
                    // Real documents write a type's name here (`type: 'Json Patch Operation'`), which JSON
                    // Schema does not define: it is left out, with a word, and the value is not lost.
                    diagnostics.strictWarning(
                        "unknown schema type '\(text)' (expected one of \(Self.knownTypes.joined(separator: ", "))); it is ignored: the schema's other keywords decide the Swift type, or it is JSONValue",
                        at: node.location)
                    continue
                }
                if text != "null" { nonNull.append(text) }
            }
            if nonNull.count > 1 {
                diagnostics.unsupported("a schema with several types (\(nonNull.joined(separator: ", "))) is not supported; only [T, 'null'] is", at: typeNode.location)
                return nil
            }
            if let only = nonNull.first { return only }
            if names.contains(where: { $0.string == "null" || $0.scalar?.isNull == true }) { return "null" }
            // Every type named was unknown: the schema's other keywords say what it is, as without `type`.
        }
        if cursor.node["properties"] != nil || cursor.node["additionalProperties"] != nil || cursor.node["patternProperties"] != nil { return "object" }
        if cursor.node["items"] != nil { return "array" }
        if let values = cursor.node["enum"]?.items ?? cursor.node["const"].map({ [$0] }) {
            let kinds = Set(values.filter { $0.scalar?.isNull != true }.map(\.kindDescription))
            if kinds == ["a string"] { return "string" }
            if kinds == ["a boolean"] { return "boolean" }
            if kinds == ["a number"] { return values.allSatisfy { $0.scalar?.integer != nil || $0.scalar?.isNull == true } ? "integer" : "number" }
        }
        // Nothing constrains the value (`{}`, a description only): any JSON value, as JSON Schema says.
        return "any"
    }

    private mutating func object(_ cursor: Cursor, name: String, parent: String?, isComponent: Bool, documentation: Documentation) -> TypeReference? {
        let properties = cursor.child("properties")
        var additional = cursor.child("additionalProperties")
        if let patterns = cursor.child("patternProperties") {
            guard let extras = patternExtras(patterns, additional: additional) else { return nil }
            additional = extras
        }
        if let additional, additional.node.entries != nil, properties == nil {
            return elementType(of: additional, name: name + "Value", parent: parent).map { .dictionary($0) }
        }
        guard var shape = objectShape(cursor) else { return nil }
        if shape.properties.isEmpty, additional?.node.scalar?.bool != false {
            // No properties named and others allowed (JSON Schema's default): any object. Its keys
            // are kept rather than decoded into an empty struct.
            warnAboutUndeclaredRequired(shape, of: name, at: cursor)
            return .dictionary(.json)
        }
        shape.extras = additional
        return makeObject(cursor, name: name, parent: parent, documentation: documentation, shape: shape)
    }

    /// `patternProperties`: the keys no property names, typed by the one pattern's schema (the
    /// patterns are documented, not enforced). Several patterns, or a pattern beside a different
    /// `additionalProperties`, keep those values as `JSONValue` (a `true` schema). `nil` after an error.
    private mutating func patternExtras(_ patterns: Cursor, additional: Cursor?) -> Cursor? {
        guard let entries = patterns.node.entries else {
            diagnostics.error("'patternProperties' must be a mapping, found \(patterns.node.kindDescription)", at: patterns.location)
            return nil
        }
        if entries.count == 1, additional == nil || additional?.node.scalar?.bool == false, let only = patterns.children.first {
            return only.cursor
        }
        var anything = patterns
        anything.node = YAMLNode(.scalar(YAMLScalar(text: "true", isPlain: true)), at: patterns.node.location)
        return anything
    }

    /// An object schema's properties (each with the schema it is declared by) and required names.
    /// A name spelled by its scalars (`caf\u{E9}`): printed as they are, two names one Unicode
    /// normalization apart look the same.
    static func spelledByScalars(_ text: String) -> String {
        text.unicodeScalars.map { $0.isASCII ? String($0) : "\\u{\(String($0.value, radix: 16, uppercase: true))}" }.joined()
    }

    struct ObjectShape {
        var properties: [(key: String, keyLocation: SourceLocation, cursor: Cursor)] = []
        var required: [(key: String, location: SourceLocation)] = []
        /// `additionalProperties` beside `properties`: a schema or `true` keeps the others by key.
        var extras: Cursor?
    }

    /// The properties and `required` list of the object schema at `cursor`; `nil` after an error.
    mutating func objectShape(_ cursor: Cursor) -> ObjectShape? {
        var shape = ObjectShape()
        if let properties = cursor.child("properties") {
            guard properties.node.entries != nil else {
                diagnostics.error("'properties' must be a mapping, found \(properties.node.kindDescription)", at: properties.location)
                return nil
            }
            shape.properties = properties.children
        }
        if let requiredNode = cursor.node["required"] {
            guard let items = requiredNode.items else {
                diagnostics.error("'required' must be a list of property names, found \(requiredNode.kindDescription)", at: requiredNode.location)
                return nil
            }
            for item in items {
                guard let key = item.string else {
                    diagnostics.error("'required' entries must be strings, found \(item.kindDescription)", at: item.location)
                    continue
                }
                shape.required.append((key, item.location))
            }
        }
        return shape
    }

    /// A `required` name no property declares is a real spec defect (seen in vendors' documents);
    /// like swift-openapi-generator, warn and go on. A schema that an `allOf` elsewhere extends is
    /// a mixin, whose `required` may name what the other members declare: it is not warned about alone.
    private mutating func warnAboutUndeclaredRequired(_ shape: ObjectShape, of name: String, at cursor: Cursor) {
        let declared = Set(shape.properties.map(\.key))
        let undeclared = shape.required.filter { !declared.contains($0.key) }
        guard !undeclared.isEmpty, !isAllOfMember(cursor) else { return }
        for (key, location) in undeclared {
            diagnostics.warning("required property '\(key)' is not declared in 'properties' of '\(name)'; it is ignored", at: location)
        }
    }

    /// Whether an `allOf` in the schema's file refers to it. Found on first use (only an undeclared
    /// `required` name asks), by one walk over the file.
    private mutating func isAllOfMember(_ cursor: Cursor) -> Bool {
        if let members = allOfMembers[exactKey(cursor.file)] { return members.contains(Self.id(of: cursor)) }
        var members: Set<String> = []
        var pending: [YAMLNode] = (try? workspace.document(at: cursor.file, requestedAt: nil)).map { [$0] } ?? []
        while let node = pending.popLast() {
            if let items = node.items { pending += items }
            for entry in node.entries ?? [] {
                pending.append(entry.value)
                guard entry.key == "allOf" else { continue }
                for item in entry.value.items ?? [] where item["$ref"] != nil {
                    if let target = try? workspace.resolve(Cursor(node: item, file: cursor.file, pointer: "")) {
                        members.insert(Self.id(of: target))
                    }
                }
            }
        }
        allOfMembers[exactKey(cursor.file)] = members
        return members.contains(Self.id(of: cursor))
    }

    /// The named object type for `shape`, declared at `cursor` (its id and location).
    mutating func makeObject(_ cursor: Cursor, name: String, parent: String?, documentation: Documentation, shape: ObjectShape) -> TypeReference {
        let id = Self.id(of: cursor)
        let required = Set(shape.required.map(\.key))
        let declared = Set(shape.properties.map(\.key))
        warnAboutUndeclaredRequired(shape, of: name, at: cursor)
        if declared.isEmpty {
            diagnostics.warning("object schema '\(name)' declares no properties; its contents are not decoded", at: cursor.declarationLocation)
        }

        // Reserve the slot first so nested types come after their parent, in file order.
        let index = types.count
        types.append(NamedType(
            id: id, preferredName: name, swiftName: cursor.node["x-swift-name"]?.string,
            kind: .object([]), documentation: documentation,
            origin: Origin(location: cursor.declarationLocation, reference: workspace.displayReference(cursor)), parent: parent))
        typeIndex[id] = index

        var members: [Property] = []
        // By Swift's `String ==`, as `JSONDecoder` looks keys up: `café` written two ways is one key there.
        var keys: [String: String] = [:]
        for (key, keyLocation, propertyCursor) in shape.properties {
            // `key: false`: the property can never be present, so the type has no member for it.
            if propertyCursor.node.scalar?.bool == false { continue }
            if let earlier = keys[key], !earlier.unicodeScalars.elementsEqual(key.unicodeScalars) {
                diagnostics.unsupported(
                    "properties '\(Self.spelledByScalars(earlier))' and '\(Self.spelledByScalars(key))' of '\(name)' differ only in Unicode normalization; JSONDecoder finds keys "
                        + "by Swift's string equality, so both would read one value (rename one)",
                    at: keyLocation)
                continue
            }
            keys[key] = key
            guard let type = type(of: propertyCursor, name: key, parent: id) else { continue }
            var propertyDocs = self.documentation(of: propertyCursor)
            if propertyCursor.isReference, propertyDocs.description == nil, case .named = type {
                // A named type documents itself.
            } else if propertyCursor.isReference, let target = try? workspace.resolve(propertyCursor) {
                let targetDocs = self.documentation(of: target)
                propertyDocs.summary = propertyDocs.summary ?? targetDocs.summary
                propertyDocs.description = propertyDocs.description ?? targetDocs.description
                propertyDocs.notes += targetDocs.notes
            }
            let nullable = isNullable(propertyCursor)
            members.append(Property(
                jsonName: key,
                swiftName: propertyCursor.node["x-swift-name"]?.string,
                type: type,
                constant: Self.constant(of: propertyCursor),
                isOptional: !required.contains(key) || nullable,
                encodesNull: required.contains(key) && nullable,
                documentation: propertyDocs,
                origin: Origin(location: keyLocation, reference: workspace.displayReference(propertyCursor))))
        }
        types[index].kind = .object(members)
        types[index].rejectsOtherKeys = shape.extras?.node.scalar?.bool == false
        if let extras = shape.extras, !declared.isEmpty {
            if extras.node.entries != nil {
                types[index].extraProperties = elementType(of: extras, name: name + "Value", parent: id)
            } else if extras.node.scalar?.bool == true {
                types[index].extraProperties = .json
            }
        }
        return .named(id)
    }

    private mutating func stringEnum(_ cursor: Cursor, values: Cursor, name: String, parent: String?, documentation: Documentation) -> TypeReference? {
        guard let items = values.node.items, !items.isEmpty else {
            diagnostics.error("'enum' must be a non-empty list", at: values.location)
            return nil
        }
        var cases: [EnumValue] = []
        for item in items {
            guard let scalar = item.scalar else {
                diagnostics.error("enum values must be scalars, found \(item.kindDescription)", at: item.location)
                return nil
            }
            if scalar.isNull { continue }  // `null` in the enum makes the property optional
            cases.append(EnumValue(value: scalar.text, location: item.location))
        }
        let id = Self.id(of: cursor)
        typeIndex[id] = types.count
        types.append(NamedType(
            id: id, preferredName: name, swiftName: cursor.node["x-swift-name"]?.string,
            kind: .stringEnum(cases), documentation: documentation,
            origin: Origin(location: cursor.declarationLocation, reference: workspace.displayReference(cursor)), parent: parent))
        return .named(id)
    }

    /// Keywords that only narrow which values are valid, never widen them: the Swift type of the
    /// rest of the schema holds every valid value, so they are documented, not enforced (like
    /// `minimum`). Keyword → how the doc comment names it.
    static let constraintKeywords: KeyValuePairs<String, String> = [
        "not": "`not`", "if": "`if`/`then`/`else`", "then": "`if`/`then`/`else`", "else": "`if`/`then`/`else`",
        "dependentRequired": "`dependentRequired`", "dependentSchemas": "`dependentSchemas`",
        "propertyNames": "`propertyNames`", "contains": "`contains`", "minContains": "`minContains`", "maxContains": "`maxContains`",
        "unevaluatedProperties": "`unevaluatedProperties`", "unevaluatedItems": "`unevaluatedItems`",
        // Containers of subschemas that `$ref`s point into; they constrain nothing themselves.
        "$defs": "", "definitions": "",
    ]

    /// Keywords documented as a note, with their labels, in the order notes are written (built
    /// once, not for every schema).
    private static let scalarNotes: [(key: String, label: String)] = [
        ("format", "Format"), ("minimum", "Minimum"), ("maximum", "Maximum"),
        ("exclusiveMinimum", "Exclusive minimum"), ("exclusiveMaximum", "Exclusive maximum"),
        ("multipleOf", "Multiple of"), ("pattern", "Pattern"), ("minLength", "Minimum length"),
        ("maxLength", "Maximum length"), ("minItems", "Minimum items"), ("maxItems", "Maximum items"),
        ("default", "Default"), ("const", "Always"), ("example", "Example"),
        ("discriminator", "Derived types are told apart by the property"),
    ]

    /// Every key `documentation(of:)` reads besides `title` and `description`.
    private static let noteKeys = Set(scalarNotes.map(\.key) + constraintKeywords.map(\.key) + ["allOf", "enum", "deprecated"])

    /// Description plus the constraints that are documented but not enforced on decode.
    func documentation(of cursor: Cursor) -> Documentation {
        let node = cursor.node
        var docs = Documentation(summary: node["title"]?.string, description: node["description"]?.string)
        // Most schemas hold none of the keys below: one pass over their keys instead of a lookup per keyword.
        guard let entries = node.entries, entries.contains(where: { Self.noteKeys.contains($0.key) }) else { return docs }
        // `allOf: [{$ref: X}, {description: …}]` documents through an annotation-only member.
        for member in node["allOf"]?.items ?? [] {
            guard let keys = member.entries?.map(\.key), Set(keys).isSubset(of: Self.annotationKeys) else { continue }
            docs.summary = docs.summary ?? member["title"]?.string
            docs.description = docs.description ?? member["description"]?.string
        }
        for (key, label) in Self.scalarNotes {
            guard let value = node[key]?.scalar, !value.isNull else { continue }
            if key == "format", value.text == "date-time" { continue }
            docs.notes.append("\(label): `\(value.text)`")
        }
        if node["type"]?.string == "integer" || node["type"]?.string == "number",
           let values = node["enum"]?.items?.compactMap({ $0.scalar?.text }) {
            docs.notes.append("Allowed values: " + values.map { "`\($0)`" }.joined(separator: ", "))
        }
        var constraints: [String] = []
        for (key, shown) in Self.constraintKeywords where !shown.isEmpty && node[key] != nil && !constraints.contains(shown) {
            constraints.append(shown)
        }
        if !constraints.isEmpty { docs.notes.append("Also constrained by " + constraints.joined(separator: ", ") + " (not enforced)") }
        docs.isDeprecated = node["deprecated"]?.scalar?.bool == true
        return docs
    }
}
