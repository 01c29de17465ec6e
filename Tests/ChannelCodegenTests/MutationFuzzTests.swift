import ChannelCodegen
import ChannelSpec
import ChildProcessSupport
import Foundation
import SeededRandom
import Testing

/// Seeded mutants of the Vortex spec and its schemas (lines deleted, duplicated, swapped,
/// re-indented; tokens, hostile values and raw bytes inserted; files truncated), each run through
/// the whole generator in process. None may crash; every rejection is an error with a
/// `file:line:col`; accepted mutants render. `CHANNELGEN_FUZZ_SEED=<n>` explores other mutants.
@Suite("Mutation fuzzing")
struct MutationFuzzTests {
    static let count = 2_000
    static let seed = ProcessInfo.processInfo.environment["CHANNELGEN_FUZZ_SEED"].flatMap(UInt64.init) ?? 11_22

    static let tokens = [
        "{", "}", "[", "]", "&a ", "*a", "*nope", ": ", "- ", "\t", "? ", "| ", "> ", "!!binary ", "'", "\"", "#", "%YAML 1.1",
        "---", "...", "<<: *a", "x-", "é", "日付", "\u{202E}", "\u{0}", "\u{1B}[2J", "\r", "\u{2028}",
        "$ref: '#/components/schemas/DevicePresenceOutput'", "$ref: '../../../../etc/passwd'", "$ref: ''", "$ref: '#/%zz'",
        "$ref: '#/components/schemas/'", "$ref: 'openapi-schemas.yaml#/components/schemas/PlanStateOutput'",
        "type: [string, 'null']", "type: [string, integer]", "enum: []", "items: {}", "oneOf: []", "allOf: []", "not: {}",
        "required: [nope]", "format: date-time", "additionalProperties: {$ref: '#/components/schemas/AISettingsOutput'}",
        "x-swift-name: Self", "x-swift-name: ''", "address: a/{b}/{b}", "address: '*'", "action: send", "name: \"\\r\\n\"",
        // Valid constructs that used to reject a document (issue 30).
        "payload: true", "payload: false", "type: 'null'", "patternProperties: {'^x-': {type: integer}}", "schemaFormat: ''",
        "contentType: application/octet-stream", "headers: {type: object}", "reply: {channel: {$ref: '#/channels/x'}}",
        "format: uuid", "location: '$message.payload#/id'", "anyOf: [{$ref: '#/components/schemas/DevicePresenceOutput'}]",
        "discriminator: {propertyName: nope, mapping: {a: '#/components/schemas/Nope'}}",
        // Channels sharing an address, told apart by a fixed property (or not at all).
        "address: vortex-app/user/{userId}/device/presenceChanged", "address: vortex-app/user/{id}/device/firmwareUpdated",
        "const: presenceChanged", "eventType: {type: string, const: \"*/\"}",
        // Keys and values alike but for Unicode normalization (`é` as U+00E9 and as `e` + U+0301).
        "\"caf\\u00E9\": {type: string}", "\"cafe\\u0301\": {type: integer}", "enum: [\"\\u00E9\", \"e\\u0301\"]",
        "$ref: \"#/components/schemas/Caf\\u00E9\"", "address: \"vortex-app/user/{\\u00E9}/{e\\u0301}\"",
        // A JSON document's long key (libyaml's 1 024-character cap).
        "{\"\(String(repeating: "k", count: 1_100))\": 1}",
    ]
    static let values = [
        "", "~", "null", "true", "1e400", "-0", "0x1F", "'*/'", "\"\\u0000\"", "[]", "{}", "String", "Self", "init", "CodingKeys",
        "日付", "🚀", String(repeating: "a", count: 300), "\"a\\nb\"", "&x 1", "*x",
    ]

    @Test func mutantsNeverCrashAndEveryRejectionIsLocated() async throws {
        // Minutes of generator work: on a thread of its own, so loopback tests running alongside keep moving.
        let outcome = try await offThePool { try Self.runMutants() }
        #expect(outcome.problems.isEmpty, "\(outcome.problems.count) problems:\n\(outcome.problems.prefix(20).joined(separator: "\n"))")
        // Both outcomes are exercised, or the mutations are too weak (or too strong) to mean anything.
        #expect(outcome.accepted > Self.count / 20)
        #expect(outcome.rejected > Self.count / 4)
    }

    struct Outcome: Sendable {
        var accepted = 0, rejected = 0
        var problems: [String] = []
    }

    /// Generates every mutant and notes each broken promise: a rejection without an error, an error
    /// without a location, an error text that spans lines or carries terminal escapes.
    static func runMutants() throws -> Outcome {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let specFolder = TestSupport.packageRoot.appendingPathComponent("spec")
        let originals = try ["vortex-events.asyncapi.yaml", "openapi-schemas.yaml"].map { name in
            (name, try Data(contentsOf: specFolder.appendingPathComponent(name)))
        }
        var random = SplitMix64(seed: Self.seed)
        var outcome = Outcome()
        for index in 0..<Self.count {
            let folder = work.appendingPathComponent("m\(index)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let target = Int.random(in: 0..<originals.count, using: &random)
            for (position, (name, data)) in originals.enumerated() {
                let bytes = position == target ? Self.mutate([UInt8](data), using: &random) : [UInt8](data)
                try Data(bytes).write(to: folder.appendingPathComponent(name))
            }
            let config = GeneratorConfig(specPath: folder.appendingPathComponent("vortex-events.asyncapi.yaml").path, notifierName: "BackendNotifier")
            let result = Generator.generate(config: config)
            let errors = result.diagnostics.filter { $0.severity == .error }
            let mutant = "mutant \(index) (seed \(Self.seed))"
            if result.files != nil {
                outcome.accepted += 1
                if !errors.isEmpty { outcome.problems.append("\(mutant) was accepted with errors: \(errors)") }
            } else {
                outcome.rejected += 1
                if errors.isEmpty { outcome.problems.append("\(mutant) was rejected without an error") }
            }
            for error in errors {
                if error.location == nil { outcome.problems.append("\(mutant): unlocated \(error)") }
                if error.description.contains("\n") || error.description.contains("\u{1B}") { outcome.problems.append("\(mutant): \(error)") }
            }
            try FileManager.default.removeItem(at: folder)
        }
        return outcome
    }

    static func mutate(_ bytes: [UInt8], using random: inout SplitMix64) -> [UInt8] {
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(Array.init)
        let line = Int.random(in: 0..<lines.count, using: &random)
        switch Int.random(in: 0..<9, using: &random) {
        case 0:
            lines.remove(at: line)
        case 1:
            lines.insert(lines[line], at: line)
        case 2:
            lines.swapAt(line, Int.random(in: 0..<lines.count, using: &random))
        case 3:
            lines[line] = Array(repeating: UInt8(ascii: " "), count: 2) + lines[line]
        case 4:
            lines[line] = Array(lines[line].drop(while: { $0 == UInt8(ascii: " ") }).prefix(lines[line].count))
        case 5:
            let at = Int.random(in: 0...lines[line].count, using: &random)
            lines[line].insert(contentsOf: Array(tokens.randomElement(using: &random)!.utf8), at: at)
        case 6:
            if let colon = lines[line].firstIndex(of: UInt8(ascii: ":")) {
                lines[line] = Array(lines[line][...colon]) + Array((" " + values.randomElement(using: &random)!).utf8)
            }
        case 7:
            let cut = Int.random(in: 0...bytes.count, using: &random)
            return Array(bytes[..<cut])
        default:
            let at = Int.random(in: 0...lines[line].count, using: &random)
            lines[line].insert(contentsOf: [[0xC3, 0x28], [0xFF], [0x00], [0x09], [0xEF, 0xBB, 0xBF]].randomElement(using: &random)!, at: at)
        }
        return Array(lines.joined(separator: [UInt8(ascii: "\n")]))
    }
}
