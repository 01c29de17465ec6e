import ChannelCodegen
import ChildProcessSupport
import Foundation
import Testing

/// The compile guarantee on hostile input: names that are Swift keywords, standard-library,
/// Foundation and runtime type names, names the generator itself declares, names that differ
/// only in case or only in dropped characters, non-Latin and emoji names, and texts with line
/// breaks, quotes, backslashes and comment markers in every field. Every case must generate
/// (names never block a valid spec) and all of its files, mocks included, must type-check.
@Suite("Hostile names and texts")
struct HostileNamesTests {
    typealias P = SpecBuilder.PropertySpec

    static func string(_ name: String, required: Bool = false) -> P { P(name: name, schema: "{type: string}", required: required) }

    static func object(_ name: String) -> P {
        P(name: name, schema: "{type: object, properties: {inner: {type: string, format: date-time}}}")
    }

    static func enumeration(_ values: [String]) -> P {
        P(name: "kind", schema: "{type: string, enum: [\(values.map(TypeCheckSupport.yaml).joined(separator: ", "))]}", required: true)
    }

    /// A schema named `name` used as a payload and as a property type of another.
    static func component(_ name: String) -> SpecBuilder {
        var spec = SpecBuilder.single(schema: "Envelope", properties: [
            P(name: "body", schema: "{$ref: \(TypeCheckSupport.reference("components/schemas", name))}", required: true),
            string("text"), P(name: "when", schema: "{type: string, format: date-time}"), P(name: "flag", schema: "{type: boolean}"),
            P(name: "count", schema: "{type: integer}"), P(name: "ratio", schema: "{type: number}"),
            P(name: "tags", schema: "{type: array, items: {type: string}}"),
            P(name: "map", schema: "{type: object, additionalProperties: {type: integer}}"),
        ])
        spec.schemas.append(SpecBuilder.Schema(name: name, properties: [string("a"), object("nested"), enumeration(["x", "y"])]))
        spec.channels.append(SpecBuilder.ChannelSpec(
            key: "second", address: "ns/{userId}/second", parameters: ["userId"], operationId: "secondValues", messageName: nil, payload: name))
        return spec
    }

    static func channel(parameter: String, operation: String = "eventValues", key: String = "events") -> SpecBuilder {
        SpecBuilder(
            channels: [SpecBuilder.ChannelSpec(key: key, address: "ns/{\(parameter)}/events", parameters: [parameter], operationId: operation,
                                               messageName: "event", payload: "Payload")],
            schemas: [SpecBuilder.Schema(name: "Payload", properties: [string("eventType", required: true)])])
    }

    static let injection = "When.\rpublic static let injectedMarker = 1"

    static let cases: [(String, SpecBuilder)] = {
        var cases: [(String, SpecBuilder)] = []
        // Schemas named like the types generated code uses or declares.
        for name in [
            "String", "Date", "Data", "Error", "Result", "Optional", "Codable", "Type", "Protocol", "Self", "CodingKeys",
            "Channels", "Event", "AsyncStream", "ChannelTemplate", "ChannelSegment", "ChannelSubscription",
            "ChannelEventSource", "ChannelParameterError", "EventBroadcaster", "EventTypeReporting", "Decoder", "Encoder",
            "CodingKey", "Hasher", "Bool", "Int", "Double", "Swift", "Foundation", "ChannelRuntime", "ISO8601Timestamp", "ISO8601", "ISO8601Coded",
            "Sendable", "Hashable", "DecodingError", "Never", "HostileEventsNotifier", "EventsSubscription", "class", "日付",
        ] {
            cases.append(("schema \(name)", component(name)))
        }
        // Property names.
        for names in [
            ["class", "Self", "self", "init", "default", "Type", "protocol"],
            ["name", "Name", "NAME", "na_me", "na-me"],
            ["hashValue", "rawValue", "stringValue", "intValue", "description", "encode", "hash", "container", "decoder", "encoder"],
            ["été", "日付", "🚀", "☀", "", " ", "_", "1abc", "a b", String(repeating: "long", count: 75)],
            ["unknown", "knownCases", "eventType", "CodingKeys", "codingKeys"],
        ] {
            cases.append(("properties \(names.prefix(3))", SpecBuilder.single(properties: names.map { string($0, required: true) })))
        }
        // Inline objects whose nested types shadow what the generated code uses.
        for name in ["codingKeys", "date", "string", "bool", "decoder", "encoder", "hasher", "type", "self", "payload", "int"] {
            cases.append(("nested \(name)", SpecBuilder.single(properties: [
                object(name), P(name: "at", schema: "{type: string, format: date-time}", required: true), string("other"),
            ])))
        }
        // Enum values.
        for values in [
            ["\r\n", "*/", "", "\n", "\r"],
            ["unknown", "Unknown", "UNKNOWN", "knownCases", "rawValue", "hashValue"],
            ["init", "self", "Self", "default", "case", "Type"],
            ["a", "A", "été", "🚀", "☀", "-1", "+1", "1", "_"],
            ["\"quoted\"", "back\\slash", "#\"raw\"#", "\\(interpolated)", "\"\"\"", "\u{2028}", "\u{202E}rtl"],
        ] {
            cases.append(("enum \(values.prefix(2))", SpecBuilder.single(properties: [enumeration(values)])))
        }
        // Channel parameters and operations.
        for parameter in ["channel", "parameters", "source", "self", "template", "eventType", "init", "Event", "value"] {
            cases.append(("parameter \(parameter)", channel(parameter: parameter)))
        }
        for operation in ["selfValues", "init", "source", "default", "setUserId", "self", "userIdChanges"] {
            cases.append(("operation \(operation)", channel(parameter: "userId", operation: operation)))
        }
        cases.append(("two parameters mapping to one name", {
            var spec = channel(parameter: "user_id")
            spec.channels.append(SpecBuilder.ChannelSpec(
                key: "other", address: "ns/{userId}/other", parameters: ["userId"], operationId: "otherValues", messageName: nil, payload: "Payload"))
            return spec
        }()))
        // Texts in every field.
        for text in [
            injection, "line one\nline two\r\nline three", "*/ /* // ///", "\"quotes\" \\backslash\\ \\(x)", "\u{2028}public let y = 2",
            "\u{85}next line", "\u{1B}[31mred\u{1B}[0m", "\u{202E}reversed", "", "   ", "#\"raw\"#", "\t tab", "\u{0}nul",
        ] {
            var spec = SpecBuilder.single(properties: [
                P(name: "detail", schema: """
                    {type: string, description: \(TypeCheckSupport.yaml(text)), example: \(TypeCheckSupport.yaml(text)), \
                    pattern: \(TypeCheckSupport.yaml(text)), default: \(TypeCheckSupport.yaml(text)), format: \(TypeCheckSupport.yaml(text))}
                    """),
                enumeration(["a", text]),
            ], text: text)
            spec.title = "Title " + text
            spec.channels[0].messageName = text
            cases.append(("text \(text.debugDescription)", spec))
        }
        // Caseless and digit-led names are the same in UpperCamel and lowerCamel.
        for name in ["日付", "🚀", "1abc", "_"] {
            var spec = SpecBuilder.single(schema: name, properties: [string(name, required: true), object(name + "x"), object(name + "!")])
            spec.channels[0].key = name
            spec.channels[0].operationId = name + "Subscription"
            cases.append(("caseless \(name)", spec))
        }
        // Explicit names used raw before.
        for name in ["time stamp", "1abc", "Self", "Date", "init", "String"] {
            var spec = SpecBuilder.single(properties: [string("a", required: true)])
            spec.schemas[0].xSwiftName = name
            spec.channels[0].xSwiftName = name
            spec.notifier = name
            cases.append(("x-swift-name \(name)", spec))
        }
        return cases
    }()

    @Test func corpusHasAtLeastFortyCases() {
        #expect(Self.cases.count >= 40)
    }

    @Test func everyCaseGeneratesAndTypeChecks() async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        // Generation on a thread of its own, so loopback tests running alongside keep moving.
        let (units, problems) = try await offThePool { () throws -> ([TypeCheckSupport.Unit], [String]) in
            var units: [TypeCheckSupport.Unit] = [], problems: [String] = []
            for (index, (label, spec)) in Self.cases.enumerated() {
                let (unit, diagnostics) = try TypeCheckSupport.generate(spec.yaml, label: label, index: index, in: work)
                if let unit { units.append(unit) } else { problems.append("\(label) was rejected: \(diagnostics.joined(separator: "\n"))") }
                for diagnostic in diagnostics where diagnostic.wholeMatch(of: /^.+:\d+:\d+: (warning|note): [^\n\r\u{1B}]+$/) == nil {
                    problems.append("\(label): not a located one-line warning: \(diagnostic)")
                }
            }
            return (units, problems)
        }
        #expect(problems.isEmpty, "\(problems.prefix(20).joined(separator: "\n"))")
        // Two compiler runs in parallel on the two cores.
        let firstHalf = Array(units[..<(units.count / 2)]), secondHalf = Array(units[(units.count / 2)...])
        async let first = TypeCheckSupport.typecheck(firstHalf, in: work)
        async let second = TypeCheckSupport.typecheck(secondHalf, in: work)
        let errors = try await first + second
        #expect(errors.isEmpty, "\(errors.prefix(20).joined(separator: "\n"))")
    }

    /// A CR (or LS, NEL, …) in a description must not end a `///` line and let the rest compile as code.
    @Test func specTextNeverBecomesADeclaration() throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let (label, spec) = try #require(Self.cases.first { $0.0.contains("injectedMarker") })
        let unit = try #require(try TypeCheckSupport.generate(spec.yaml, label: label, index: 0, in: work).unit)
        var checked = 0
        for file in unit.files {
            for line in file.contents.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) where line.contains("injectedMarker") {
                let before = line[..<line.range(of: "injectedMarker")!.lowerBound]
                #expect(before.contains("//") || before.contains("\""), "spec text became code in \(file.name): \(line)")
                checked += 1
            }
        }
        #expect(checked > 5)
    }
}
