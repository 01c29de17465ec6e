import ChannelSpec

/// Swift spellings of types and doc comments, shared by the file builders.
struct SwiftTypes {
    let api: ChannelAPI
    let names: SwiftNaming
    /// Every named type by its id, built once for the file builders that look types up.
    let namedTypes: [String: NamedType]

    init(api: ChannelAPI, names: SwiftNaming) {
        self.api = api
        self.names = names
        namedTypes = Dictionary(api.types.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// A standard-library, Foundation or runtime type, module-qualified when a generated type of the
    /// same name would shadow it (a spec schema named `String` or `Date` is legal and compiles).
    func builtin(_ name: StaticString, in module: StaticString) -> Code {
        names.declaredTypeNames.contains(name.description) ? "\(Code(stringLiteral: module)).\(Code(stringLiteral: name))" : Code(stringLiteral: name)
    }

    func swift(_ name: StaticString) -> Code { builtin(name, in: "Swift") }
    func runtime(_ name: StaticString) -> Code { builtin(name, in: "ChannelRuntime") }
    var date: Code { builtin("Date", in: "Foundation") }
    var string: Code { swift("String") }

    /// The Swift type of a value; `wire` swaps dates for the ISO 8601 coder. Inside `owner`, its own
    /// nested types go by their local names; every other named type by its path from the top level
    /// (naming keeps nested names from shadowing the names such a path starts with).
    func type(_ type: TypeReference, wire: Bool = false, in owner: String? = nil) -> Code {
        switch type {
        case .string: return string
        case .dateTime: return wire ? "ISO8601Timestamp" : date
        case .integer(let bits):
            switch bits {
            case 32: return swift("Int32")
            case 64: return swift("Int64")
            default: return swift("Int")
            }
        case .number(let isFloat): return isFloat ? swift("Float") : swift("Double")
        case .boolean: return swift("Bool")
        case .json: return runtime("JSONValue")
        case .array(let element): return "[\(self.type(element, wire: wire, in: owner))]"
        case .dictionary(let value): return "[\(string): \(self.type(value, wire: wire, in: owner))]"
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
