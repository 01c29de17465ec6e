@_spi(Generated) import ChannelRuntime
import Foundation
import SeededRandom
import Testing
import VortexEvents

/// The runtime's fast path (`ScannerDecoding`: each model's synthesized `Codable` read straight from
/// the bytes) against `JSONDecoder`, for every Vortex model, on seeded random payloads: valid ones in
/// many spellings and broken ones of every kind.
///
/// The rule: whenever the fast path returns a value, `JSONDecoder` returns an equal one; and the
/// runtime's decode (fast path, then `JSONDecoder` for what it declines) succeeds or fails exactly
/// as `JSONDecoder` does. Any disagreement fails the test with the payload.
@Suite("Fast decoders agree with JSONDecoder")
struct FastDecoderEquivalenceTests {
    indirect enum Kind {
        case string, date, bool, int, int64, double
        case openEnum([String])
        case object([(String, Kind)])
        case boolMap
    }

    static let common: [(String, Kind)] = [("eventType", .string), ("timestamp", .date), ("orgId", .string)]
    static let device: [(String, Kind)] = common + [("siteId", .string), ("thingName", .string), ("derivant", .string), ("mac", .string)]

    @Test func devicePresence() { check(DevicePresenceOutput.self, Self.device + [("online", .bool)]) }
    @Test func deviceRecording() { check(DeviceRecordingOutput.self, Self.device + [("recording", .bool)]) }
    @Test func deviceFirmware() { check(DeviceFirmwareOutput.self, Self.device + [("fwUpdateState", .int)]) }
    @Test func archiveState() {
        check(ArchiveStateOutput.self, Self.device + [
            ("status", .openEnum(["Pending", "Uploading", "Processing", "Completed", "Failed", "Deleted"])),
            ("videoLength", .double), ("videoSize", .int64), ("cloudSize", .int64), ("hasH265", .bool), ("createdAt", .date),
        ])
    }
    @Test func licenseState() {
        check(LicenseStateOutput.self, Self.common + [
            ("licensePhase", .openEnum(["SetupStatus", "Valid", "NoticePeriod", "GracePeriod", "RenewalOverdue", "Invalid"])),
        ])
    }
    @Test func planState() { check(PlanStateOutput.self, Self.common + [("isFreePlan", .bool)]) }
    @Test func aiSettings() {
        check(AISettingsOutput.self, Self.common + [
            ("aiControlSetting", .object([("uuid", .string), ("termsAgreement", .bool), ("options", .boolMap)])),
        ])
    }
    @Test func roleChange() { check(RoleChangeOutput.self, Self.common + [("reason", .string)]) }
    @Test func userTokenRevoke() {
        check(UserTokenRevokeOutput.self, [
            ("eventType", .string), ("timestamp", .date), ("userId", .string), ("revokedAt", .date),
            ("reason", .openEnum(["PASSWORD_CHANGED"])), ("requestId", .string),
        ])
    }

    /// The seeds are fixed so a failure reproduces; `CHANNELGEN_PAYLOAD_SEED=<n>` explores others.
    static let seed = ProcessInfo.processInfo.environment["CHANNELGEN_PAYLOAD_SEED"].flatMap(UInt64.init) ?? 0xFA57_DEC0

    /// 3 000 payloads per model; fails on the first few disagreements with the payload.
    func check<Model: Decodable & Equatable>(_ model: Model.Type, _ fields: [(String, Kind)], count: Int = 3_000) {
        var random = SplitMix64(seed: Self.seed &+ UInt64("\(Model.self)".utf8.count))
        var disagreements = 0, ordinary = 0, ordinaryAnswered = 0, unusualAnswered = 0
        let reader = ScannerDecoding()
        for index in 0..<count where disagreements < 5 {
            // A fourth are ordinary (every key, plain values), a fourth plain values in an unusual
            // layout (keys missing, null, repeated or unknown), the rest hostile.
            let spelling: Spelling = [.ordinary, .unusualLayout, .hostile, .hostile][index % 4]
            let payload = spelling == .hostile ? Self.payload(fields, &random) : Self.object(fields, spelling, &random)
            if spelling == .ordinary { ordinary += 1 }
            let reference = Result { try JSONDecoder().decode(Model.self, from: Data(payload.utf8)) }
            if let fast = reader.read(Model.self, from: payload) {
                if spelling == .ordinary { ordinaryAnswered += 1 }
                if spelling == .unusualLayout { unusualAnswered += 1 }
                if (try? reference.get()) != fast {
                    disagreements += 1
                    Issue.record("the fast path read \(payload) as \(fast); JSONDecoder: \(reference)")
                }
            }
            let runtime = Result { try reader.decode(Model.self, from: payload, fallback: JSONDecoder()) }
            if (try? runtime.get()) != (try? reference.get()) {
                disagreements += 1
                Issue.record("the runtime decoded \(payload) as \(runtime); JSONDecoder: \(reference)")
            }
        }
        // The fast path must answer every ordinary payload (or it is no fast path), and some in
        // unusual layouts, so the comparison above covers its answers beyond the plain case. (Hostile
        // payloads with many fields nearly always hold something it declines, so they cannot promise that.)
        #expect(ordinaryAnswered == ordinary, "the fast path declined \(ordinary - ordinaryAnswered) of \(ordinary) ordinary payloads")
        #expect(unusualAnswered > 0, "the fast path declined every payload in an unusual layout")
    }

    enum Spelling { case ordinary, unusualLayout, hostile }

    // MARK: Payloads

    static func payload(_ fields: [(String, Kind)], _ random: inout SplitMix64) -> String {
        var text = object(fields, .hostile, &random)
        switch Int.random(in: 0..<40, using: &random) {
        case 0: text += " x"  // trailing garbage
        case 1: text = "\u{FEFF}" + text  // byte order mark
        case 2: text = String(text.dropLast(Int.random(in: 1...min(5, text.count), using: &random)))  // truncated
        case 3: text = text.replacingOccurrences(of: "}", with: ",}")  // trailing commas
        case 4: text = "\n\t " + text + " \r\n"
        case 5: text = "[" + text + "]"
        default: break
        }
        return text
    }

    static func object(_ fields: [(String, Kind)], _ spelling: Spelling, _ random: inout SplitMix64) -> String {
        let valueText = { (kind: Kind, random: inout SplitMix64) in
            spelling == .hostile ? value(kind, &random) : ordinaryValue(kind, &random)
        }
        var members: [String] = []
        for (key, kind) in fields {
            if spelling == .ordinary {
                members.append("\"\(key)\":\(valueText(kind, &random))")
                continue
            }
            let roll = Int.random(in: 0..<100, using: &random)
            if roll < 8 { continue }  // missing
            if roll < 14 {
                members.append("\"\(key)\":null")
                continue
            }
            members.append("\"\(key)\":\(valueText(kind, &random))")
            if roll == 99 { members.append("\"\(key)\":\(valueText(kind, &random))") }  // duplicate key
        }
        for _ in 0..<Int.random(in: 0...2, using: &random) where spelling != .ordinary {
            let keys = ["extra", "x", "nested", "e\\u0301t\\u00e9", "orgId2", ""]
            let unknown = spelling == .hostile ? unknownValue(&random) : validUnknownValues.randomElement(using: &random)!
            members.insert("\"\(keys.randomElement(using: &random)!)\":\(unknown)", at: Int.random(in: 0...members.count, using: &random))
        }
        members.shuffle(using: &random)
        let separator = [",", ", ", ",\n  "].randomElement(using: &random)!
        return "{" + members.joined(separator: separator) + "}"
    }

    static func value(_ kind: Kind, _ random: inout SplitMix64) -> String {
        let wrongType = ["1", "true", "\"x\"", "[]", "{}", "null"]
        if Int.random(in: 0..<25, using: &random) == 0 { return wrongType.randomElement(using: &random)! }
        switch kind {
        case .string:
            return [
                "\"cam-1\"", "\"\"", "\"a\\\"b\\\\c\"", "\"\\u00e9t\\u00e9\"", "\"日付\"", "\"\\ud83d\\ude80\"", "\"\\ud800\"",
                "\"tab\\there\"", "\"line\nbreak\"", "\"\\/slash\"", "\"\\x\"", "\"" + String(repeating: "long", count: 40) + "\"",
            ].randomElement(using: &random)!
        case .date:
            return [
                "\"2025-01-26T12:00:00Z\"", "\"2025-01-26T12:00:00.123Z\"", "\"2025-01-26T12:00:00+08:00\"",
                "\"2025-01-26T11:59:00.5-03:30\"", "\"2025-01-26T12:00:00.123456Z\"", "\"2025-01-26\"", "\"2025-01-26T12:00:00\"",
                "\"2025-13-40T99:00:00Z\"", "\"soon\"", "1737892800",
                // Escaped, non-ASCII and broken spellings, which the fast path cannot take from the raw bytes.
                "\"2025-01-26T12:00:00\\u005A\"", "\"2025\\u002D01-26T12:00:00Z\"", "\"2025-01-26T12:00:00Zé\"",
                "\"2025-01-26T12:00:00\tZ\"", "\"2025-01-26T12:00:00Z",
            ].randomElement(using: &random)!
        case .bool:
            return ["true", "false", "\"true\"", "0", "tru"].randomElement(using: &random)!
        case .int, .int64:
            return [
                "0", "-0", "42", "-12", "9223372036854775807", "9223372036854775808", "-9223372036854775808", "1.0", "1e2", "1.5",
                "\"3\"", "01", "18874368", "4294967296",
            ].randomElement(using: &random)!
        case .double:
            return [
                "42.5", "0", "-0.0", "0.1", "1e400", "-1e400", "1e-400", "4.9e-324", "123456789012345678901234567890", "1E5", "5",
                "1.", ".5", "-", "2.2250738585072014e-308",
            ].randomElement(using: &random)!
        case .openEnum(let values):
            return (values.map { "\"\($0)\"" } + ["\"Archived\"", "\"\"", "\"pending\""]).randomElement(using: &random)!
        case .object(let fields):
            return object(fields, .hostile, &random)
        case .boolMap:
            return ["{}", "{\"a\":true,\"b\":false}", "{\"a\":true,\"a\":false}", "{\"a\":1}", "{\"a\":null}", "[]"].randomElement(using: &random)!
        }
    }

    /// Plain spellings of each kind, the way servers write them.
    static func ordinaryValue(_ kind: Kind, _ random: inout SplitMix64) -> String {
        switch kind {
        case .string: return ["\"cam-1\"", "\"\"", "\"a\\\"b\"", "\"\\u00e9t\\u00e9\"", "\"日付\"", "\"00:02:D1:AA:BB:01\""].randomElement(using: &random)!
        case .date:
            return ["\"2025-01-26T12:00:00Z\"", "\"2025-01-26T12:00:00.123Z\"", "\"2025-01-26T12:00:00+08:00\"", "\"2025-01-26T11:59:00.5-03:30\""]
                .randomElement(using: &random)!
        case .bool: return Bool.random(using: &random) ? "true" : "false"
        case .int: return String(Int.random(in: -1_000...1_000, using: &random))
        case .int64: return String(Int64.random(in: 0...Int64.max, using: &random))
        case .double: return ["42.5", "0", "0.1", "1E5", "5", "-3.25e-2", String(Double.random(in: -1e6...1e6, using: &random))].randomElement(using: &random)!
        case .openEnum(let values): return (values + ["Archived"]).map { "\"\($0)\"" }.randomElement(using: &random)!
        case .object(let fields): return object(fields, .ordinary, &random)
        case .boolMap: return ["{}", "{\"a\":true,\"b\":false}"].randomElement(using: &random)!
        }
    }

    /// What an unknown key may hold: any JSON, some of it malformed (`JSONDecoder` skips unknown
    /// values without checking them all; the fast path declines those).
    static func unknownValue(_ random: inout SplitMix64) -> String {
        (validUnknownValues + ["1e", "\"\\x\"", "[1,]", "nul", "-", "\"\\u12\"", "{\"k\" 1}", "01"]).randomElement(using: &random)!
    }

    static let validUnknownValues = ["1", "\"s\"", "[1,{\"a\":[null,true]}]", "{\"deep\":{\"deeper\":[1.5e3]}}"]
}
