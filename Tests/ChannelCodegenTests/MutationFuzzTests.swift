import ChannelCodegen
import ChannelSpec
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
    ]
    static let values = [
        "", "~", "null", "true", "1e400", "-0", "0x1F", "'*/'", "\"\\u0000\"", "[]", "{}", "String", "Self", "init", "CodingKeys",
        "日付", "🚀", String(repeating: "a", count: 300), "\"a\\nb\"", "&x 1", "*x",
    ]

    @Test func mutantsNeverCrashAndEveryRejectionIsLocated() throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let specFolder = TestSupport.packageRoot.appendingPathComponent("spec")
        let originals = try ["vortex-events.asyncapi.yaml", "openapi-schemas.yaml"].map { name in
            (name, try Data(contentsOf: specFolder.appendingPathComponent(name)))
        }
        var random = SplitMix64(seed: Self.seed)
        var accepted = 0, rejected = 0
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
            if result.files != nil {
                accepted += 1
                #expect(errors.isEmpty)
            } else {
                rejected += 1
                #expect(!errors.isEmpty, "mutant \(index) (seed \(Self.seed)) was rejected without an error")
            }
            for error in errors {
                #expect(error.location != nil, "mutant \(index) (seed \(Self.seed)): unlocated \(error)")
                #expect(!error.description.contains("\n") && !error.description.contains("\u{1B}"), "mutant \(index): \(error)")
            }
            try FileManager.default.removeItem(at: folder)
        }
        // Both outcomes are exercised, or the mutations are too weak (or too strong) to mean anything.
        #expect(accepted > Self.count / 20)
        #expect(rejected > Self.count / 4)
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
