import ChannelSpec
import Foundation
import Testing

/// `oneOf`/`anyOf` (issue 14): one variant per member, told apart by a discriminator (both
/// dialects), by a property each variant fixes, or by trying each in order.
@Suite("oneOf and anyOf unions")
struct UnionTests {
    static func union(named name: String, in api: ChannelAPI?) -> Union? {
        guard case .union(let union)? = api?.types.first(where: { $0.preferredName == name })?.kind else { return nil }
        return union
    }

    @Test func anOpenAPIDiscriminatorWithMappingTagsEachVariant() throws {
        let (api, diagnostics) = try AllOfTests.translate("""
            Walk:
              type: object
              properties: {kind: {type: string}, length: {type: integer}}
            Run:
              type: object
              properties: {kind: {type: string}}
            Swim:
              type: object
              properties: {kind: {type: string}}
            Payload:
              oneOf:
                - $ref: '#/components/schemas/Walk'
                - $ref: '#/components/schemas/Run'
                - $ref: '#/components/schemas/Swim'
              discriminator:
                propertyName: kind
                mapping:
                  walk/slow: '#/components/schemas/Walk'
                  walk/fast: '#/components/schemas/Walk'
                  run: Run
            """)
        #expect(diagnostics.filter { $0.severity == .error }.isEmpty, "\(diagnostics)")
        let union = try #require(Self.union(named: "Payload", in: api))
        #expect(union.decoding == .property("kind"))
        #expect(union.variants.map(\.preferredName) == ["Walk", "Run", "Swim"])
        // Mapping keys (which may hold `/`), a bare component name as the target, and the
        // component's own name for a variant the mapping leaves out.
        #expect(union.variants.map(\.tags) == [["walk/slow", "walk/fast"], ["run"], ["Swim"]])
    }

    @Test func variantsThatEachFixAPropertyAreToldApartByIt() throws {
        let (api, diagnostics) = try AllOfTests.translate("""
            Base:
              type: object
              properties: {sequence: {type: integer}}
            Heartbeat:
              allOf:
                - properties: {type: {type: string, const: heartbeat}}
                  required: [type]
                - $ref: '#/components/schemas/Base'
            Update:
              allOf:
                - properties: {type: {type: string, enum: [update]}, id: {type: integer}}
                  required: [type]
                - $ref: '#/components/schemas/Base'
            Payload:
              type: object
              anyOf:
                - $ref: '#/components/schemas/Heartbeat'
                - $ref: '#/components/schemas/Update'
            """)
        #expect(diagnostics.filter { $0.severity == .error }.isEmpty, "\(diagnostics)")
        let union = try #require(Self.union(named: "Payload", in: api))
        #expect(union.decoding == .property("type"))
        #expect(union.variants.map(\.tags) == [["heartbeat"], ["update"]])
    }

    @Test func otherwiseEachVariantIsTriedInOrderAndNullMakesItOptional() throws {
        let (api, diagnostics) = try AllOfTests.translate("""
            Payload:
              type: object
              properties:
                at:
                  oneOf: [{type: string, format: date-time}, {type: integer}, {type: object, title: Note, properties: {m: {type: string}}}]
                maybe:
                  oneOf: [{type: integer}, {type: 'null'}]
              required: [at, maybe]
            """)
        #expect(diagnostics.filter { $0.severity == .error }.isEmpty, "\(diagnostics)")
        let properties = AllOfTests.properties(of: "Payload", in: api)
        let union = try #require(Self.union(named: "at", in: api))
        #expect(union.decoding == .firstThatDecodes)
        #expect(union.variants.map(\.preferredName) == ["date", "integer", "Note"])
        #expect(union.variants.prefix(2).map(\.type) == [.dateTime, .integer(bits: nil)])
        // `[integer, null]`: the integer itself, optional although required.
        #expect(properties.map(\.isOptional) == [false, true])
        #expect(properties[1].type == .integer(bits: nil))
    }

    /// A union of nulls only is valid JSON Schema: the value is always null, as for `type: 'null'`
    /// alone (`JSONValue`). It was refused, and its channel lost.
    @Test func aUnionOfNullsOnlyIsAlwaysNull() throws {
        let (api, diagnostics) = try AllOfTests.translate("Payload:\n  anyOf: [{type: 'null'}, {type: 'null'}]")
        #expect(diagnostics.isEmpty, "\(diagnostics.map(\.message))")
        #expect(api?.channels.first?.message.payload == .json)
    }

    @Test(arguments: [
        ("Payload:\n  oneOf: [{type: string}]\n  anyOf: [{type: integer}]", "has both 'oneOf' and 'anyOf'", "13:7"),
        ("Payload:\n  properties: {a: {type: string}}\n  oneOf: [{type: string}, {type: integer}]", "'properties' beside 'oneOf'", "13:7"),
        ("Payload:\n  oneOf: []", "'oneOf' must be a non-empty list", "13:14"),
        ("Payload:\n  oneOf: [{type: string}, {type: integer}]\n  discriminator: {mapping: {a: X}}", "names no property", "14:22"),
    ])
    /// Positions count the four spaces the helper indents the schemas by.
    func malformedUnionsAreReportedAtTheirLine(schemas: String, message: String, position: String) throws {
        let (_, diagnostics) = try AllOfTests.translate(schemas)
        let hit = diagnostics.first { $0.message.contains(message) }
        #expect(hit != nil, "\(diagnostics.map(\.message))")
        if let location = hit?.location {
            #expect("\(location.line):\(location.column)" == position)
        }
    }
}
