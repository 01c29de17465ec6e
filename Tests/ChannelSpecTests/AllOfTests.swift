import ChannelSpec
import Foundation
import Testing

/// `allOf` (issue 14): objects merge into one type, a reference plus annotations is the referenced
/// type, one primitive stays that primitive, and what has no single Swift type is located.
@Suite("allOf composition")
struct AllOfTests {
    /// Translates a one-channel spec whose payload is `#/components/schemas/Payload`.
    static func translate(_ schemas: String) throws -> (api: ChannelAPI?, diagnostics: [Diagnostic]) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("allof-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let spec = dir.appendingPathComponent("s.yaml")
        try ("""
            asyncapi: 3.0.0
            info: {title: T, version: '1'}
            channels:
              c:
                address: ns/c
                messages:
                  m: {payload: {$ref: '#/components/schemas/Payload'}}
            operations:
              cValues: {action: receive, channel: {$ref: '#/channels/c'}}
            components:
              schemas:

            """ + schemas.split(separator: "\n", omittingEmptySubsequences: false).map { "    " + $0 }.joined(separator: "\n"))
            .write(to: spec, atomically: true, encoding: .utf8)
        // Strict: what lenient generation would skip is an error here.
        let result = SpecTranslator.translate(specAt: spec.path, strict: true)
        return (result.api, result.diagnostics)
    }

    static func properties(of name: String, in api: ChannelAPI?) -> [Property] {
        guard case .object(let properties)? = api?.types.first(where: { $0.preferredName == name })?.kind else { return [] }
        return properties
    }

    /// A base that itself extends another (`type: object`, `allOf` and `properties` in one schema,
    /// as a real document wrote three levels of messages) was taken for a non-object member.
    @Test func aBaseThatExtendsAnotherMergesAllTheWayDown() throws {
        let (api, diagnostics) = try Self.translate("""
            Message:
              type: object
              required: [type]
              properties: {type: {type: string}}
            Delivery:
              type: object
              allOf: [{$ref: '#/components/schemas/Message'}]
              required: [deliveryId]
              properties: {deliveryId: {type: string, format: uuid}}
            Payload:
              type: object
              allOf: [{$ref: '#/components/schemas/Delivery'}]
              properties:
                type: {const: delivery_attempt}
                attempt: {type: integer}
            """)
        #expect(diagnostics.filter { $0.severity == .error }.isEmpty, "\(diagnostics)")
        let properties = Self.properties(of: "Payload", in: api)
        #expect(properties.map(\.jsonName) == ["type", "deliveryId", "attempt"])
        #expect(properties.map(\.isOptional) == [false, false, true])
    }

    @Test func objectsMergeInOrderWithRequiredUnitedAndLaterDeclarationsWinning() throws {
        let (api, diagnostics) = try Self.translate("""
            Base:
              type: object
              discriminator: kind
              required: [kind]
              properties:
                kind: {type: string}
                name: {type: string}
            Payload:
              allOf:
                - $ref: '#/components/schemas/Base'
                - type: object
                  required: [name, size]
                  properties:
                    size: {type: integer}
                    kind: {type: string, enum: [big]}
              properties:
                note: {type: string}
            """)
        #expect(diagnostics.filter { $0.severity == .error }.isEmpty, "\(diagnostics)")
        let merged = Self.properties(of: "Payload", in: api)
        #expect(merged.map(\.jsonName) == ["kind", "name", "size", "note"])
        #expect(merged.map(\.isOptional) == [false, false, false, true])
        // The derived declaration of `kind` (an enum) replaced the base's plain string.
        guard case .named(let kindType) = merged[0].type else {
            Issue.record("kind is \(merged[0].type)")
            return
        }
        guard case .stringEnum(let values)? = api?.types.first(where: { $0.id == kindType })?.kind else {
            Issue.record("kind is not an enum")
            return
        }
        #expect(values.map(\.value) == ["big"])
        // The base is not emitted unless something uses it on its own.
        #expect(api?.types.contains { $0.preferredName == "Base" } == false)
    }

    @Test func aReferencePlusAnnotationsIsTheReferencedType() throws {
        let (api, diagnostics) = try Self.translate("""
            Id: {type: string, format: uuid}
            Owner:
              type: object
              properties:
                name: {type: string}
            Payload:
              type: object
              properties:
                id:
                  allOf:
                    - $ref: '#/components/schemas/Id'
                    - description: The comment's id.
                owner:
                  description: Who owns it.
                  allOf: [{$ref: '#/components/schemas/Owner'}]
                again:
                  allOf: [{$ref: '#/components/schemas/Owner'}]
            """)
        #expect(diagnostics.filter { $0.severity == .error }.isEmpty, "\(diagnostics)")
        let properties = Self.properties(of: "Payload", in: api)
        #expect(properties.map(\.type) == [.string, .named(try #require(api?.types.first { $0.preferredName == "Owner" }).id), properties[1].type])
        #expect(properties[0].documentation.description == "The comment's id.")
        #expect(properties[1].documentation.description == "Who owns it.")
        // One Owner type, not a copy per use.
        #expect(api?.types.filter { $0.preferredName == "Owner" }.count == 1)
        #expect(api?.types.count == 2)
    }

    @Test func nestedCompositionsFlattenAndPrimitivesStayPrimitive() throws {
        let (api, diagnostics) = try Self.translate("""
            A:
              type: object
              properties: {a: {type: string}}
            AB:
              allOf:
                - $ref: '#/components/schemas/A'
                - properties: {b: {type: boolean}}
            Stamp:
              allOf:
                - {type: string, format: date-time}
                - {type: string}
            Payload:
              allOf:
                - $ref: '#/components/schemas/AB'
                - type: object
                  properties:
                    at: {$ref: '#/components/schemas/Stamp'}
            """)
        #expect(diagnostics.filter { $0.severity == .error }.isEmpty, "\(diagnostics)")
        let properties = Self.properties(of: "Payload", in: api)
        #expect(properties.map(\.jsonName) == ["a", "b", "at"])
        #expect(properties.map(\.type) == [.string, .boolean, .dateTime])
    }

    @Test func aUnionWithObjectsIsACompositionOfEachMemberWithTheObjectsMerged() throws {
        let (api, diagnostics) = try Self.translate("""
            Pet:
              type: object
              properties: {name: {type: string}}
            Shape:
              oneOf:
                - {type: object, properties: {radius: {type: number}}}
                - {type: object, properties: {side: {type: number}}}
            Payload:
              allOf:
                - {type: object, properties: {a: {type: string}}}
                - $ref: '#/components/schemas/Shape'
                - description: annotations add no member
                - {type: object, properties: {b: {type: boolean}, other: {$ref: '#/components/schemas/Other'}}}
            Other:
              allOf:
                - $ref: '#/components/schemas/Shape'
                - $ref: '#/components/schemas/Pet'
            """)
        #expect(diagnostics.filter { $0.severity == .error }.isEmpty, "\(diagnostics)")
        let types = api?.types ?? []
        func members(_ name: String) -> [Property] {
            guard case .composition(let members)? = types.first(where: { $0.preferredName == name })?.kind else { return [] }
            return members
        }
        let shape = try #require(types.first { $0.preferredName == "Shape" })
        // Both objects merge into the first member's place; the union is the second member.
        let payload = members("Payload")
        #expect(payload.map(\.jsonName) == ["value1", "value2"])
        #expect(payload.map(\.isOptional) == [false, false])
        #expect(payload[1].type == .named(shape.id))
        guard case .named(let objectID) = payload.first?.type,
              case .object(let merged)? = types.first(where: { $0.id == objectID })?.kind else {
            Issue.record("value1 is \(String(describing: payload.first?.type))")
            return
        }
        #expect(merged.map(\.jsonName) == ["a", "b", "other"])
        // A lone referenced object keeps its component type rather than a copy.
        let pet = try #require(types.first { $0.preferredName == "Pet" })
        #expect(members("Other").map(\.type) == [.named(shape.id), .named(pet.id)])
    }

    @Test(arguments: [
        // (schemas, the message expected, line:col within the document)
        ("""
        Payload:
          allOf:
            - {type: object, properties: {a: {type: string}}}
            - {type: string}
        """, "'allOf' in schema 'Payload' combines an object with a non-object schema", "13:7"),
        ("""
        Payload:
          allOf: [{type: string}, {type: integer}]
        """, "'allOf' in schema 'Payload' requires values of different types at once", "13:7"),
        ("""
        Payload:
          allOf: [{$ref: '#/components/schemas/Other'}, {properties: {a: {type: string}}}]
        Other:
          allOf: [{$ref: '#/components/schemas/Payload'}]
        """, "'allOf' of schema 'Payload' includes itself", "15:15"),
        ("""
        Payload:
          allOf: []
        """, "'allOf' must be a non-empty list of schemas", "13:14"),
        ("""
        Payload:
          allOf: [{type: string, enum: [a, b]}, {enum: [c]}]
        """, "'allOf' in schema 'Payload' admits no value: its members' enums have no value in common", "13:7"),
        ("""
        Payload:
          allOf: [{type: object, properties: {a: {type: string}}, frobnicate: 1}]
        """, "unknown keyword 'frobnicate' in schema", "13:63"),
    ])
    func whatHasNoSingleSwiftTypeIsReportedAtItsLine(schemas: String, message: String, position: String) throws {
        let (_, diagnostics) = try Self.translate(schemas)
        let hit = diagnostics.first { $0.message.contains(message) }
        #expect(hit != nil, "\(diagnostics.map(\.message))")
        if let location = hit?.location {
            #expect("\(location.line):\(location.column)" == position)
        }
    }
}

/// An `allOf` that narrows a string enum (`allOf: [{$ref: Mode}, {enum: [hide, none]}]`, seen in
/// real documents) was "values of different types at once" and its channel skipped. It is the enum
/// of the values every member admits.
@Suite("allOf narrowing an enum")
struct AllOfEnumNarrowingTests {
    static let schemas = """
        Mode: {type: string, enum: [show, hide, none]}
        Payload:
          type: object
          properties:
            narrowed:
              allOf: [{$ref: '#/components/schemas/Mode'}, {enum: [hide, none]}]
            intersected:
              allOf: [{enum: [none, show, extra]}, {$ref: '#/components/schemas/Mode'}, {type: string, enum: [show, none, hide]}]
            plainString:
              allOf: [{$ref: '#/components/schemas/Mode'}, {type: string, description: Any mode.}]
            sameValues:
              allOf: [{enum: [none, hide, show]}, {$ref: '#/components/schemas/Mode'}]
        """

    static func cases(of type: TypeReference?, in api: ChannelAPI?) -> [String]? {
        guard case .named(let id)? = type, case .stringEnum(let values)? = api?.types.first(where: { $0.id == id })?.kind else { return nil }
        return values.map(\.value)
    }

    @Test func theEnumHoldsTheValuesEveryMemberAdmits() throws {
        let (api, diagnostics) = try AllOfTests.translate(Self.schemas)
        #expect(diagnostics.isEmpty, "\(diagnostics.map(\.message))")
        let properties = AllOfTests.properties(of: "Payload", in: api)
        let mode = try #require(api?.types.first { $0.preferredName == "Mode" })
        func type(_ name: String) -> TypeReference? { properties.first { $0.jsonName == name }?.type }
        // A narrowed enum is a type of its own (a value of it is always a valid Mode, not the other way round).
        #expect(Self.cases(of: type("narrowed"), in: api) == ["hide", "none"])
        #expect(type("narrowed") != .named(mode.id))
        // Values in the first enum's order; the values only some members admit are gone.
        #expect(Self.cases(of: type("intersected"), in: api) == ["none", "show"])
        // A plain string narrows nothing, and members listing the same values are that one type:
        // the component keeps its name.
        #expect(type("plainString") == .named(mode.id))
        #expect(type("sameValues") == .named(mode.id))
    }
}

/// `additionalProperties` beside `properties` (issue 14): the properties a schema does not name are
/// kept, typed by the schema (`true` or `{}`: any JSON value).
@Suite("Extra properties")
struct ExtraPropertiesTests {
    @Test func extrasAreKeptTypedOrAsJSONAndFalseOrAbsentIgnoresThem() throws {
        let (api, diagnostics) = try AllOfTests.translate("""
            Payload:
              type: object
              properties:
                typed: {type: object, properties: {a: {type: string}}, additionalProperties: {type: string, format: date-time}}
                open: {type: object, properties: {a: {type: string}}, additionalProperties: true}
                untyped: {type: object, properties: {a: {type: string}}, additionalProperties: {}}
                closed: {type: object, properties: {a: {type: string}}, additionalProperties: false}
                plain: {type: object, properties: {a: {type: string}}}
                anyObject: {type: object, additionalProperties: true}
                merged:
                  allOf:
                    - {type: object, properties: {a: {type: string}}}
                    - {properties: {b: {type: integer}}, additionalProperties: {type: integer}}
            """)
        #expect(diagnostics.filter { $0.severity == .error }.isEmpty, "\(diagnostics)")
        func extras(_ name: String) -> TypeReference?? { api?.types.first { $0.preferredName == name }.map(\.extraProperties) }
        #expect(extras("typed") == .some(.dateTime))
        #expect(extras("open") == .some(.json))
        #expect(extras("untyped") == .some(.json))
        #expect(extras("closed") == .some(nil))
        #expect(extras("plain") == .some(nil))
        #expect(extras("merged") == .some(.integer(bits: nil)))
        #expect(AllOfTests.properties(of: "Payload", in: api).first { $0.jsonName == "anyObject" }?.type == .dictionary(.json))
    }
}
