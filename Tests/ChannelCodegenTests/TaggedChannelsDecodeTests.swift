@testable import ChannelCodegen
import ChannelSpec
import ChildProcessSupport
import Foundation
import SeededRandom
import Testing

/// The common WebSocket shape: one channel, many messages told apart by what their schemas fix. Seeded
/// random specs draw such channels — a top-level tag (`const` or an enum of one value), a tag some
/// messages fix and others not, a nested tag (`params.source`), required keys of their own, a message
/// that admits no other keys (`additionalProperties: false`), and `anyOf` variants that overlap — and
/// payloads from each message's schema, each valid for exactly that message (or, for overlapping
/// `anyOf` variants, read whole only by it). Every payload must decode **into its own case** with every
/// value kept, key by key; a payload no message admits must be `unknown`, kept whole.
@Suite("Tagged channels decode each event into its own case")
struct TaggedChannelsDecodeTests {
    static let specCount = 24
    static let payloadsPerMessage = 4
    /// Fixed so a failure reproduces; `CHANNELGEN_TAGGED_SEED=<n>` explores others.
    static let seed = ProcessInfo.processInfo.environment["CHANNELGEN_TAGGED_SEED"].flatMap(UInt64.init) ?? 60_2026_1202

    @Test func everyPayloadOfATaggedChannelLandsInItsOwnCaseWhole() async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { if ProcessInfo.processInfo.environment["CHANNELGEN_KEEP_SPECS"] == nil { try? FileManager.default.removeItem(at: work) } }
        let (models, payloads, styles) = try await offThePool { () throws -> ([URL], [DecodeCheck.Payload], Set<Style>) in
            var random = SplitMix64(seed: Self.seed)
            var models: [URL] = [], payloads: [DecodeCheck.Payload] = [], styles: Set<Style> = []
            var namespaces = ""
            for index in 0..<Self.specCount {
                let spec = TaggedSpec.make(using: &random)
                styles.formUnion(spec.channels.map(\.style))
                let label = "tagged seed \(Self.seed) spec \(index)"
                let yaml = spec.yaml
                let (generated, diagnostics) = try TypeCheckSupport.models(yaml, label: label, index: index, in: work)
                guard let generated else {
                    Issue.record("\(label) was rejected:\n\(diagnostics.joined(separator: "\n"))\n\(yaml)")
                    continue
                }
                models.append(generated.file)
                namespaces += "enum \(generated.namespace) {}\n"
                let document = try YAMLLoader.load(yaml, file: "spec\(index).yaml")
                var draw = SchemaPayloads(document: document, random: SplitMix64(seed: Self.seed &+ UInt64(index)))
                for channel in spec.channels {
                    guard let union = Self.union(of: channel, in: generated.named), let typeName = union.swiftType(generated.namespace) else {
                        Issue.record("\(label): no union for channel \(channel.key)\n\(yaml)")
                        continue
                    }
                    for (offset, message) in channel.messages.enumerated() {
                        guard let caseName = union.caseName(offset) else {
                            Issue.record("\(label): no case for message \(message.key) of \(channel.key)")
                            continue
                        }
                        let schema = document["components"]!["schemas"]![message.schema]!
                        for _ in 0..<Self.payloadsPerMessage {
                            guard let json = draw.value(for: schema) else { continue }
                            payloads.append(DecodeCheck.Payload(
                                label: "\(label) channel \(channel.key) message \(message.key) (\(channel.style))",
                                type: typeName, json: json.text, kept: json.kept.text, expectedCase: caseName))
                        }
                    }
                    // A value no message admits (a key the closed message does not declare, no tag or
                    // key another requires): none may take it.
                    if channel.style == .requiredKeys, channel.messages.contains(where: \.isClosed) {
                        payloads.append(DecodeCheck.Payload(
                            label: "\(label) channel \(channel.key): admitted by no message", type: typeName,
                            json: #"{"zz-nobody":1}"#, kept: #"{"zz-nobody":1}"#, expectedCase: "unknown"))
                    }
                }
            }
            let namespaceFile = work.appendingPathComponent("Namespaces.swift")
            try namespaces.write(to: namespaceFile, atomically: true, encoding: .utf8)
            return (models + [namespaceFile], payloads, styles)
        }
        #expect(styles == Set(Style.allCases), "styles drawn: \(styles)")
        #expect(payloads.count >= Self.specCount * 8, "\(payloads.count) payloads")
        let main = work.appendingPathComponent("main.swift")
        try DecodeCheck.program(payloads, roundTrip: false, encodings: true).write(to: main, atomically: true, encoding: .utf8)
        let run = try await TestSupport.runProgram(models: models, main: main, in: work)
        #expect(run.build.status == 0, "\(run.build.stderr.prefix(4000))")
        #expect(DecodeCheck.summary(of: run.stdout)?.checked == payloads.count, "\(run.stdout.suffix(2000))")
        let failures = run.stdout.split(separator: "\n").filter { $0.hasPrefix("FAIL") || $0.hasPrefix("    ") }.map(String.init)
        #expect(failures.isEmpty, "\(failures.count / 2) payloads:\n\(failures.prefix(20).joined(separator: "\n"))")
        let keyFailures = DecodeCheck.keyFailures(stdout: run.stdout, payloads: payloads)
        #expect(keyFailures.isEmpty, "\(keyFailures.count) payloads:\n\(keyFailures.prefix(10).joined(separator: "\n"))")
    }

    /// The union a channel's events decode into, and its case names in message order.
    struct GeneratedUnion {
        var path: [String]
        var cases: [String]
        func swiftType(_ namespace: String) -> String? { ([namespace] + path).map { "`\($0)`" }.joined(separator: ".") }
        func caseName(_ offset: Int) -> String? { cases.indices.contains(offset) ? cases[offset] : nil }
    }

    /// A channel of several messages: its message union. One message whose payload is an `anyOf`: that union.
    static func union(of channel: TaggedSpec.Channel, in named: Generator.Named) -> GeneratedUnion? {
        guard let generated = named.api.channels.first(where: { $0.key == channel.key }), case .named(let id) = generated.message.payload,
              let type = named.api.types.first(where: { $0.id == id }), case .union(let union) = type.kind,
              let path = named.names.types[id]?.path.map(\.name), let cases = named.names.cases[id] else { return nil }
        // Cases in the order of `channel.messages`: by the message key, or (an `anyOf`) the variant's schema name.
        let keys = channel.messages.map { channel.style == .overlappingAnyOf ? $0.schema : $0.key }
        var ordered: [String] = []
        for key in keys {
            guard let offset = union.variants.firstIndex(where: { $0.preferredName == key }) else { return nil }
            ordered.append(cases[offset].name)
        }
        return GeneratedUnion(path: path, cases: ordered)
    }

    enum Style: String, CaseIterable, Hashable, CustomStringConvertible {
        /// Every message fixes one top-level property to its own value.
        case topLevelTag
        /// Some messages fix the tag; one fixes none and requires a key of its own.
        case partialTag
        /// Every message fixes a property of a required nested object (`params.source`).
        case nestedTag
        /// No tag: each message requires a key of its own; sometimes one admits no other keys.
        case requiredKeys
        /// One message whose payload is an `anyOf` of variants that share a required key.
        case overlappingAnyOf

        var description: String { rawValue }
    }
}

/// A random spec of tagged channels (see `TaggedChannelsDecodeTests`).
struct TaggedSpec {
    struct Message {
        var key: String
        /// The component schema of the payload; with `.overlappingAnyOf`, the variant drawn from.
        var schema: String
        var isClosed = false
    }

    struct Channel {
        var key: String
        var style: TaggedChannelsDecodeTests.Style
        var messages: [Message]
        /// The payload of the channel's one message when it is an `anyOf` of `messages`' schemas.
        var anyOfSchema: String?
    }

    var channels: [Channel] = []
    /// Component schemas as YAML blocks, each indented under `schemas:`.
    var schemas: [(name: String, yaml: String)] = []

    static let messageKeys = ["hello", "turnInfo", "update", "error", "ping", "default", "unknown", "Type", "self", "event", "délai", "job_done"]
    static let tagNames = ["type", "event", "method", "op", "kind"]
    static let tagValues = ["hello", "TurnInfo", "update", "", "é", "a/b", "Hello", "hello ", "0", "null", "true"]
    static let nestedNames = [("params", "source"), ("meta", "kind"), ("header", "type")]
    static let sharedNames = ["id", "at", "count", "note", "items", "flag", "score", "data", "value", "transcript", "session"]
    static let propertyTypes = [
        "{type: string}", "{type: integer, format: int64}", "{type: number}", "{type: boolean}",
        "{type: string, format: date-time}", "{type: array, items: {type: string}}", "{type: [string, 'null']}",
        "{type: object, properties: {x: {type: integer}}}", "{type: string, enum: [a, b]}",
    ]

    static func make(using random: inout SplitMix64) -> TaggedSpec {
        var spec = TaggedSpec()
        for channelIndex in 0..<Int.random(in: 1...3, using: &random) {
            let style = TaggedChannelsDecodeTests.Style.allCases.randomElement(using: &random)!
            spec.addChannel("c\(channelIndex)", style: style, using: &random)
        }
        return spec
    }

    /// Some properties from the shared pool (`avoiding` names another message requires), each a random type.
    private static func extraProperties(avoiding taken: Set<String>, using random: inout SplitMix64) -> [(name: String, schema: String, required: Bool)] {
        let names = sharedNames.filter { !taken.contains($0) }.shuffled(using: &random).prefix(Int.random(in: 0...4, using: &random))
        return names.map { ($0, propertyTypes.randomElement(using: &random)!, Bool.random(using: &random)) }
    }

    private static func object(_ properties: [(name: String, schema: String, required: Bool)], closed: Bool = false) -> String {
        var lines = ["  type: object"]
        let required = properties.filter(\.required).map { TypeCheckSupport.yaml($0.name) }
        if !required.isEmpty { lines.append("  required: [\(required.joined(separator: ", "))]") }
        if closed { lines.append("  additionalProperties: false") }
        lines.append(properties.isEmpty ? "  properties: {}" : "  properties:")
        for property in properties { lines.append("    \(TypeCheckSupport.yaml(property.name)): \(property.schema)") }
        return lines.joined(separator: "\n")
    }

    private mutating func addChannel(_ key: String, style: TaggedChannelsDecodeTests.Style, using random: inout SplitMix64) {
        let count = Int.random(in: 2...5, using: &random)
        let keys = Array(Self.messageKeys.shuffled(using: &random).prefix(count))
        let values = Array(Self.tagValues.shuffled(using: &random).prefix(count))
        let tag = Self.tagNames.randomElement(using: &random)!
        var messages: [Message] = []
        func fixed(_ value: String) -> String {
            Bool.random(using: &random) ? "{type: string, const: \(TypeCheckSupport.yaml(value))}" : "{type: string, enum: [\(TypeCheckSupport.yaml(value))]}"
        }
        switch style {
        case .topLevelTag, .partialTag:
            for (offset, messageKey) in keys.enumerated() {
                let schema = "\(key.uppercased())\(offset)"
                var properties = Self.extraProperties(avoiding: [tag, "own\(offset)"], using: &random)
                if style == .partialTag, offset == count - 1 {
                    // Fixes no tag, declares none: requires a key no other message has.
                    properties.append(("own\(offset)", "{type: string}", true))
                } else {
                    properties.insert((tag, fixed(values[offset]), true), at: Int.random(in: 0...properties.count, using: &random))
                }
                schemas.append((schema, Self.object(properties)))
                messages.append(Message(key: messageKey, schema: schema))
            }
        case .nestedTag:
            let (outer, inner) = Self.nestedNames.randomElement(using: &random)!
            for (offset, messageKey) in keys.enumerated() {
                let schema = "\(key.uppercased())\(offset)"
                let nested = "{type: object, required: [\(inner)], properties: {\(inner): \(fixed(values[offset])), n: {type: integer}}}"
                var properties = Self.extraProperties(avoiding: [outer], using: &random)
                properties.insert((outer, nested, true), at: Int.random(in: 0...properties.count, using: &random))
                schemas.append((schema, Self.object(properties)))
                messages.append(Message(key: messageKey, schema: schema))
            }
        case .requiredKeys:
            let closed = Bool.random(using: &random) ? Int.random(in: 0..<count, using: &random) : nil
            let own = Set((0..<count).map { "own\($0)" })
            for (offset, messageKey) in keys.enumerated() {
                let schema = "\(key.uppercased())\(offset)"
                var properties = Self.extraProperties(avoiding: own, using: &random)
                if offset == closed {
                    // Requires nothing, admits nothing undeclared: `{}` and its own optional keys are its alone.
                    properties = properties.map { ($0.name, $0.schema, false) }
                } else {
                    properties.insert(("own\(offset)", Self.propertyTypes.randomElement(using: &random)!, true), at: Int.random(in: 0...properties.count, using: &random))
                }
                schemas.append((schema, Self.object(properties, closed: offset == closed)))
                messages.append(Message(key: messageKey, schema: schema, isClosed: offset == closed))
            }
        case .overlappingAnyOf:
            // Every variant requires `a`; each other one requires a key of its own too, so a value is
            // read whole only by the variant it was drawn from (the one that reads the most keys).
            let shared = "{type: string}"
            let union = "\(key.uppercased())Union"
            let variants = min(count, 3)
            let own = Set((0..<variants).map { "own\($0)" }).union(["a"])
            for offset in 0..<variants {
                let schema = "\(key.uppercased())V\(offset)"
                var properties = Self.extraProperties(avoiding: own, using: &random)
                properties.append(("a", shared, true))
                if offset > 0 { properties.append(("own\(offset)", Self.propertyTypes.randomElement(using: &random)!, true)) }
                schemas.append((schema, Self.object(properties)))
                messages.append(Message(key: "message", schema: schema))
            }
            schemas.append((union, "  anyOf:\n" + messages.map { "    - {$ref: '#/components/schemas/\($0.schema)'}" }.joined(separator: "\n")))
            channels.append(Channel(key: key, style: style, messages: messages, anyOfSchema: union))
            return
        }
        channels.append(Channel(key: key, style: style, messages: messages))
    }

    var yaml: String {
        var lines = ["asyncapi: 3.0.0", "info: {title: Tagged, version: 1.0.0}", "channels:"]
        for channel in channels {
            lines.append("  \(channel.key):")
            lines.append("    address: app/\(channel.key)")
            lines.append("    messages:")
            if let union = channel.anyOfSchema {
                lines.append("      message: {payload: {$ref: '#/components/schemas/\(union)'}}")
                continue
            }
            for message in channel.messages {
                lines.append("      \(TypeCheckSupport.yaml(message.key)): {payload: {$ref: '#/components/schemas/\(message.schema)'}}")
            }
        }
        lines.append("operations:")
        for channel in channels {
            lines.append("  on\(channel.key.uppercased()): {action: receive, channel: {$ref: '#/channels/\(channel.key)'}}")
        }
        lines.append("components:")
        lines.append("  schemas:")
        for schema in schemas {
            lines.append("    \(schema.name):")
            lines.append(schema.yaml.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n"))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
