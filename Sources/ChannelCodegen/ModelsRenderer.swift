import ChannelSpec

/// `Models.swift`: one `Codable, Hashable, Sendable` struct per object schema, one open enum per
/// string enum. Only Foundation is imported, so the file compiles on its own.
struct ModelsRenderer {
    let api: ChannelAPI
    let names: SwiftNaming
    let access: String

    /// The fileprivate type that codes `Date` as ISO 8601 whatever the decoder's date strategy is.
    static let timestampType = "ISO8601Timestamp"

    func render(header: String) -> String {
        var writer = SwiftWriter(header: header)
        writer.line("import Foundation")
        let children = Dictionary(grouping: api.types.filter { $0.parent != nil }, by: { $0.parent! })
        for type in api.types where type.parent == nil {
            writer.line()
            render(type, children: children, into: &writer)
        }
        if api.types.contains(where: usesDates) {
            writer.line()
            renderTimestamp(into: &writer)
        }
        return writer.text
    }

    private func usesDates(_ type: NamedType) -> Bool {
        guard case .object(let properties) = type.kind else { return false }
        return properties.contains { $0.type.containsDate }
    }

    private func render(_ type: NamedType, children: [String: [NamedType]], into writer: inout SwiftWriter) {
        let name = names.types[type.id]!.local
        writer.documentation(type.documentation, remark: type.origin.reference)
        switch type.kind {
        case .object(let properties):
            writer.block("\(access)struct \(name): Codable, Hashable, Sendable") { writer in
                renderStruct(type, properties: properties, into: &writer)
                for child in children[type.id] ?? [] {
                    writer.line()
                    render(child, children: children, into: &writer)
                }
            }
        case .stringEnum(let values):
            writer.block("\(access)enum \(name): Codable, Hashable, Sendable, RawRepresentable") { writer in
                renderEnum(type, values: values, into: &writer)
            }
        }
    }

    // MARK: Structs

    private func renderStruct(_ type: NamedType, properties: [Property], into writer: inout SwiftWriter) {
        let memberNames = names.properties[type.id] ?? []
        let members = Array(zip(properties, memberNames))
        for (property, name) in members {
            writer.documentation(property.documentation, remark: nil)
            writer.line("\(access)var \(SwiftIdentifiers.escaped(name)): \(swiftType(property, in: type))")
        }
        if !members.isEmpty { writer.line() }

        // Memberwise initializer; optionals default to nil.
        if members.isEmpty {
            writer.line("\(access)init() {}")
            return
        }
        writer.line("\(access)init(")
        for (index, (property, name)) in members.enumerated() {
            let defaultValue = property.isOptional ? " = nil" : ""
            let comma = index == members.count - 1 ? "" : ","
            let parameter = name == "self" ? "`self` self_" : SwiftIdentifiers.escaped(name)
            writer.line("    \(parameter): \(swiftType(property, in: type))\(defaultValue)\(comma)")
        }
        writer.block(")") { writer in
            for (_, name) in members {
                // A parameter named `self` would shadow `self`, so it gets another internal name.
                let value = name == "self" ? "self_" : SwiftIdentifiers.escaped(name)
                writer.line("self.\(SwiftIdentifiers.escaped(name)) = \(value)")
            }
        }
        writer.line()

        writer.block("enum CodingKeys: String, CodingKey") { writer in
            for (property, name) in members {
                let escaped = SwiftIdentifiers.escaped(name)
                writer.line(name == property.jsonName ? "case \(escaped)" : "case \(escaped) = \(property.jsonName.swiftLiteral)")
            }
        }
        writer.line()

        // Explicit coding: absent and null both decode to nil; dates accept any ISO 8601 form; unknown keys are ignored.
        writer.block("\(access)init(from decoder: any Decoder) throws") { writer in
            writer.line("let container = try decoder.container(keyedBy: CodingKeys.self)")
            for (property, plainName) in members {
                let name = SwiftIdentifiers.escaped(plainName)
                let wire = wireType(property.type, in: type)
                let method = property.isOptional ? "decodeIfPresent" : "decode"
                var expression = "try container.\(method)(\(wire).self, forKey: .\(name))"
                if property.type.containsDate {
                    let conversion = fromWire("$0", property.type)
                    expression = property.isOptional ? "\(expression).map { \(conversion) }" : fromWire(expression, property.type)
                }
                writer.line("self.\(name) = \(expression)")
            }
        }
        writer.line()
        writer.block("\(access)func encode(to encoder: any Encoder) throws") { writer in
            writer.line("var container = encoder.container(keyedBy: CodingKeys.self)")
            for (property, plainName) in members {
                let name = SwiftIdentifiers.escaped(plainName)
                let method = property.isOptional ? "encodeIfPresent" : "encode"
                var value = "self.\(name)"
                if property.type.containsDate {
                    value = property.isOptional ? "\(value).map { \(toWire("$0", property.type)) }" : toWire(value, property.type)
                }
                writer.line("try container.\(method)(\(value), forKey: .\(name))")
            }
        }
    }

    // MARK: Enums

    private func renderEnum(_ type: NamedType, values: [EnumValue], into writer: inout SwiftWriter) {
        let caseNames = names.cases[type.id] ?? []
        let cases = Array(zip(values, caseNames))
        for (value, name) in cases {
            writer.line("/// `\(value.value)`")
            writer.line("case \(SwiftIdentifiers.escaped(name))")
        }
        writer.line("/// A value this client does not know yet: decoding never fails on a new server value,")
        writer.line("/// and the raw value is encoded back unchanged.")
        writer.line("case unknown(String)")
        writer.line()
        writer.block("\(access)init(rawValue: String)") { writer in
            writer.block("switch rawValue") { writer in
                for (value, name) in cases {
                    writer.line("case \(value.value.swiftLiteral): self = .\(SwiftIdentifiers.escaped(name))")
                }
                writer.line("default: self = .unknown(rawValue)")
            }
        }
        writer.line()
        writer.block("\(access)var rawValue: String") { writer in
            writer.block("switch self") { writer in
                for (value, name) in cases {
                    writer.line("case .\(SwiftIdentifiers.escaped(name)): \(value.value.swiftLiteral)")
                }
                writer.line("case .unknown(let rawValue): rawValue")
            }
        }
        writer.line()
        writer.line("/// Every value this client knows, in spec order.")
        let list = caseNames.map { "." + SwiftIdentifiers.escaped($0) }.joined(separator: ", ")
        writer.line("\(access)static let knownCases: [Self] = [\(list)]")
        writer.line()
        writer.line("// Equality follows the raw value, so `.unknown(\"\(values.first?.value ?? "")\")` equals its named case.")
        writer.block("\(access)static func == (lhs: Self, rhs: Self) -> Bool") { writer in
            writer.line("lhs.rawValue == rhs.rawValue")
        }
        writer.line()
        writer.block("\(access)func hash(into hasher: inout Hasher)") { writer in
            writer.line("hasher.combine(rawValue)")
        }
        writer.line()
        writer.block("\(access)init(from decoder: any Decoder) throws") { writer in
            writer.line("self.init(rawValue: try decoder.singleValueContainer().decode(String.self))")
        }
        writer.line()
        writer.block("\(access)func encode(to encoder: any Encoder) throws") { writer in
            writer.line("var container = encoder.singleValueContainer()")
            writer.line("try container.encode(rawValue)")
        }
    }

    // MARK: Dates

    private func renderTimestamp(into writer: inout SwiftWriter) {
        writer.line("/// Codes a `Date` as ISO 8601 text. Decoding accepts fractional seconds or none and any UTC")
        writer.line("/// offset (`2025-01-26T12:00:00Z`, `…12:00:00.123Z`, `…12:00:00+08:00`), whatever date strategy")
        writer.line("/// the decoder has; encoding writes UTC with milliseconds.")
        writer.block("private struct \(Self.timestampType): Codable") { writer in
            writer.line("var date: Date")
            writer.line()
            writer.line("init(_ date: Date) { self.date = date }")
            writer.line()
            writer.block("init(from decoder: any Decoder) throws") { writer in
                writer.line("let container = try decoder.singleValueContainer()")
                writer.line("let text = try container.decode(String.self)")
                writer.block("if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text)") { writer in
                    writer.line("self.date = date")
                }
                writer.block("else if let date = try? Date.ISO8601FormatStyle().parse(text)") { writer in
                    writer.line("self.date = date")
                }
                writer.block("else") { writer in
                    writer.line("throw DecodingError.dataCorruptedError(in: container, debugDescription: \"Expected an ISO 8601 date-time, found \\(text.debugDescription)\")")
                }
            }
            writer.line()
            writer.block("func encode(to encoder: any Encoder) throws") { writer in
                writer.line("var container = encoder.singleValueContainer()")
                writer.line("try container.encode(date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))")
            }
        }
    }

    // MARK: Types

    private func swiftType(_ property: Property, in owner: NamedType) -> String {
        swiftType(property.type, in: owner) + (property.isOptional ? "?" : "")
    }

    func swiftType(_ type: TypeReference, in owner: NamedType?, wire: Bool = false) -> String {
        switch type {
        case .string: return "String"
        case .dateTime: return wire ? Self.timestampType : "Date"
        case .integer(let bits): return bits.map { "Int\($0)" } ?? "Int"
        case .number(let isFloat): return isFloat ? "Float" : "Double"
        case .boolean: return "Bool"
        case .array(let element): return "[\(swiftType(element, in: owner, wire: wire))]"
        case .dictionary(let value): return "[String: \(swiftType(value, in: owner, wire: wire))]"
        case .named(let id):
            guard let name = names.types[id] else { return "Never" }
            let isChild = api.types.first { $0.id == id }?.parent == owner?.id && owner != nil
            return isChild ? name.local : name.qualified
        }
    }

    private func wireType(_ type: TypeReference, in owner: NamedType) -> String {
        swiftType(type, in: owner, wire: true)
    }

    private func fromWire(_ expression: String, _ type: TypeReference) -> String {
        switch type {
        case .dateTime: return "\(expression).date"
        case .array(let element): return "\(expression).map { \(fromWire("$0", element)) }"
        case .dictionary(let value): return "\(expression).mapValues { \(fromWire("$0", value)) }"
        default: return expression
        }
    }

    private func toWire(_ expression: String, _ type: TypeReference) -> String {
        switch type {
        case .dateTime: return "\(Self.timestampType)(\(expression))"
        case .array(let element): return "\(expression).map { \(toWire("$0", element)) }"
        case .dictionary(let value): return "\(expression).mapValues { \(toWire("$0", value)) }"
        default: return expression
        }
    }
}

extension TypeReference {
    var containsDate: Bool {
        switch self {
        case .dateTime: return true
        case .array(let element): return element.containsDate
        case .dictionary(let value): return value.containsDate
        default: return false
        }
    }
}
