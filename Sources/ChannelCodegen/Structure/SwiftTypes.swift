import ChannelSpec

/// Swift spellings of types and doc comments, shared by the file builders.
struct SwiftTypes {
    let api: ChannelAPI
    let names: SwiftNaming
    /// Every named type by its id, built once for the file builders that look types up.
    let namedTypes: [String: NamedType]

    /// Per first byte, a bit for each length (below 64) of a declared type name starting with it:
    /// `builtin` asks the set of names only about a name these allow. `nil` when a declared name is
    /// not short ASCII, where only the set answers (`String` equality is Unicode's, not the bytes').
    private let declaredFirstBytesAndLengths: [UInt64]?

    init(api: ChannelAPI, names: SwiftNaming) {
        self.api = api
        self.names = names
        namedTypes = Dictionary(api.types.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var table: [UInt64]? = [UInt64](repeating: 0, count: 128)
        for name in names.declaredTypeNames {
            guard let first = name.utf8.first, name.utf8.count < 64, name.utf8.allSatisfy({ $0 < 128 }) else {
                table = nil
                break
            }
            table?[Int(first)] |= 1 << UInt64(name.utf8.count)
        }
        declaredFirstBytesAndLengths = table
    }

    /// `try ChannelSegment(value, parameter: "name")`: a parameter value validated by the rules of
    /// the transport the spec targets (AppSync Events unless `transport: sse`).
    func channelSegment(_ value: Code, parameter: String) -> Code {
        let segment = runtime("ChannelSegment")
        return api.channelRules == .serverSentEvents
            ? "try \(segment)(\(value), parameter: \(literal: parameter), rules: .serverSentEvents)"
            : "try \(segment)(\(value), parameter: \(literal: parameter))"
    }

    /// The rules of the transport the spec targets, as generated code names them.
    var channelRulesCode: Code { api.channelRules == .serverSentEvents ? ".serverSentEvents" : ".appSyncEvents" }

    /// A standard-library, Foundation or runtime type, module-qualified when a generated type of the
    /// same name would shadow it (a spec schema named `String` or `Date` is legal and compiles).
    func builtin(_ name: StaticString, in module: StaticString) -> Code {
        isDeclared(name) ? "\(Code(stringLiteral: module)).\(Code(stringLiteral: name))" : Code(stringLiteral: name)
    }

    /// Whether a generated type is named `name` (asked for every type a file spells: the table
    /// answers most without making a `String` and hashing it).
    private func isDeclared(_ name: StaticString) -> Bool {
        if let table = declaredFirstBytesAndLengths, name.hasPointerRepresentation, name.isASCII, name.utf8CodeUnitCount < 64 {
            let first = name.utf8CodeUnitCount > 0 ? Int(name.utf8Start.pointee) : 0
            guard table[first] & (1 << UInt64(name.utf8CodeUnitCount)) != 0 else { return false }
        }
        return names.declaredTypeNames.contains(name.description)
    }

    func swift(_ name: StaticString) -> Code { builtin(name, in: "Swift") }
    func runtime(_ name: StaticString) -> Code { builtin(name, in: "ChannelRuntime") }
    /// A building block of generated mocks, from the test-support module.
    func runtimeTesting(_ name: StaticString) -> Code { builtin(name, in: "ChannelRuntimeTesting") }

    /// The mark for a declaration of the runtime's interface for generated code: `@_spi` applies to
    /// public declarations only (and the others are out of apps' sight anyway).
    func spi(for access: AccessModifier?) -> Identifier? {
        access == .public ? Identifier(Import.generatedSPI) : nil
    }
    var date: Code { builtin("Date", in: "Foundation") }
    var string: Code { swift("String") }

    /// The Swift type of a value. Inside `owner`, its own
    /// nested types go by their local names; every other named type by its path from the top level
    /// (naming keeps nested names from shadowing the names such a path starts with).
    func type(_ type: TypeReference, in owner: String? = nil) -> Code {
        switch type {
        case .string: return string
        case .dateTime: return date
        case .integer(let bits, let isUnsigned):
            switch (bits, isUnsigned) {
            case (32, false): return swift("Int32")
            case (64, false): return swift("Int64")
            case (32, true): return swift("UInt32")
            case (64, true): return swift("UInt64")
            default: return swift("Int")
            }
        case .number(let isFloat): return isFloat ? swift("Float") : swift("Double")
        case .boolean: return swift("Bool")
        case .json: return runtime("JSONValue")
        case .array(let element): return "[\(self.type(element, in: owner))]"
        case .dictionary(let value): return "[\(string): \(self.type(value, in: owner))]"
        case .optional(let wrapped): return "\(self.type(wrapped, in: owner))?"
        case .named(let id):
            if let owner, let name = names.types[id], let ownerName = names.types[owner], name.path.dropLast() == ownerName.path[...] {
                return .identifier(name.local)
            }
            return names.qualifiedName(ofType: id)
        }
    }

    /// A property's type inside its struct, `?` when optional.
    func type(of property: Property, in owner: String) -> Code {
        property.isOptional ? "\(type(property.type, in: owner))?" : type(property.type, in: owner)
    }

    /// A value shown in a doc comment as code: `` `value` ``, or the quoted, escaped value when it
    /// holds line breaks, control characters or backticks that would break the span.
    static func codeSpan(_ value: String) -> String {
        let plain = !value.isEmpty && !value.utf8.contains(UInt8(ascii: "`")) && !value.unicodeScalars.contains(where: \.isHiddenOrControl)
        return plain ? "`\(value)`" : "`` \(quoted(value)) ``"
    }

    /// `"value"` escaped as the renderer writes a Swift string literal.
    static func quoted(_ value: String) -> String { "\"" + TextRenderer.escapedStringContents(value) + "\"" }

    /// The doc comment for a spec element: summary (or `fallback`), description, then the documented
    /// constraints and where it came from as a list.
    static func documentation(_ docs: Documentation, fallback: String? = nil, notes: [String] = [], remark: String?) -> DocComment? {
        var paragraphs: [String] = []
        if let summary = docs.summary ?? (docs.description == nil ? fallback : nil) { paragraphs.append(summary) }
        if let description = docs.description, description != docs.summary { paragraphs.append(description) }
        var bullets = (notes + docs.notes).map { "- " + $0 }
        if let remark { bullets.append("- Remark: Generated from `\(remark)`.") }
        if !bullets.isEmpty { paragraphs.append(bullets.joined(separator: "\n")) }
        return paragraphs.isEmpty ? nil : DocComment(paragraphs)
    }
}
