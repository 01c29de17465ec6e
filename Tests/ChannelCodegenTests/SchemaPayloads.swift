@testable import ChannelSpec
import Foundation
import SeededRandom

/// Random JSON that a schema allows, read from the spec's own YAML, not from the generator's types:
/// those are what is under test, and a payload drawn from them could never show a model too narrow
/// for its schema. Nulls where the schema allows them, edge numbers, hostile strings, unknown keys.
///
/// The subset is what random specs write (DESIGN §4 and `RandomSpec`). Where the value would have to
/// meet two schemas at once (a property an `allOf` member declares again, a discriminator property a
/// variant types as a number), or where no finite value exists (a required chain back to itself),
/// `value` returns `nil` and the caller counts the schema as one it could not draw for.
struct SchemaPayloads {
    /// The document the schemas' `$ref`s point into.
    let document: YAMLNode
    var random: SplitMix64
    /// Inside an `allOf`, objects get no unknown keys: another member's `additionalProperties` may not allow them.
    private var allOfDepth = 0
    /// Inside a union of several variants tried in order, an earlier variant may take the value and keep
    /// only its own keys: nothing drawn there must be kept.
    private var ambiguousDepth = 0

    init(document: YAMLNode, random: SplitMix64) {
        self.document = document
        self.random = random
    }

    indirect enum JSON {
        case null, bool(Bool), integer(Int64), number(Double), string(String), array([JSON]), object([Member])

        /// A key and its value; `kept`: a model must write it back (a declared property, not under an
        /// ambiguous union), so a model that loses it is caught (`DecodeCheck.keyFailures`).
        struct Member {
            var key: String
            var value: JSON
            var kept = false
        }

        var text: String {
            switch self {
            case .null: "null"
            case .bool(let value): value ? "true" : "false"
            case .integer(let value): String(value)
            case .number(let value): "\(value)"
            case .string(let value): Self.quoted(value)
            case .array(let items): "[" + items.map(\.text).joined(separator: ",") + "]"
            case .object(let members): "{" + members.map { Self.quoted($0.key) + ":" + $0.value.text }.joined(separator: ",") + "}"
            }
        }

        /// How many members of the value, at every depth, must be written back.
        var keptCount: Int {
            switch self {
            case .array(let items): items.reduce(0) { $0 + $1.keptCount }
            case .object(let members): members.reduce(0) { $0 + ($1.kept ? 1 + $1.value.keptCount : 0) }
            default: 0
            }
        }

        /// The value with only its kept members, at every depth: what a model must write back.
        var kept: JSON {
            switch self {
            case .array(let items): .array(items.map(\.kept))
            case .object(let members): .object(members.filter(\.kept).map { Member(key: $0.key, value: $0.value.kept, kept: true) })
            default: self
            }
        }

        /// A JSON string: the YAML double-quoted scalar `TypeCheckSupport.yaml` writes uses only escapes JSON has.
        static func quoted(_ text: String) -> String { TypeCheckSupport.yaml(text) }
    }

    static let strings = ["", "a", "Plain text", "é 日付 🚀", "cafe\u{301}", "\"q\" \\ /", "line\nbreak\t", "\u{1B}[1m", "2026-11-27T12:00:00Z", "null", "0"]
    static let dates = ["2026-11-27T12:34:56Z", "2026-11-27T12:34:56.789Z", "1999-01-01T00:00:00+08:00", "2030-06-30T23:59:59.5-03:30"]
    static let maximumDepth = 6

    /// A value the schema `node` allows, or `nil` when none was found (see the type's comment).
    mutating func value(for node: YAMLNode, depth: Int = 0) -> JSON? {
        guard depth <= Self.maximumDepth else { return nil }
        if let bool = node.scalar?.bool { return bool ? anyValue(depth: depth) : nil }
        if admitsNull(node), Int.random(in: 0..<4, using: &random) == 0 { return .null }
        if let reference = node["$ref"]?.string {
            guard let target = resolve(reference) else { return nil }
            return value(for: target, depth: depth + 1)
        }
        if let constant = node["const"], constant.scalar != nil { return scalarValue(constant, typed: typeName(of: node)) }
        if let members = node["allOf"]?.items { return allOf(members, beside: node, depth: depth) }
        for keyword in ["oneOf", "anyOf"] {
            guard let variants = node[keyword]?.items else { continue }
            if node["properties"] != nil {
                // Properties beside the union: an object meeting both.
                let rewritten = YAMLNode(.mapping((node.entries ?? []).filter { $0.key != keyword }), at: node.location)
                return allOf([rewritten, YAMLNode(.mapping([YAMLNode.Entry(key: keyword, keyLocation: node.location, value: node[keyword]!)]), at: node.location)], beside: YAMLNode(.mapping([]), at: node.location), depth: depth)
            }
            return union(variants, of: node, depth: depth)
        }
        if let values = node["enum"]?.items, !values.isEmpty {
            return scalarValue(values.randomElement(using: &random)!, typed: typeName(of: node))
        }
        switch typeName(of: node) {
        case "null": return .null
        case "boolean": return .bool(Bool.random(using: &random))
        case "string":
            if node["format"]?.string == "date-time" { return .string(Self.dates.randomElement(using: &random)!) }
            return .string(Self.strings.randomElement(using: &random)!)
        case "integer":
            switch node["format"]?.string {
            case "int32": return .integer([0, -1, 42, Int64(Int32.max), Int64(Int32.min)].randomElement(using: &random)!)
            default: return .integer([0, -1, 42, Int64.max, Int64.min].randomElement(using: &random)!)
            }
        case "number": return .number([0, 1.5, -2.25, 1e10, 3].randomElement(using: &random)!)
        case "array":
            guard let items = node["items"] else { return .array((0..<Int.random(in: 0...2, using: &random)).map { _ in anyValue(depth: depth + 1) }) }
            guard items.items == nil else { return nil }
            var elements: [JSON] = []
            for _ in 0..<Int.random(in: 0...3, using: &random) {
                guard let element = value(for: items, depth: depth + 1) else { return .array([]) }
                elements.append(element)
            }
            return .array(elements)
        case "object": return object(node, depth: depth)
        default: return anyValue(depth: depth)
        }
    }

    // MARK: Objects

    private mutating func object(_ node: YAMLNode, depth: Int) -> JSON? {
        var members: [JSON.Member] = []
        let required = Set((node["required"]?.items ?? []).compactMap(\.string).map { $0.unicodeScalars.map(\.value) })
        for entry in node["properties"]?.entries ?? [] {
            if entry.value.scalar?.bool == false { continue }
            let isRequired = required.contains(entry.key.unicodeScalars.map(\.value))
            guard isRequired || Bool.random(using: &random) else { continue }
            guard let value = value(for: entry.value, depth: depth + 1) else {
                if isRequired { return nil } else { continue }
            }
            members.append(JSON.Member(key: entry.key, value: value, kept: ambiguousDepth == 0))
        }
        for name in node["required"]?.items ?? [] {
            // Required but not declared: present, with a value the other keys' schema allows.
            guard let key = name.string, !members.contains(where: { $0.key.unicodeScalars.elementsEqual(key.unicodeScalars) }),
                  !(node["properties"]?.entries ?? []).contains(where: { $0.key.unicodeScalars.elementsEqual(key.unicodeScalars) }) else { continue }
            if node["patternProperties"] != nil || node["additionalProperties"]?.scalar?.bool == false { return nil }
            let schema = node["additionalProperties"].flatMap { $0.entries != nil ? $0 : nil }
            guard let value = schema.map({ value(for: $0, depth: depth + 1) }) ?? anyValue(depth: depth + 1) else { return nil }
            members.append(JSON.Member(key: key, value: value))
        }
        let extras = node["additionalProperties"]
        if allOfDepth == 0, node["patternProperties"] == nil, extras?.scalar?.bool != false, Bool.random(using: &random) {
            // A key no property names (compared by scalars: `café` twice is two keys).
            var key = ["zz-extra", "Extra Key", "é"].randomElement(using: &random)!
            while members.contains(where: { $0.key.unicodeScalars.elementsEqual(key.unicodeScalars) })
                || (node["properties"]?.entries ?? []).contains(where: { $0.key.unicodeScalars.elementsEqual(key.unicodeScalars) }) {
                key += "_"
            }
            let schema = extras.flatMap { $0.entries != nil ? $0 : nil }
            if let value = schema.map({ value(for: $0, depth: depth + 1) }) ?? anyValue(depth: depth + 1) {
                members.append(JSON.Member(key: key, value: value))
            }
        }
        return .object(members)
    }

    /// An object meeting every member: object members merged into one schema (properties, and
    /// `required` names from any member), each union member drawn on its own and its keys added.
    /// `nil` where one value would have to meet two schemas: a property two members declare, or
    /// another member's keys under a member's typed or closed `additionalProperties`.
    private mutating func allOf(_ members: [YAMLNode], beside node: YAMLNode, depth: Int) -> JSON? {
        allOfDepth += 1
        defer { allOfDepth -= 1 }
        // A member of annotations only (`{description: …}`) allows any value: it adds nothing.
        let constraining = members.compactMap { member -> YAMLNode? in
            if member.scalar?.bool == true { return nil }  // `true` allows anything
            var member = member
            while let reference = member["$ref"]?.string, let target = resolve(reference) { member = target }
            return (member.entries ?? []).allSatisfy({ Self.annotations.contains($0.key) }) && member.scalar == nil ? nil : member
        }
        if constraining.count == 1 { return value(for: constraining[0], depth: depth + 1) }
        guard constraining.allSatisfy({ typeName(of: $0) == "object" || $0["oneOf"] != nil || $0["anyOf"] != nil || $0["allOf"] != nil }),
              !constraining.contains(where: restrictsOtherKeys) else { return nil }
        var properties: [YAMLNode.Entry] = [], required: [YAMLNode] = [], unions: [YAMLNode] = []
        for member in constraining {
            if member["properties"] == nil, member["oneOf"] != nil || member["anyOf"] != nil || member["allOf"] != nil {
                unions.append(member)
                continue
            }
            for entry in member["properties"]?.entries ?? [] {
                if properties.contains(where: { $0.key.unicodeScalars.elementsEqual(entry.key.unicodeScalars) }) { return nil }
                properties.append(entry)
            }
            required += member["required"]?.items ?? []
            if member["oneOf"] != nil || member["anyOf"] != nil { unions.append(YAMLNode(.mapping((member.entries ?? []).filter { $0.key == "oneOf" || $0.key == "anyOf" }), at: member.location)) }
        }
        let location = node.location
        let merged = YAMLNode(.mapping([
            YAMLNode.Entry(key: "type", keyLocation: location, value: YAMLNode(.scalar(YAMLScalar(text: "object", isPlain: true)), at: location)),
            YAMLNode.Entry(key: "properties", keyLocation: location, value: YAMLNode(.mapping(properties), at: location)),
            YAMLNode.Entry(key: "required", keyLocation: location, value: YAMLNode(.sequence(required), at: location)),
        ]), at: location)
        guard case .object(var fields)? = value(for: merged, depth: depth + 1) else { return nil }
        for union in unions {
            guard case .object(let more)? = value(for: union, depth: depth + 1) else { return nil }
            for field in more {
                // A key the merged properties declare (drawn or not) must meet that schema too.
                if properties.contains(where: { $0.key.unicodeScalars.elementsEqual(field.key.unicodeScalars) }) { return nil }
                // So must a key another union drew.
                if fields.contains(where: { $0.key.unicodeScalars.elementsEqual(field.key.unicodeScalars) }) { return nil }
                fields.append(field)
            }
        }
        return .object(fields)
    }

    /// Whether a schema constrains the keys it does not name (`additionalProperties` other than
    /// `true`, `patternProperties`), here or in a union, composition or `$ref` it holds.
    private func restrictsOtherKeys(_ node: YAMLNode) -> Bool {
        var pending = [node], seen = 0
        while let next = pending.popLast(), seen < 200 {
            seen += 1
            if let reference = next["$ref"]?.string, let target = resolve(reference) { pending.append(target) }
            if let extras = next["additionalProperties"], extras.scalar?.bool != true { return true }
            if next["patternProperties"] != nil || next["required"] != nil && next["properties"] == nil { return true }
            for keyword in ["oneOf", "anyOf", "allOf"] { pending += next[keyword]?.items ?? [] }
        }
        return false
    }

    static let annotations: Set<String> = ["title", "description", "example", "examples", "deprecated", "default", "x-swift-name"]

    // MARK: Unions

    private mutating func union(_ variants: [YAMLNode], of node: YAMLNode, depth: Int) -> JSON? {
        let nonNull = variants.filter { !isNullSchema($0) && $0.scalar?.bool != false }  // `false` matches nothing
        if nonNull.count < variants.count, Int.random(in: 0..<4, using: &random) == 0 || nonNull.isEmpty { return .null }
        guard let variant = nonNull.randomElement(using: &random) else { return nil }
        guard let discriminator = node["discriminator"] else {
            // One variant beside `null` is no choice; several are tried in order.
            if nonNull.count > 1 { ambiguousDepth += 1 }
            defer { if nonNull.count > 1 { ambiguousDepth -= 1 } }
            return value(for: variant, depth: depth + 1)
        }
        // The discriminator's property names the variant: a mapping key that points at it, or its component's name.
        let property = discriminator.string ?? discriminator["propertyName"]?.string
        guard let property, let reference = variant["$ref"]?.string, let target = resolve(reference) else { return nil }
        let component = JSONPointer.lastToken(String(reference.drop { $0 != "#" }.dropFirst()).removingPercentEncoding ?? "") ?? ""
        let tags = (discriminator["mapping"]?.entries ?? []).filter { entry in
            guard let mapped = entry.value.string else { return false }
            return mapped == reference || mapped == component || JSONPointer.lastToken(String(mapped.drop { $0 != "#" }.dropFirst()).removingPercentEncoding ?? "") == component
        }.map(\.key)
        let tag = tags.randomElement(using: &random) ?? component
        // The property as the variant declares it must allow the tag.
        if let declared = target["properties"]?[property] {
            // A string, or no type at all (a composition may hide one: not drawn for).
            guard declared.scalar?.bool != false, ["$ref", "allOf", "oneOf", "anyOf"].allSatisfy({ declared[$0] == nil }),
                  typeName(of: declared) == "string" || typeName(of: declared) == "any" else { return nil }
            if let values = declared["enum"]?.items, !values.contains(where: { $0.scalar?.text == tag }) { return nil }
            if let constant = declared["const"]?.scalar, constant.text != tag { return nil }
        }
        guard case .object(var fields)? = value(for: target, depth: depth + 1) else { return nil }
        fields.removeAll { $0.key.unicodeScalars.elementsEqual(property.unicodeScalars) }
        fields.append(JSON.Member(key: property, value: .string(tag), kept: ambiguousDepth == 0))
        return .object(fields)
    }

    // MARK: Schema reading

    private func resolve(_ reference: String) -> YAMLNode? {
        guard reference.hasPrefix("#"), let pointer = JSONPointer.percentDecoded(String(reference.dropFirst())),
              let tokens = JSONPointer.tokens(pointer) else { return nil }
        var node = document
        for token in tokens {
            guard let next = node[token] else { return nil }
            node = next
        }
        return node
    }

    private func admitsNull(_ node: YAMLNode) -> Bool {
        if node["nullable"]?.scalar?.bool == true { return true }
        if let types = node["type"]?.items, types.contains(where: { $0.string == "null" || $0.scalar?.isNull == true }) { return true }
        return node["enum"]?.items?.contains { $0.scalar?.isNull == true } ?? false
    }

    private func isNullSchema(_ node: YAMLNode) -> Bool {
        node["type"]?.string == "null" || node["type"]?.scalar?.isNull == true
    }

    /// The schema's one non-null type (`type`, or inferred as JSON Schema implies it), or `any`.
    private mutating func typeName(of node: YAMLNode) -> String {
        if let list = node["type"]?.items {
            let names = list.compactMap(\.string).filter { $0 != "null" }
            return names.randomElement(using: &random) ?? "null"
        }
        if let name = node["type"]?.string { return name }
        if node["properties"] != nil || node["additionalProperties"] != nil || node["patternProperties"] != nil { return "object" }
        if node["items"] != nil { return "array" }
        return "any"
    }

    /// An `enum` or `const` value as JSON: YAML's plain scalars are typed as the schema's type asks.
    private mutating func scalarValue(_ node: YAMLNode, typed type: String) -> JSON {
        guard let scalar = node.scalar, !scalar.isNull else { return .null }
        switch type {
        case "string": return .string(scalar.text)
        case "integer": if let value = scalar.integer { return .integer(Int64(value)) }
        case "number": if let value = scalar.number { return .number(value) }
        case "boolean": if let value = scalar.bool { return .bool(value) }
        default:
            if let value = scalar.bool { return .bool(value) }
            if let value = scalar.integer { return .integer(Int64(value)) }
            if let value = scalar.number { return .number(value) }
        }
        return .string(scalar.text)
    }

    /// Any JSON value (an untyped schema, `true`).
    private mutating func anyValue(depth: Int) -> JSON {
        switch Int.random(in: 0..<(depth < 3 ? 7 : 5), using: &random) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &random))
        case 2: return .integer(Int64.random(in: -1000...1000, using: &random))
        case 3: return .number(2.5)
        case 4: return .string(Self.strings.randomElement(using: &random)!)
        case 5: return .array([anyValue(depth: depth + 1), anyValue(depth: depth + 1)])
        default: return .object([JSON.Member(key: "k", value: anyValue(depth: depth + 1)), JSON.Member(key: "é", value: .null)])
        }
    }
}
