import ChannelCodegen
import ChildProcessSupport
import Foundation
import SeededRandom
import Testing

/// Seeded random specs drawn from the hostile pools: every spec must be accepted, and everything
/// it generates (models, channels, subscriptions, notifier, mocks) must type-check. The seed is
/// fixed so a failure reproduces; `CHANNELGEN_SPEC_SEED=<n>` explores others.
@Suite("Random specs")
struct RandomSpecTests {
    static let count = 320
    static let seed = ProcessInfo.processInfo.environment["CHANNELGEN_SPEC_SEED"].flatMap(UInt64.init) ?? 20_261_122

    @Test func everyRandomSpecIsAcceptedAndTypeChecks() async throws {
        let work = try TestSupport.temporaryDirectory()
        // `CHANNELGEN_KEEP_SPECS=1` keeps the specs and generated files for a failure's investigation.
        defer { if ProcessInfo.processInfo.environment["CHANNELGEN_KEEP_SPECS"] == nil { try? FileManager.default.removeItem(at: work) } }
        // Hundreds of in-process generations: on a thread of its own, so loopback tests keep moving.
        let (units, rejections) = try await offThePool { () throws -> ([TypeCheckSupport.Unit], [String]) in
            var random = SplitMix64(seed: Self.seed)
            var units: [TypeCheckSupport.Unit] = [], rejections: [String] = []
            for index in 0..<Self.count {
                var spec = RandomSpec.make(using: &random)
                var flags = SplitMix64(seed: Self.seed &+ 0x0F1A_6500 &+ UInt64(index))
                RandomSpec.drawOwnStreams(in: &spec, using: &flags)
                let label = "seed \(Self.seed) spec \(index)"
                // Every access modifier in turn: `package` and internal output must compile as well as public.
                let access = GeneratorConfig.AccessModifier.allCases[index % GeneratorConfig.AccessModifier.allCases.count]
                let (unit, diagnostics) = try TypeCheckSupport.generate(spec.yaml, label: label, index: index, in: work) { $0.accessModifier = access }
                if let unit { units.append(unit) } else { rejections.append("\(label) was rejected:\n\(diagnostics.joined(separator: "\n"))\n\(spec.yaml)") }
            }
            return (units, rejections)
        }
        #expect(rejections.isEmpty, "\(rejections.prefix(5).joined(separator: "\n\n"))")
        #expect(units.count == Self.count)
        // Own streams with final and error messages were drawn, and generated.
        let subscriptions = units.flatMap(\.files).filter { $0.name == OutputFile.subscriptions.rawValue }.map(\.contents)
        let ownStreams = subscriptions.filter { $0.contains("isOwnStream: Bool = true") }
        #expect(ownStreams.contains { $0.contains("finalEventNames: Set<String> = [\"") } && ownStreams.contains { $0.contains("errorEventNames: Set<String> = [\"") },
                "\(ownStreams.count) specs with own streams")
        // Four compiler runs, two at a time.
        let quarter = (units.count + 3) / 4
        let batches = stride(from: 0, to: units.count, by: quarter).map { Array(units[$0..<min($0 + quarter, units.count)]) }
        var errors: [String] = []
        for pair in stride(from: 0, to: batches.count, by: 2) {
            let first = batches[pair], second = pair + 1 < batches.count ? batches[pair + 1] : []
            async let a = TypeCheckSupport.typecheck(first, in: work)
            async let b = second.isEmpty ? [] : TypeCheckSupport.typecheck(second, in: work)
            errors += try await a + b
        }
        #expect(errors.isEmpty, "\(errors.prefix(20).joined(separator: "\n"))")
    }
}

/// Draws specs from pools of ordinary and hostile names and texts.
enum RandomSpec {
    static let names = [
        "id", "name", "Name", "NAME", "type", "Type", "self", "Self", "init", "class", "default", "protocol", "String", "Date",
        "Data", "Error", "Result", "Optional", "Codable", "CodingKeys", "codingKeys", "unknown", "Unknown", "knownCases",
        "rawValue", "hashValue", "Channels", "Event", "AsyncStream", "ChannelSegment", "Decoder", "Encoder", "Hasher", "Bool",
        "été", "日付", "🚀", "☀", "", "_", "1abc", "a b", "user_id", "userId", "user-id", "eventType", "timestamp", "source",
        "parameters", "channel", "template", "value", "Value", "items", "Item", "PASSWORD_CHANGED", "*/", "\r\n", "x.y",
        "Swift", "Foundation", "ChannelRuntime", "ISO8601Timestamp", "ISO8601", "ISO8601Coded", "description", "encode", "container", "state", "status",
        "additionalProperties", "ExtraPropertyKey", "others", "tag", "Case1", "ChannelPathError", "ChannelTemplate",
        // Canonically equivalent, but two JSON keys: `é` as U+00E9 and as `e` + U+0301.
        "caf\u{E9}", "cafe\u{301}", "Caf\u{E9}", "Cafe\u{301}",
    ]
    static let parameterNames = ["userId", "user_id", "orgId", "self", "channel", "parameters", "source", "Type", "\u{E9}t\u{E9}", "e\u{301}te\u{301}", "id", "init", "value"]
    static let texts = [
        "Plain.", "Two\nlines", "CR\rpublic static let injected = 1", "*/ /* //", "\"q\" \\b \\(x)", "\u{2028}LS", "\u{85}NEL",
        "\u{1B}[1mbold", "\u{202E}rtl", "", "#\"raw\"#", "tab\there", "trailing   ", "é 日付 🚀",
    ]

    /// `nullableElements`: array items and map values may also be `null`, in every spelling, and
    /// boolean schemas and type lists appear (the decode suite's draw; the type-check suite keeps
    /// its seed's specs as they were).
    static func make(using random: inout SplitMix64, nullableElements: Bool = false) -> SpecBuilder {
        var schemaNames = unique(count: Int.random(in: 1...4, using: &random), from: names, using: &random)
        if schemaNames.isEmpty { schemaNames = ["Payload"] }
        var schemas: [SpecBuilder.Schema] = []
        for (index, name) in schemaNames.enumerated() {
            // References point forward, or anywhere (the schema itself included) for types that contain themselves.
            let later = Bool.random(using: &random) ? Array(schemaNames[(index + 1)...]) : schemaNames
            let propertyNames = unique(count: Int.random(in: 0...6, using: &random), from: names, using: &random)
            let properties = propertyNames.map { propertyName in
                SpecBuilder.PropertySpec(
                    name: propertyName, schema: schema(depth: 0, refs: later, nullableElements: nullableElements, using: &random),
                    required: Bool.random(using: &random))
            }
            schemas.append(SpecBuilder.Schema(
                name: name, description: texts.randomElement(using: &random)!, properties: properties))
        }
        let channelKeys = unique(count: Int.random(in: 1...4, using: &random), from: names, using: &random)
        let operationIds = unique(count: channelKeys.count, from: names.map { $0 + "Values" } + names, using: &random)
        var channels: [SpecBuilder.ChannelSpec] = []
        for (index, key) in channelKeys.enumerated() {
            var parameters = unique(count: Int.random(in: 0...2, using: &random), from: parameterNames, using: &random)
            var address: String? = (["ns", "c\(index)"] + parameters.map { "{\($0)}" }).joined(separator: "/")
            if let earlier = channels.randomElement(using: &random), Int.random(in: 0..<4, using: &random) == 0 {
                // Channels multiplexed on one address.
                (address, parameters) = (earlier.address, earlier.parameters)
            } else if Int.random(in: 0..<8, using: &random) == 0 {
                // No address: open, each subscription names its channel (and a send to it is skipped).
                (address, parameters) = (nil, [])
            }
            var channel = SpecBuilder.ChannelSpec(
                key: key, address: address, parameters: parameters, operationId: operationIds[index],
                messageName: Bool.random(using: &random) ? texts.randomElement(using: &random)! : nil,
                payload: schemaNames.randomElement(using: &random)!, description: texts.randomElement(using: &random)!)
            if Int.random(in: 0..<4, using: &random) == 0 {
                // A multiplexed channel: more messages, keyed and named by hostile texts.
                let keys = unique(count: Int.random(in: 1...3, using: &random), from: names.filter { $0 != "message" }, using: &random)
                channel.moreMessages = keys.map { key in
                    (key, Bool.random(using: &random) ? texts.randomElement(using: &random)! : nil, schemaNames.randomElement(using: &random)!)
                }
            }
            if Int.random(in: 0..<4, using: &random) == 0 {
                // Messages a transport may not carry as JSON: served as events with no body or as
                // text, or skipped alone, never their channel.
                let kinds = [
                    "{name: \(TypeCheckSupport.yaml(texts.randomElement(using: &random)!))}",
                    "{contentType: application/octet-stream, payload: {type: string, format: binary}}",
                    "{contentType: text/plain, payload: {type: string}}",
                    "{payload: {type: 'null'}}",
                ]
                let keys = unique(count: Int.random(in: 1...2, using: &random), from: names.filter { $0 != "message" }, using: &random)
                    .filter { key in !channel.moreMessages.contains { $0.key.unicodeScalars.elementsEqual(key.unicodeScalars) } }
                channel.writtenMessages = keys.map { ($0, kinds.randomElement(using: &random)!) }
            }
            channel.isSend = Int.random(in: 0..<4, using: &random) == 0
            channels.append(channel)
        }
        var spec = SpecBuilder(
            title: (names + texts).randomElement(using: &random)!, text: texts.randomElement(using: &random)!,
            channels: channels, schemas: schemas)
        // Components that may be `null`, for items and values that reference one (`element`).
        if nullableElements { spec.rawSchemas = nullableComponents.filter { !schemaNames.contains($0.name) } }
        return spec
    }

    /// Own streams (`x-request-stream`), their final and error messages, and those flags where they
    /// have no effect (warned about): drawn from a generator of their own, so a seed's specs stay
    /// what they were otherwise.
    static func drawOwnStreams(in spec: inout SpecBuilder, using random: inout SplitMix64) {
        for index in spec.channels.indices {
            spec.channels[index].isOwnStream = Int.random(in: 0..<3, using: &random) == 0
            guard spec.channels[index].isOwnStream || Int.random(in: 0..<6, using: &random) == 0 else { continue }
            for key in ["message"] + spec.channels[index].moreMessages.map(\.key) {
                if Int.random(in: 0..<3, using: &random) == 0 { spec.channels[index].finalMessageKeys.append(key) }
                if Int.random(in: 0..<4, using: &random) == 0 { spec.channels[index].errorMessageKeys.append(key) }
            }
        }
    }

    /// One spec in ten gets a payload of 65 to 100 properties (a wide object, kept in parts of at
    /// most 64) on a channel of its own; drawn from a generator of its own, like `drawOwnStreams`.
    /// Its properties are of the plainer kinds (and references): the parts are what is tried here.
    static func drawWideObject(in spec: inout SpecBuilder, using random: inout SplitMix64) {
        guard Int.random(in: 0..<10, using: &random) == 0 else { return }
        // Not the names one normalization apart: two of them would put the object outside the subset.
        let pool = names.filter { !$0.unicodeScalars.contains("\u{301}") }
        let properties = unique(count: Int.random(in: 65...100, using: &random), from: pool, using: &random)
        let refs = spec.schemas.map(\.name)
        let schemas = properties.map { "\(TypeCheckSupport.yaml($0)): \(schema(depth: 2, refs: refs, nullableElements: true, using: &random))" }
        let required = properties.shuffled(using: &random).prefix(3).map(TypeCheckSupport.yaml)
        spec.rawSchemas.append((name: "Wide", yaml: "{type: object, required: [\(required.joined(separator: ", "))], properties: {\(schemas.joined(separator: ", "))}}"))
        spec.channels.append(SpecBuilder.ChannelSpec(key: "wide", address: "ns/wide", parameters: [], operationId: "wideValues", messageName: nil, payload: "Wide"))
    }

    /// Nullable component schemas the decode suite's items and values may `$ref`.
    static let nullableComponents = [
        (name: "MaybeText", yaml: "{type: string, nullable: true}"),
        (name: "MaybeCount", yaml: "{type: [integer, 'null'], format: int64}"),
        (name: "MaybeWhen", yaml: "{oneOf: [{type: string, format: date-time}, {type: 'null'}]}"),
    ]

    /// A property schema as a YAML flow mapping.
    static func schema(depth: Int, refs: [String], nullableElements: Bool = false, using random: inout SplitMix64) -> String {
        let y = TypeCheckSupport.yaml
        let doc = "description: \(y(texts.randomElement(using: &random)!))"
        if nullableElements, Int.random(in: 0..<6, using: &random) == 0 {
            // The decode suite's other valid forms: boolean schemas inside compositions and unions,
            // and a list of several types.
            let inner = schema(depth: depth + 1, refs: refs, nullableElements: nullableElements, using: &random)
            switch Int.random(in: 0..<4, using: &random) {
            case 0: return "{allOf: [true, \(inner)]}"
            case 1: return "{oneOf: [false, {type: boolean}, \(inner)]}"
            case 2: return "{type: array, items: true}"
            default: return "{type: [string, integer, 'null'], format: int64, \(doc)}"
            }
        }
        switch Int.random(in: 0..<(depth < 2 ? 22 : 8), using: &random) {
        case 0:
            // Half the strings are fixed (`const`): what tells messages, and channels on one address, apart.
            return Bool.random(using: &random) ? "{type: string, \(doc)}" : "{type: string, const: \(y(texts.randomElement(using: &random)!))}"
        case 1: return "{type: integer, format: \(["int32", "int64", "int"].randomElement(using: &random)!)}"
        case 2: return "{type: number, example: \(y(texts.randomElement(using: &random)!))}"
        case 3: return "{type: boolean, nullable: true}"
        case 4: return "{type: string, format: date-time, \(doc)}"
        case 5:
            let values = unique(count: Int.random(in: 1...5, using: &random), from: names + texts, using: &random)
            return "{type: string, enum: [\(values.map(y).joined(separator: ", "))], \(doc)}"
        case 6:
            guard let target = refs.randomElement(using: &random) else { return "{type: string}" }
            return "{$ref: \(TypeCheckSupport.reference("components/schemas", target))}"
        case 7: return "{type: [string, 'null'], pattern: \(y(texts.randomElement(using: &random)!))}"
        case 8: return "{type: array, items: \(element(schema(depth: depth + 1, refs: refs, nullableElements: nullableElements, using: &random), nullableElements, &random))}"
        case 9: return "{type: object, additionalProperties: \(element(schema(depth: depth + 1, refs: refs, nullableElements: nullableElements, using: &random), nullableElements, &random))}"
        case 12:
            // allOf of a component (or an object) and an object that may redeclare its properties,
            // or of a union and an object (a struct holding both).
            var base = refs.randomElement(using: &random).map { "{$ref: \(TypeCheckSupport.reference("components/schemas", $0))}" }
                ?? objectSchema(depth: depth, refs: refs, nullableElements: nullableElements, using: &random)
            if Int.random(in: 0..<3, using: &random) == 0 {
                base = "{oneOf: [\(objectSchema(depth: depth, refs: refs, nullableElements: nullableElements, using: &random)), \(base)]}"
            }
            return "{allOf: [\(base), \(objectSchema(depth: depth, refs: refs, nullableElements: nullableElements, using: &random))], \(doc)}"
        case 13:
            // A documented reference: the referenced type itself.
            let target = refs.randomElement(using: &random).map { "{$ref: \(TypeCheckSupport.reference("components/schemas", $0))}" } ?? "{type: string}"
            return "{allOf: [\(target), {\(doc)}]}"
        case 14 where refs.count >= 2:
            // oneOf of components told apart by a discriminator whose mapping keys are hostile texts.
            let targets = Array(refs.shuffled(using: &random).prefix(Int.random(in: 2...3, using: &random)))
            let keys = unique(count: targets.count, from: texts, using: &random)
            let mapping = zip(keys, targets).filter { _ in Bool.random(using: &random) }.map { key, target in
                "\(y(key)): \(TypeCheckSupport.reference("components/schemas", target))"
            }
            let variants = targets.map { "{$ref: \(TypeCheckSupport.reference("components/schemas", $0))}" }
            return "{oneOf: [\(variants.joined(separator: ", "))], discriminator: {propertyName: \(y(names.randomElement(using: &random)!)), mapping: {\(mapping.joined(separator: ", "))}}}"
        case 14, 15:
            // anyOf of inline schemas (objects, primitives, null), tried in order.
            let variants = (0..<Int.random(in: 2...3, using: &random)).map { _ in
                Bool.random(using: &random) ? objectSchema(depth: depth, refs: refs, nullableElements: nullableElements, using: &random) : schema(depth: depth + 1, refs: refs, nullableElements: nullableElements, using: &random)
            } + (Bool.random(using: &random) ? ["{type: 'null'}"] : [])
            return "{anyOf: [\(variants.joined(separator: ", "))], \(doc)}"
        case 16:
            // Boolean schemas (`true`: any value) and a placeholder that is always null.
            return Bool.random(using: &random) ? "true" : "{type: 'null', \(doc)}"
        case 17:
            // Keys by pattern: a dictionary, or beside properties the struct's other keys.
            let value = element(schema(depth: depth + 1, refs: refs, nullableElements: nullableElements, using: &random), nullableElements, &random)
            let beside = Bool.random(using: &random) ? "properties: {\(y(names.randomElement(using: &random)!)): {type: string}, never: false}, " : ""
            return "{type: object, \(beside)patternProperties: {\(y(texts.randomElement(using: &random)!)): \(value)}}"
        case 18, 19:
            // Properties beside a union of objects: the allOf of the object and the union.
            let keyword = Bool.random(using: &random) ? "oneOf" : "anyOf"
            let variants = (0..<Int.random(in: 1...3, using: &random)).map { _ in
                refs.randomElement(using: &random).map { "{$ref: \(TypeCheckSupport.reference("components/schemas", $0))}" } ?? objectSchema(depth: depth, refs: refs, nullableElements: nullableElements, using: &random)
            }
            return "{type: object, properties: {\(y(names.randomElement(using: &random)!)): {type: string}}, \(keyword): [\(variants.joined(separator: ", "))]}"
        case 20 where !refs.isEmpty:
            // A union listing one component twice (the component may be the one being declared).
            let target = "{$ref: \(TypeCheckSupport.reference("components/schemas", refs.randomElement(using: &random)!))}"
            return "{\(Bool.random(using: &random) ? "oneOf" : "anyOf"): [\(target), \(target)\(Bool.random(using: &random) ? ", {type: 'null'}" : "")]}"
        case 21:
            // A chain of allOf, each holding the next.
            var chain = refs.randomElement(using: &random).map { "{$ref: \(TypeCheckSupport.reference("components/schemas", $0))}" }
                ?? objectSchema(depth: depth, refs: refs, nullableElements: nullableElements, using: &random)
            for _ in 0..<Int.random(in: 2...40, using: &random) { chain = "{allOf: [\(chain)]}" }
            return chain
        default:
            let properties = unique(count: Int.random(in: 1...4, using: &random), from: names, using: &random).map { name in
                "\(y(name)): \(schema(depth: depth + 1, refs: refs, nullableElements: nullableElements, using: &random))"
            }
            return "{type: object, \(doc), properties: {\(properties.joined(separator: ", "))}}"
        }
    }

    /// An array's items or a map's values, allowed to be `null` half the time when `nullable` (in
    /// every spelling: a type list, `nullable: true`, `oneOf`/`anyOf` with null, a `$ref` to a
    /// nullable component); as drawn otherwise.
    static func element(_ schema: String, _ nullable: Bool, _ random: inout SplitMix64) -> String {
        guard nullable, schema.hasPrefix("{"), !schema.contains("nullable:"), Bool.random(using: &random) else { return schema }
        switch Int.random(in: 0..<5, using: &random) {
        case 4:
            let target = nullableComponents.randomElement(using: &random)!.name
            return "{$ref: \(TypeCheckSupport.reference("components/schemas", target))}"
        case 0 where schema.hasPrefix("{type: string") || schema.hasPrefix("{type: integer") || schema.hasPrefix("{type: number"):
            // `{type: string, …}` → `{type: [string, 'null'], …}`
            let rest = schema.dropFirst("{type: ".count)
            let word = rest.prefix { $0.isLetter }
            return "{type: [\(word), 'null']" + rest.dropFirst(word.count)
        case 0, 1: return "{nullable: true, " + schema.dropFirst()
        case 2: return "{oneOf: [\(schema), {type: 'null'}]}"
        default: return "{anyOf: [\(schema), {type: 'null'}]}"
        }
    }

    /// An inline object schema with one to four properties.
    static func objectSchema(depth: Int, refs: [String], nullableElements: Bool = false, using random: inout SplitMix64) -> String {
        let properties = unique(count: Int.random(in: 1...4, using: &random), from: names, using: &random).map { name in
            "\(TypeCheckSupport.yaml(name)): \(schema(depth: depth + 1, refs: refs, nullableElements: nullableElements, using: &random))"
        }
        let required = properties.isEmpty || Bool.random(using: &random) ? "" : ", required: [\(TypeCheckSupport.yaml(names.randomElement(using: &random)!))]"
        let extras: String
        switch Int.random(in: 0..<4, using: &random) {
        case 0: extras = ", additionalProperties: true"
        case 1: extras = ", additionalProperties: \(element(schema(depth: depth + 1, refs: refs, nullableElements: nullableElements, using: &random), nullableElements, &random))"
        default: extras = ""
        }
        return "{type: object, properties: {\(properties.joined(separator: ", "))}\(required)\(extras)}"
    }

    /// `count` distinct names drawn from `pool` (a repeat gets a numeric suffix, as a YAML key must be unique).
    static func unique(count: Int, from pool: [String], using random: inout SplitMix64) -> [String] {
        var chosen: [String] = []
        for _ in 0..<count {
            var element = pool.randomElement(using: &random)!
            // By scalars, as keys are: `café` written two ways may both be drawn.
            while chosen.contains(where: { $0.unicodeScalars.elementsEqual(element.unicodeScalars) }) { element += "\(chosen.count)" }
            chosen.append(element)
        }
        return chosen
    }
}
