import ChannelSpec

/// `Models.swift`: one `Codable, Hashable, Sendable` struct per object schema, one open enum per
/// string enum. Foundation is imported, and the runtime where dates or untyped values are used.
///
/// Structs use the compiler's `Codable` synthesis (absent and `null` both decode to `nil`, unknown
/// keys are ignored), with a `CodingKeys` enum only where Swift and JSON names differ; date
/// properties are marked `@ISO8601` (the runtime's coder: ISO 8601 whatever the decoder's date
/// strategy), so each struct has one list of properties. Coding is written out only where
/// synthesis cannot do it: open enums (`unknown(String)`), unions, compositions, kept extra
/// properties and properties boxed for recursion.
struct ModelsStructure {
    let api: ChannelAPI
    let names: SwiftNaming
    let types: SwiftTypes
    let access: AccessModifier?
    /// Type id → the event type its required `eventType` property defaults to in the initializer:
    /// the name of the one message the type is the payload of.
    private let eventTypeDefaults: [String: String]

    init(api: ChannelAPI, names: SwiftNaming, types: SwiftTypes, access: AccessModifier?) {
        self.api = api
        self.names = names
        self.types = types
        self.access = access
        self.eventTypeDefaults = Self.eventTypeDefaults(of: api, types: types)
    }

    /// Each payload type of messages that all have one name (a channel's only message, or a message
    /// chosen by `eventType` among several) and its name; a type named differently by two has none.
    private static func eventTypeDefaults(of api: ChannelAPI, types: SwiftTypes) -> [String: String] {
        var found: [String: String?] = [:]
        func note(_ payload: TypeReference, _ name: String?) {
            guard case .named(let id) = payload, let name else { return }
            if let existing = found[id], existing != name { found[id] = .some(nil) } else { found[id] = name }
        }
        for channel in api.channels {
            if case .named(let id) = channel.message.payload, case .union(let union)? = types.namedTypes[id]?.kind, channel.message.name == nil {
                guard union.decoding == .property("eventType") else { continue }
                for variant in union.variants { note(variant.type, variant.tags.first) }
            } else {
                note(channel.message.payload, channel.message.name)
            }
        }
        return found.compactMapValues { $0 }
    }

    func file(header: [String]) -> SwiftFile {
        var declarations = names.typeNames.declarations.map(declaration)
        if !names.boxStorage.isEmpty || api.types.contains(where: { type in
            if case .object(let properties) = type.kind, properties.contains(where: checksConstant) { return true }
            return type.extraProperties != nil || encodesNull(type) || (usesDates(type) && writesOutCoding(type))
        }) {
            declarations.append(inferredDecoding)
        }
        if api.types.contains(where: { $0.extraProperties != nil }) || triesVariants { declarations.append(extraPropertyKey) }
        if !names.boxStorage.isEmpty { declarations.append(indirectBox) }
        if api.types.contains(where: { if case .union = $0.kind { true } else if case .composition = $0.kind { true } else { false } }) {
            declarations.append(inferredValue)
        }
        if !names.recursion.guardedMembers.isEmpty { declarations.append(inPlaceDecoding) }
        // `JSONValue` (untyped schemas, unknown union variants) lives in the runtime; other models need Foundation only.
        let usesJSON = api.types.contains { type in
            switch type.kind {
            case .object(let properties): properties.contains { $0.type.containsJSON } || type.extraProperties?.containsJSON == true
            case .composition(let members): members.contains { $0.type.containsJSON }
            case .union: true
            case .stringEnum: false
            }
        }
        let usesRuntime = usesJSON || api.types.contains(where: usesDates)
        // The enum of an own stream's messages reads the event's name (`CodingUserInfoKey.channelEventName`).
        let readsEventNames = api.types.contains { if case .union(let union) = $0.kind { union.selectsByEventName } else { false } }
        let runtime: [Import] = readsEventNames ? [.runtimeForGeneratedCode] : usesRuntime ? [.runtime] : []
        return SwiftFile(header: header, imports: [.foundation] + runtime, declarations: declarations)
    }

    /// Whether a union decodes by trying its variants (and so reads the value's keys).
    private var triesVariants: Bool {
        api.types.contains { type in
            guard case .union(let union) = type.kind else { return false }
            switch union.decoding {
            case .firstThatDecodes: return true
            case .fixedProperty: return union.variants.contains { $0.tags.isEmpty }
            case .property: return false
            }
        }
    }

    private func usesDates(_ type: NamedType) -> Bool {
        switch type.kind {
        case .object(let properties): properties.contains { $0.type.containsDate } || type.extraProperties?.containsDate == true
        case .composition(let members): members.contains { $0.type.containsDate }
        case .union(let union): union.variants.contains { $0.type.containsDate }
        case .stringEnum: false
        }
    }

    /// Whether `type`'s coding is written out: unions, compositions and enums always; a struct for
    /// kept extra properties or boxed properties. Other structs synthesize it, dates marked `@ISO8601`.
    private func writesOutCoding(_ type: NamedType) -> Bool {
        guard case .object(let properties) = type.kind else { return true }
        return type.extraProperties != nil || names.boxStorage[type.id]?.isEmpty == false || encodesNull(type)
            || properties.contains(where: checksConstant)
    }

    /// A string property fixed to one value: decoding checks it, so a value that names another is not
    /// taken for this type (a union's variant, a channel's message), also where the tag is nested
    /// (`params.source`) and the union tries its variants. `const` always; an enum of one value when
    /// required (a tag): an optional one stays an open enum, which a server may extend.
    private func checksConstant(_ property: Property) -> Bool {
        guard property.constant != nil else { return false }
        if property.type == .string { return true }
        if !property.isOptional, case .named(let id) = property.type, case .stringEnum? = types.namedTypes[id]?.kind { return true }
        return false
    }

    /// Whether an object has a required nullable property: its `nil` is written as `null`.
    private func encodesNull(_ type: NamedType) -> Bool {
        guard case .object(let properties) = type.kind else { return false }
        return properties.contains(where: \.encodesNull)
    }

    private func declaration(_ named: SwiftNaming.TypeDeclarationNames) -> Declaration {
        let (type, name) = (named.type, named.name.local)
        let members: [Declaration]
        let conformances: [Code]
        let keyword: TypeDeclaration.Keyword
        switch type.kind {
        case .object(let properties):
            keyword = .struct
            conformances = [types.swift("Codable"), types.swift("Hashable"), types.swift("Sendable")]
            members = structMembers(type, properties: properties)
                + named.nested.map(declaration)
        case .composition(let values):
            keyword = .struct
            conformances = [types.swift("Codable"), types.swift("Hashable"), types.swift("Sendable")]
            members = structMembers(type, properties: values)
                + named.nested.map(declaration)
        case .stringEnum(let values):
            keyword = .enum
            conformances = [
                types.swift("Codable"), types.swift("Hashable"), types.swift("Sendable"), types.swift("RawRepresentable"),
            ]
            members = enumMembers(type, values: values)
        case .union(let union):
            keyword = names.recursion.indirectUnions.contains(type.id) ? .indirectEnum : .enum
            conformances = [types.swift("Codable"), types.swift("Hashable"), types.swift("Sendable")]
            members = unionMembers(type, union: union)
                + named.nested.map(declaration)
        }
        return Declaration(
            documentation: SwiftTypes.documentation(type.documentation, remark: type.origin.reference),
            isDeprecated: type.documentation.isDeprecated,
            .type(TypeDeclaration(access: access, keyword: keyword, name: .identifier(name), conformances: conformances, members: members)))
    }

    // MARK: Structs

    private func structMembers(_ type: NamedType, properties: [Property]) -> [Declaration] {
        let members = Array(zip(properties, names.properties[type.id] ?? []))
        if let parts = names.wideParts[type.id] { return wideStructMembers(type, members: members, parts: parts) }
        // A property of a type that contains this one is kept in a box (see `Recursion`), behind a
        // property of the same name and type.
        let storage = names.boxStorage[type.id] ?? [:]
        let extras = type.extraProperties.map { (type: $0, map: "[\(types.string): \(types.type($0, in: type.id))]" as Code) }
        let writtenOut = writesOutCoding(type)
        var result: [Declaration] = []
        for (index, (property, name)) in members.enumerated() {
            let documentation = SwiftTypes.documentation(property.documentation, remark: nil)
            let propertyType = types.type(of: property, in: type.id)
            guard let box = storage[index] else {
                let attributes: [Code] = !writtenOut && property.type.containsDate ? ["@\(types.runtime("ISO8601"))"] : []
                result.append(Declaration(
                    documentation: documentation, isDeprecated: property.documentation.isDeprecated,
                    .variable(Variable(attributes: attributes, access: access, binding: .var, name: name, type: propertyType))))
                continue
            }
            result.append(Declaration(
                documentation: documentation, isDeprecated: property.documentation.isDeprecated,
                .variable(Variable(
                    access: access, binding: .var, name: name, type: propertyType,
                    getter: [.code("get { \(box).value }"), .code("set { \(box) = Indirect(newValue) }")]))))
            result.append(Declaration(.variable(Variable(access: .fileprivate, binding: .var, name: box, type: "Indirect<\(propertyType)>"))))
        }

        let extrasName = Identifier("additionalProperties")
        if let extras {
            result.append(Declaration(
                documentation: DocComment(["The properties the schema does not name, by key."]),
                .variable(Variable(access: access, binding: .var, name: extrasName, type: extras.map))))
        }

        // Memberwise initializer; optionals default to nil, a fixed string to its value (a `const`,
        // or the message name an `eventType` announces). A property named `self` needs another
        // local name, or the assignment would read the instance.
        var parameters = members.map { property, name in
            Parameter(
                label: name, localName: name.name == "self" ? Identifier("self_") : nil,
                type: types.type(of: property, in: type.id), defaultValue: defaultValue(of: property, in: type))
        }
        var assignments = zip(members, parameters).enumerated().map { index, pair in
            let (member, parameter) = pair
            let value: Code = "\(parameter.localName ?? member.1)"
            if let box = storage[index] { return Statement.code("self.\(box) = Indirect(\(value))") }
            return Statement.code("self.\(member.1) = \(value)")
        }
        if let extras {
            parameters.append(Parameter(label: extrasName, type: extras.map, defaultValue: "[:]"))
            assignments.append(.code("self.\(extrasName) = \(extrasName)"))
        }
        result.append(Declaration(.function(Function(access: access, name: .initializer, parameters: parameters, body: assignments))))
        if case .composition = type.kind { return result + compositionCoding(type, members: members, storage: storage) }

        let renamed = members.contains { property, name in property.jsonName != name.name }
        if members.isEmpty || (!renamed && !writtenOut) { return result }

        result.append(Declaration(.type(TypeDeclaration(
            keyword: .enum, name: "CodingKeys", conformances: [types.string, types.swift("CodingKey")],
            members: members.map { property, name in
                Declaration(.enumCase(EnumCase(
                    name: name, rawValue: property.jsonName == name.name ? nil : .literal(property.jsonName))))
            }))))
        guard writtenOut else { return result }

        // Written-out coding, for extra properties and boxes: the same calls synthesis would make, with the ISO 8601 coder.
        // The decoded type comes from the context (`as` is a type position): a spec type named in an
        // expression (`T.self`) could be shadowed by an enclosing struct's property of the same name.
        let decodes = members.enumerated().map { index, member -> Statement in
            let (property, name) = member
            if checksConstant(property), let constant = property.constant {
                let method: Code = property.isOptional ? "valueIfPresent" : "value"
                let raw: Code = property.type == .string ? "" : ".rawValue"
                let differs: Code = property.isOptional ? "self.\(name).map({ $0\(raw) != \(literal: constant) }) == true" : "self.\(name)\(raw) != \(literal: constant)"
                return .block("do", [
                    .code("self.\(name) = try container.\(method)(forKey: .\(name))"),
                    .block("if \(differs)", [
                        .call("throw \(types.swift("DecodingError")).dataCorruptedError", arguments: [
                            "forKey: .\(name)", "in: container",
                            "debugDescription: \(literal: "'\(property.jsonName)' must be \"\(constant)\" (const)")",
                        ]),
                    ]),
                ])
            }
            if let box = storage[index] {
                let method: Code = property.isOptional ? "valueIfPresent" : "value"
                return .code("self.\(box) = Indirect(try container.\(method)(forKey: .\(name)))")
            }
            guard property.type.containsDate else {
                let method: Code = property.isOptional ? "valueIfPresent" : "value"
                return .code("self.\(name) = try container.\(method)(forKey: .\(name))")
            }
            let wire = wireType(property.type, in: type.id)
            let value: Code = property.isOptional
                ? "(try container.valueIfPresent(forKey: .\(name)) as \(wire)?).map { \(fromWire("$0", property.type)) }"
                : fromWire("(try container.value(forKey: .\(name)) as \(wire))", property.type)
            return .code("self.\(name) = \(value)")
        }
        var extraDecodes: [Statement] = []
        var extraEncodes: [Statement] = []
        if let extras {
            let wire = wireType(extras.type, in: type.id)
            // The type named, not inferred: inferred from the dictionary's subscript it would be an
            // optional, and a `null` value would drop its key instead of being kept or rejected.
            let value: Code = extras.type.containsDate
                ? fromWire("(try others.value(forKey: key) as \(wire))", extras.type)
                : "try others.value(forKey: key) as \(types.type(extras.type, in: type.id))"
            extraDecodes = [
                .code("let others = try decoder.container(keyedBy: ExtraPropertyKey.self)"),
                .code("var \(extrasName): \(extras.map) = [:]"),
                .block("for key in others.allKeys where CodingKeys(rawValue: key.stringValue) == nil", [
                    .code("\(extrasName)[key.stringValue] = \(value)"),
                ]),
                .code("self.\(extrasName) = \(extrasName)"),
            ]
            extraEncodes = [
                .code("var others = encoder.container(keyedBy: ExtraPropertyKey.self)"),
                .block("for (key, value) in self.\(extrasName)", [
                    .code("try others.encode(\(toWire("value", extras.type)), forKey: ExtraPropertyKey(key))"),
                ]),
            ]
        }
        result.append(Declaration(.function(Function(
            access: access, name: .initializer,
            parameters: [Parameter(label: Identifier("from"), localName: Identifier("decoder"), type: "any \(types.swift("Decoder"))")],
            effects: "throws",
            body: [.code("let container = try decoder.container(keyedBy: CodingKeys.self)")] + decodes + extraDecodes))))
        result.append(encodeFunction(members, access: access, extraEncodes: extraEncodes))
        return result
    }

    /// `encode(to:)` written out: the calls synthesis would make, with the ISO 8601 coder for
    /// dates, and `null` for a required nullable property that is `nil` (synthesis leaves its key out).
    private func encodeFunction(_ members: [(Property, Identifier)], access: AccessModifier?, extraEncodes: [Statement] = []) -> Declaration {
        let encodes = members.map { property, name -> Statement in
            let method: Code = property.isOptional && !property.encodesNull ? "encodeIfPresent" : "encode"
            var value: Code = "self.\(name)"
            if property.type.containsDate {
                value = property.isOptional ? "\(value).map { \(toWire("$0", property.type)) }" : toWire(value, property.type)
            }
            return .code("try container.\(method)(\(value), forKey: .\(name))")
        }
        return Declaration(.function(Function(
            access: access, name: .function(Identifier("encode")),
            parameters: [Parameter(label: Identifier("to"), localName: Identifier("encoder"), type: "any \(types.swift("Encoder"))")],
            effects: "throws",
            body: [.code("var container = encoder.container(keyedBy: CodingKeys.self)")] + encodes + extraEncodes)))
    }

    /// A wide object (see `WideObjects`): each property a computed one over its part, the same
    /// memberwise initializer, and coding that hands the one JSON object to each part in turn.
    private func wideStructMembers(_ type: NamedType, members: [(Property, Identifier)], parts: [WidePart]) -> [Declaration] {
        var result: [Declaration] = parts.map { part in
            Declaration(.variable(Variable(access: .private, binding: .var, name: part.storage, type: "\(part.type)")))
        }
        for part in parts {
            for (property, name) in members[part.properties] {
                result.append(Declaration(
                    documentation: SwiftTypes.documentation(property.documentation, remark: nil), isDeprecated: property.documentation.isDeprecated,
                    .variable(Variable(
                        access: access, binding: .var, name: name, type: types.type(of: property, in: type.id),
                        getter: [.code("get { \(part.storage).\(name) }"), .code("set { \(part.storage).\(name) = newValue }")]))))
            }
        }

        // The memberwise initializer a plain struct has (see `structMembers`), filling each part.
        let parameters = members.map { property, name in
            Parameter(
                label: name, localName: name.name == "self" ? Identifier("self_") : nil,
                type: types.type(of: property, in: type.id), defaultValue: defaultValue(of: property, in: type))
        }
        let fills = parts.map { part -> Statement in
            let arguments = zip(members[part.properties], parameters[part.properties]).map { member, parameter -> Code in
                "\(member.1): \(parameter.localName ?? member.1)"
            }
            return .call("self.\(part.storage) = \(part.type)", arguments: arguments)
        }
        result.append(Declaration(.function(Function(access: access, name: .initializer, parameters: parameters, body: fills))))
        result.append(Declaration(.function(Function(
            access: access, name: .initializer,
            parameters: [Parameter(label: Identifier("from"), localName: Identifier("decoder"), type: "any \(types.swift("Decoder"))")],
            effects: "throws",
            body: parts.map { .code("self.\($0.storage) = try \($0.type)(from: decoder)") }))))
        result.append(Declaration(.function(Function(
            access: access, name: .function(Identifier("encode")),
            parameters: [Parameter(label: Identifier("to"), localName: Identifier("encoder"), type: "any \(types.swift("Encoder"))")],
            effects: "throws",
            body: parts.map { .code("try \($0.storage).encode(to: encoder)") }))))

        // Each part: stored properties with synthesized coding (dates marked `@ISO8601`), coding
        // keys where Swift and JSON names differ.
        for part in parts {
            let partMembers = Array(members[part.properties])
            var declarations = partMembers.map { property, name in
                Declaration(.variable(Variable(
                    attributes: property.type.containsDate ? ["@\(types.runtime("ISO8601"))"] : [],
                    binding: .var, name: name, type: types.type(of: property, in: type.id))))
            }
            // A required nullable property is written as `null`, which synthesized coding does not do.
            let encodesNull = partMembers.contains { property, _ in property.encodesNull }
            if encodesNull || partMembers.contains(where: { property, name in property.jsonName != name.name }) {
                declarations.append(Declaration(.type(TypeDeclaration(
                    keyword: .enum, name: "CodingKeys", conformances: [types.string, types.swift("CodingKey")],
                    members: partMembers.map { property, name in
                        Declaration(.enumCase(EnumCase(
                            name: name, rawValue: property.jsonName == name.name ? nil : .literal(property.jsonName))))
                    }))))
            }
            if encodesNull { declarations.append(encodeFunction(partMembers, access: nil)) }
            result.append(Declaration(.type(TypeDeclaration(
                access: .private, keyword: .struct, name: .identifier(part.type),
                conformances: [types.swift("Codable"), types.swift("Hashable"), types.swift("Sendable")],
                members: declarations))))
        }
        return result
    }

    /// A value kept on the heap, so that a type can contain itself (an enum case's value is).
    private var indirectBox: Declaration {
        Declaration(
            documentation: DocComment(["Keeps a value on the heap, so that a type can contain itself."]),
            .type(TypeDeclaration(
                access: .fileprivate, keyword: .indirectEnum, name: "Indirect<Value: \(types.swift("Hashable")) & \(types.swift("Sendable"))>",
                conformances: [types.swift("Hashable"), types.swift("Sendable")],
                members: [
                    Declaration(.enumCase(EnumCase(name: Identifier("stored"), associatedValue: "Value"))),
                    Declaration(.function(Function(
                        name: .initializer, parameters: [Parameter(label: nil, localName: Identifier("value"), type: "Value")],
                        body: [.code("self = .stored(value)")]))),
                    Declaration(.variable(Variable(
                        binding: .var, name: Identifier("value"), type: "Value",
                        getter: [.switch("self", [SwitchCase(pattern: ".stored(let value)", body: [.code("value")])])]))),
                ])))
    }

    /// The coding key of a property a schema does not name.
    private var extraPropertyKey: Declaration {
        let string = types.string
        return Declaration(
            documentation: DocComment(["Any key of an object: a property a schema does not name (kept in `additionalProperties`),\nor a key a union counts to choose its variant."]),
            .type(TypeDeclaration(
                access: .private, keyword: .struct, name: "ExtraPropertyKey", conformances: [types.swift("CodingKey")],
                members: [
                    Declaration(.variable(Variable(binding: .var, name: Identifier("stringValue"), type: string))),
                    Declaration(.variable(Variable(binding: .var, name: Identifier("intValue"), type: "\(types.swift("Int"))?", getter: [.code("nil")]))),
                    Declaration(.function(Function(
                        name: .initializer, parameters: [Parameter(label: nil, localName: Identifier("stringValue"), type: string)],
                        body: [.code("self.stringValue = stringValue")]))),
                    Declaration(.function(Function(
                        name: .failableInitializer, parameters: [Parameter(label: Identifier("stringValue"), type: string)],
                        body: [.code("self.stringValue = stringValue")]))),
                    Declaration(.function(Function(
                        name: .failableInitializer, parameters: [Parameter(label: Identifier("intValue"), type: types.swift("Int"))],
                        body: [.code("nil")]))),
                ])))
    }

    /// The type a value is coded as in written-out coding: a type holding dates through the
    /// runtime's `ISO8601` coder (`ISO8601<[Date]>`), any other as it is.
    private func wireType(_ type: TypeReference, in owner: String) -> Code {
        type.containsDate ? "\(types.runtime("ISO8601"))<\(types.type(type, in: owner))>" : types.type(type, in: owner)
    }

    private func fromWire(_ expression: Code, _ type: TypeReference) -> Code {
        type.containsDate ? "\(expression).wrappedValue" : expression
    }

    private func toWire(_ expression: Code, _ type: TypeReference) -> Code {
        type.containsDate ? "\(types.runtime("ISO8601"))(wrappedValue: \(expression))" : expression
    }

    // MARK: Open enums

    private func enumMembers(_ type: NamedType, values: [EnumValue]) -> [Declaration] {
        let cases = Array(zip(values, names.cases[type.id] ?? []))
        let string = types.string
        var result = cases.map { value, name in
            Declaration(documentation: DocComment([SwiftTypes.codeSpan(value.value)]), .enumCase(EnumCase(name: name)))
        }
        result.append(Declaration(
            documentation: DocComment([
                "A value this client does not know yet: decoding never fails on a new server value,\nand the raw value is encoded back unchanged.",
            ]),
            .enumCase(EnumCase(name: Identifier("unknown"), associatedValue: string))))
        // Swift's `String ==` (and so `switch`) calls `é` and `e` + U+0301 equal; JSON does not. When
        // two values are canonically equivalent, they are told apart by their Unicode scalars.
        let byScalars = Set(values.map(\.value)).count < values.count
        result.append(Declaration(.function(Function(
            access: access, name: .initializer,
            parameters: [Parameter(label: Identifier("rawValue"), type: string)],
            body: byScalars
                ? cases.map { value, name in
                    .block("if rawValue.unicodeScalars.elementsEqual(\(literal: value.value).unicodeScalars)", [
                        .code("self = .\(name)"), .code("return"),
                    ])
                } + [.code("self = .unknown(rawValue)")]
                // A table built once from `knownCases`, not a `switch` over string patterns: the
                // compiler checks each pattern as an expression (Benchmarks/README.md, §10).
                : [.code("self = Self.byRawValue[rawValue] ?? .unknown(rawValue)")]))))
        result.append(Declaration(.variable(Variable(
            access: access, binding: .var, name: Identifier("rawValue"), type: string,
            // `return` statements, not a `switch` expression: the compiler checks an expression's
            // branches together, which does not scale to thousands of values (Benchmarks/README.md).
            getter: [.switch("self", cases.map { value, name in
                SwitchCase(pattern: ".\(name)", body: [.code("return \(literal: value.value)")])
            } + [SwitchCase(pattern: ".unknown(let rawValue)", body: [.code("return rawValue")])])]))))
        result.append(Declaration(
            documentation: DocComment(["Every value this client knows, in spec order."]),
            .variable(Variable(
                access: access, isStatic: true, binding: .let, name: Identifier("knownCases"), type: "[Self]",
                // `Self.name`, not `.name`: thousands of implicit members in one literal are
                // inferred together (Benchmarks/README.md, §10).
                value: .array(cases.map { "Self.\($0.1)" })))))
        if !byScalars {
            result.append(Declaration(.variable(Variable(
                access: .private, isStatic: true, binding: .let, name: Identifier("byRawValue"), type: "[\(string): Self]",
                value: .code("\(types.swift("Dictionary"))(knownCases.map { ($0.rawValue, $0) }, uniquingKeysWith: { first, _ in first })")))))
        }
        result.append(Declaration(.lineComment([
            "Equality follows the raw value, so `.unknown(\(SwiftTypes.quoted(values.first?.value ?? "")))` equals its named case.",
        ])))
        result.append(Declaration(.function(Function(
            access: access, isStatic: true, name: .operator("=="),
            parameters: [Parameter(label: Identifier("lhs"), type: "Self"), Parameter(label: Identifier("rhs"), type: "Self")],
            returnType: types.swift("Bool"),
            body: [byScalars ? .code("lhs.rawValue.unicodeScalars.elementsEqual(rhs.rawValue.unicodeScalars)") : .code("lhs.rawValue == rhs.rawValue")]))))
        result.append(Declaration(.function(Function(
            access: access, name: .function(Identifier("hash")),
            parameters: [Parameter(label: Identifier("into"), localName: Identifier("hasher"), type: "inout \(types.swift("Hasher"))")],
            body: [.code("hasher.combine(self.rawValue)")]))))
        result.append(Declaration(.function(Function(
            access: access, name: .initializer,
            parameters: [Parameter(label: Identifier("from"), localName: Identifier("decoder"), type: "any \(types.swift("Decoder"))")],
            effects: "throws",
            body: [.code("self.init(rawValue: try decoder.singleValueContainer().decode(\(string).self))")]))))
        result.append(Declaration(.function(Function(
            access: access, name: .function(Identifier("encode")),
            parameters: [Parameter(label: Identifier("to"), localName: Identifier("encoder"), type: "any \(types.swift("Encoder"))")],
            effects: "throws",
            body: [.code("var container = encoder.singleValueContainer()"), .code("try container.encode(self.rawValue)")]))))
        return result
    }

    // MARK: Compositions

    /// Every member decodes the whole value and encodes into the same container, so the JSON is
    /// one object holding what each member holds.
    private func compositionCoding(_ type: NamedType, members: [(Property, Identifier)], storage: [Int: Identifier]) -> [Declaration] {
        let guarded = names.recursion.guardedMembers[type.id] ?? []
        let decodes = members.enumerated().map { index, member -> Statement in
            let (property, name) = member
            let value: Code = guarded.contains(index) ? "try decoder.value(inPlaceOf: Self.self)" : decodedValue(property.type, in: type.id)
            if let box = storage[index] { return .code("self.\(box) = Indirect(\(value))") }
            return .code("self.\(name) = \(value)")
        }
        let encodes = members.map { property, name -> Statement in
            .code("try \(toWire("self.\(name)", property.type)).encode(to: encoder)")
        }
        return [
            Declaration(.function(Function(
                access: access, name: .initializer,
                parameters: [Parameter(label: Identifier("from"), localName: Identifier("decoder"), type: "any \(types.swift("Decoder"))")],
                effects: "throws", body: decodes))),
            Declaration(.function(Function(
                access: access, name: .function(Identifier("encode")),
                parameters: [Parameter(label: Identifier("to"), localName: Identifier("encoder"), type: "any \(types.swift("Encoder"))")],
                effects: "throws", body: encodes))),
        ]
    }

    /// `decoder.value(inPlaceOf:)`: decodes a composition's member that can lead back to the
    /// composition without moving on in the JSON (through a union's variant). Entered again at
    /// the same place, it fails instead of recursing until the stack overflows.
    private var inPlaceDecoding: Declaration {
        let set = types.swift("Set"), string = types.string
        let place = "\(set)<[\(string)]>" as Code
        return Declaration(
            documentation: DocComment(["The compositions being decoded, each with its place in the JSON (see `Decoder.value(inPlaceOf:)`)."]),
            .type(TypeDeclaration(
                access: .private, keyword: .enum, name: "InPlaceDecoding",
                members: [
                    Declaration(.variable(Variable(
                        isStatic: true, binding: .let, name: Identifier("active"),
                        value: .code("\(types.builtin("TaskLocal", in: "_Concurrency"))<\(place)>(wrappedValue: [])")))),
                    Declaration(.function(Function(
                        isStatic: true, name: .function(Identifier("value")), genericParameters: "<T: \(types.swift("Decodable"))>",
                        parameters: [
                            Parameter(label: Identifier("inPlaceOf"), localName: Identifier("owner"), type: "\(types.swift("Any")).Type"),
                            Parameter(label: Identifier("from"), localName: Identifier("decoder"), type: "any \(types.swift("Decoder"))"),
                        ],
                        effects: "throws", returnType: "T",
                        body: [
                            .code("let place = [\(string)(reflecting: owner)] + decoder.codingPath.map(\\.stringValue)"),
                            .code("let active = Self.active.get()"),
                            .block("guard !active.contains(place) else", [
                                .code("throw \(types.swift("DecodingError")).dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: \"\\(owner) contains itself at the same place; the value cannot be decoded\"))"),
                            ]),
                            .code("return try Self.active.withValue(active.union([place])) { try T(from: decoder) }"),
                        ]))),
                ])))
    }

    /// What the initializer fills in when not given the property.
    private func defaultValue(of property: Property, in type: NamedType) -> Code? {
        if property.isOptional { return "nil" }
        guard property.type == .string else { return nil }
        if let constant = property.constant { return .literal(constant) }
        if property.jsonName == "eventType", let name = eventTypeDefaults[type.id] { return .literal(name) }
        return nil
    }

    // MARK: Unions

    private func unionMembers(_ type: NamedType, union: Union) -> [Declaration] {
        let cases = Array(zip(union.variants, names.cases[type.id] ?? []))
        let json = types.runtime("JSONValue")
        var result = cases.map { variant, name in
            Declaration(.enumCase(EnumCase(name: name, associatedValue: types.type(variant.type, in: type.id))))
        }
        result.append(Declaration(
            documentation: DocComment([
                "A variant this client does not know yet: decoding never fails on a new kind of value,\nand its JSON is encoded back unchanged.",
            ]),
            .enumCase(EnumCase(name: Identifier("unknown"), associatedValue: json))))

        // Each variant's value is decoded with its type taken from the case (no type named in an
        // expression, where a case of the same name would shadow it).
        let decode: [Statement]
        switch union.decoding {
        case .property(let property), .fixedProperty(let property):
            result.append(Declaration(.type(TypeDeclaration(
                keyword: .enum, name: "CodingKeys", conformances: [types.string, types.swift("CodingKey")],
                members: [Declaration(.enumCase(EnumCase(name: Identifier("tag"), rawValue: .literal(property))))]))))
            let tagged = cases.filter { !$0.0.tags.isEmpty }.map { variant, name in
                SwitchCase(
                    pattern: .joined(variant.tags.map { "\(literal: $0)?" }, separator: ", "),
                    body: [.code("self = .\(name)(\(decodedValue(variant.type, in: type.id)))")])
            }
            // A value no variant fixes: the variants that fix none are tried (`.fixedProperty` only;
            // a discriminator's variant without a value is never chosen, as its warning says).
            let untagged = union.decoding == .fixedProperty(property) ? cases.filter { $0.0.tags.isEmpty } : []
            decode = [.switch(
                "try? decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(\(types.string).self, forKey: .tag)",
                tagged + [SwitchCase(pattern: nil, body: bestMatch(untagged, in: type.id))])]
        case .firstThatDecodes:
            decode = bestMatch(cases, in: type.id)
        }
        result.append(Declaration(.function(Function(
            access: access, name: .initializer,
            parameters: [Parameter(label: Identifier("from"), localName: Identifier("decoder"), type: "any \(types.swift("Decoder"))")],
            effects: "throws", body: union.selectsByEventName ? selectedByEventName(cases, otherwise: decode, in: type.id) : decode))))
        // A variant whose object does not declare the discriminator property gets its tag back when
        // encoded: without it, the JSON would decode as `.unknown` (an event cached or sent on).
        func encodeStatements(_ variant: UnionVariant) -> [Code] {
            let value: Code = "try \(toWire("value", variant.type)).encode(to: encoder)"
            guard case .property(let property) = union.decoding, let tag = variant.tags.first, case .named(let id) = variant.type,
                  case .object(let properties)? = types.namedTypes[id]?.kind,
                  !properties.contains(where: { $0.jsonName.unicodeScalars.elementsEqual(property.unicodeScalars) }) else { return [value] }
            return [value, "var tag = encoder.container(keyedBy: CodingKeys.self)", "try tag.encode(\(literal: tag), forKey: .tag)"]
        }
        let encode: [Statement]
        if cases.count <= Self.largestCheckedSwitch {
            encode = [.switch("self", cases.map { variant, name in
                SwitchCase(pattern: ".\(name)(let value)", body: encodeStatements(variant).map(Statement.code))
            } + [SwitchCase(pattern: ".unknown(let value)", body: [.code("try value.encode(to: encoder)")])])]
        } else {
            // The compiler gives up proving a switch over some hundreds of cases exhaustive ("unable
            // to check … in reasonable time"); one `if case` per case is checked case by case.
            encode = cases.map { variant, name in
                .code("if case .\(name)(let value) = self { \(Code.joined(encodeStatements(variant), separator: "; ")); return }")
            } + [.code("if case .unknown(let value) = self { try value.encode(to: encoder) }")]
        }
        result.append(Declaration(.function(Function(
            access: access, name: .function(Identifier("encode")),
            parameters: [Parameter(label: Identifier("to"), localName: Identifier("encoder"), type: "any \(types.swift("Encoder"))")],
            effects: "throws", body: encode))))
        return result
    }

    /// Tries `cases` in order; of those that decode, the one declaring the most of the value's keys
    /// wins (the first of equals), and one that declares them all ends the search. None: `unknown`.
    private func bestMatch(_ cases: [(UnionVariant, Identifier)], in owner: String) -> [Statement] {
        let unknown: Statement = .code("self = .unknown(try decoder.value())")
        guard !cases.isEmpty else { return [unknown] }
        if cases.count == 1, let (variant, name) = cases.first {
            let decoded: Code = "let value = try? decoder.value() as \(wireType(variant.type, in: owner))"
            let admitted = keyConditions(variant.type, keys: "decoder.objectKeys(ExtraPropertyKey.self)", checkingRequired: false)
            return [.ifChain([(condition: "\(admitted)\(decoded)", body: [.code("self = .\(name)(\(fromWire("value", variant.type)))")])], else: [unknown])]
        }
        var statements: [Statement] = [
            // The key type is passed in: it may sit in a namespace the `Decoder` extension is outside of.
            .code("let keys = decoder.objectKeys(ExtraPropertyKey.self)"),
            .code("var best: (reads: \(types.swift("Int")), value: Self)? = nil"),
        ]
        for (offset, (variant, name)) in cases.enumerated() {
            let declared = declaredKeys(of: variant.type)
            let reads: Code = declared.isEmpty ? "0" : "keys.intersection(\(Self.literalSet(declared))).count"
            let decoded: Code = "\(keyConditions(variant.type, keys: "keys"))let value = try? decoder.value() as \(wireType(variant.type, in: owner))"
            statements.append(.block(offset == 0 ? "if \(decoded)" : "if best?.reads != keys.count, \(decoded)", [
                .code("let reads = \(reads)"),
                .code("if reads > best?.reads ?? -1 { best = (reads, .\(name)(\(fromWire("value", variant.type)))) }"),
            ]))
        }
        statements.append(.ifChain([(condition: "let best", body: [.code("self = best.value")])], else: [unknown]))
        return statements
    }

    /// What `keys` (the value's) must meet before `type` is tried, each condition followed by `, `:
    /// every key it requires (a variant missing one cannot decode, and a failed decode throws, the
    /// cost of routing by keys among many variants), and for `additionalProperties: false` no key
    /// it does not declare (such a value is another's).
    private func keyConditions(_ type: TypeReference, keys: Code, checkingRequired: Bool = true) -> Code {
        let required = checkingRequired ? requiredKeys(of: type) : []
        var conditions: Code = required.isEmpty ? "" : "\(keys).isSuperset(of: \(Self.literalSet(required))), "
        if rejectsOtherKeys(type) {
            let declared = declaredKeys(of: type)
            conditions = declared.isEmpty ? "\(conditions)\(keys).isEmpty, " : "\(conditions)\(keys).isSubset(of: \(Self.literalSet(declared))), "
        }
        return conditions
    }

    /// `["a", "b"]`: JSON keys as a Swift array literal.
    private static func literalSet(_ keys: [String]) -> Code {
        "[\(Code.joined(keys.map { Code.literal($0) }, separator: ", "))]"
    }

    /// Whether a variant is an object that admits no key it does not declare.
    private func rejectsOtherKeys(_ type: TypeReference) -> Bool {
        guard case .named(let id) = type, let named = types.namedTypes[id], case .object = named.kind else { return false }
        return named.rejectsOtherKeys
    }

    /// The keys an object variant's schema requires (nullable or not: `null` is a value, absence is not).
    private func requiredKeys(of type: TypeReference) -> [String] {
        guard case .named(let id) = type, let named = types.namedTypes[id], case .object(let properties) = named.kind else { return [] }
        return properties.filter { !$0.isOptional || $0.encodesNull }.map(\.jsonName)
    }

    /// The keys an object variant declares (a composition: its objects'), in order, each once.
    private func declaredKeys(of type: TypeReference, depth: Int = 0) -> [String] {
        guard depth < 8, case .named(let id) = type, let named = types.namedTypes[id] else { return [] }
        var keys: [String] = []
        switch named.kind {
        case .object(let properties): keys = properties.map(\.jsonName)
        case .composition(let members): keys = members.flatMap { declaredKeys(of: $0.type, depth: depth + 1) }
        case .union, .stringEnum: return []
        }
        var seen: Set<String> = []
        return keys.filter { seen.insert($0).inserted }
    }

    /// An own stream's messages: the event's name (`event:`, in `userInfo`) chooses the case; a
    /// name no message has is `unknown`; with no name, or the default name `message`, `otherwise`
    /// decides by the payload (as when the enum is decoded from JSON alone).
    private func selectedByEventName(_ cases: [(UnionVariant, Identifier)], otherwise: [Statement], in owner: String) -> [Statement] {
        let named = cases.compactMap { variant, name in
            variant.eventName.map { SwitchCase(pattern: "\(literal: $0)?", body: [.code("self = .\(name)(\(decodedValue(variant.type, in: owner)))")]) }
        }
        let undeclared = SwitchCase(pattern: "let name? where name != \(literal: "message")", body: [.code("self = .unknown(try decoder.value())")])
        return [.switch(
            "decoder.userInfo[.channelEventName] as? \(types.string)",
            named + [undeclared, SwitchCase(pattern: nil, body: otherwise)])]
    }

    /// Unions with more variants encode through `if case` statements instead of one `switch`.
    static let largestCheckedSwitch = 100

    /// `try decoder.value()` for a variant's type, through the ISO 8601 coder for dates.
    private func decodedValue(_ type: TypeReference, in owner: String) -> Code {
        guard type.containsDate else { return "try decoder.value()" }
        return fromWire("(try decoder.value() as \(wireType(type, in: owner)))", type)
    }

    /// `decoder.value()`: decodes the type the context asks for.
    private var inferredValue: Declaration {
        let decodable = types.swift("Decodable")
        return Declaration(.type(TypeDeclaration(
            keyword: .extension, name: types.swift("Decoder"), extendsGeneratedType: false,
            members: [
                Declaration(.function(Function(
                    access: .fileprivate, name: .function(Identifier("value")), genericParameters: "<T: \(decodable)>",
                    effects: "throws", returnType: "T", body: [.code("try T(from: self)")]))),
            ] + (!triesVariants ? [] : [
                Declaration(
                    documentation: DocComment(["The keys of the object being decoded (none for another value)."]),
                    .function(Function(
                        access: .fileprivate, name: .function(Identifier("objectKeys")), genericParameters: "<Key: \(types.swift("CodingKey"))>",
                        parameters: [Parameter(label: nil, localName: nil, type: "Key.Type")],
                        returnType: "\(types.swift("Set"))<\(types.string)>",
                        body: [.code("\(types.swift("Set"))(((try? container(keyedBy: Key.self))?.allKeys ?? []).map(\\.stringValue))")]))),
            ]) + (names.recursion.guardedMembers.isEmpty ? [] : [
                Declaration(.function(Function(
                    access: .fileprivate, name: .function(Identifier("value")), genericParameters: "<T: \(decodable)>",
                    parameters: [Parameter(label: Identifier("inPlaceOf"), localName: Identifier("owner"), type: "\(types.swift("Any")).Type")],
                    effects: "throws", returnType: "T", body: [.code("try InPlaceDecoding.value(inPlaceOf: owner, from: self)")]))),
            ]))))
    }

    // MARK: Dates

    /// `decode(_:forKey:)` with the type taken from the context, for the written-out decoders.
    private var inferredDecoding: Declaration {
        let decodable = types.swift("Decodable")
        return Declaration(.type(TypeDeclaration(
            keyword: .extension, name: types.swift("KeyedDecodingContainer"), extendsGeneratedType: false,
            members: [
                Declaration(.function(Function(
                    access: .fileprivate, name: .function(Identifier("value")), genericParameters: "<T: \(decodable)>",
                    parameters: [Parameter(label: Identifier("forKey"), localName: Identifier("key"), type: "Key")],
                    effects: "throws", returnType: "T", body: [.code("try self.decode(T.self, forKey: key)")]))),
                Declaration(.function(Function(
                    access: .fileprivate, name: .function(Identifier("valueIfPresent")), genericParameters: "<T: \(decodable)>",
                    parameters: [Parameter(label: Identifier("forKey"), localName: Identifier("key"), type: "Key")],
                    effects: "throws", returnType: "T?", body: [.code("try self.decodeIfPresent(T.self, forKey: key)")]))),
            ])))
    }
}

extension TypeReference {
    var containsDate: Bool {
        switch self {
        case .dateTime: return true
        case .array(let element): return element.containsDate
        case .dictionary(let value): return value.containsDate
        case .optional(let wrapped): return wrapped.containsDate
        default: return false
        }
    }

    /// Whether an untyped value (`JSONValue`) is in it.
    var containsJSON: Bool {
        switch self {
        case .json: return true
        case .array(let element): return element.containsJSON
        case .dictionary(let value): return value.containsJSON
        case .optional(let wrapped): return wrapped.containsJSON
        default: return false
        }
    }
}
