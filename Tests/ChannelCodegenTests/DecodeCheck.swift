import Foundation

/// A program that decodes payloads into generated models, the way an app receives them: each payload
/// through `JSONDecoder` and through the runtime's decoder (fast path, then `JSONDecoder`), which must
/// both succeed and agree; with `roundTrip`, also back through `JSONEncoder` to the same value; with
/// `sameJSON`, the encoding must be the payload itself (keys sorted), so a property read from
/// another key than it writes shows (for payloads without `null`s, whose dates the encoder writes as given).
/// (Not for random specs: a union tried variant by variant may read its own encoding as an earlier
/// variant that accepts the same JSON, which loses nothing the server sent.)
///
/// With `encodings`, the program also prints each decoded value's encoding (`ENC <index> <base64>`),
/// and `keyFailures` checks that every value came from its own key (see `PerKey`), which holds
/// for random specs' unions too.
///
/// The payloads travel as base64, so no payload text can break the program's source.
enum DecodeCheck {
    struct Payload {
        /// What a failure names: the spec and the schema.
        var label: String
        /// The model's type as a Swift expression (`Thing`, `` `__Spec3`.`Name` ``).
        var type: String
        var json: String
        /// The members a model must write back (`SchemaPayloads.JSON.kept`), for `keyFailures`.
        var kept: String? = nil
        /// The case of the union (`type`) the payload must land in, as its name reads (no backticks).
        var expectedCase: String? = nil
    }

    /// `main.swift`: prints a line `FAIL <label>: <reason>` per failing payload, then `checked <n>, failures <m>`.
    static func program(_ payloads: [Payload], roundTrip: Bool = true, sameJSON: Bool = false, encodings: Bool = false) -> String {
        var checks = ""
        for payload in payloads {
            let label = Data(payload.label.utf8).base64EncodedString(), json = Data(payload.json.utf8).base64EncodedString()
            let expected = payload.expectedCase.map { "\"\(Data($0.utf8).base64EncodedString())\"" } ?? "nil"
            checks += "checker.check(\(payload.type).self, \"\(label)\", \"\(json)\", \(expected))\n"
        }
        return #"""
            import Foundation

            struct Checker {
                let reader = ScannerDecoding()
                var checked = 0, failures = 0

                mutating func check<T: Codable & Hashable>(_ type: T.Type, _ label: String, _ json: String, _ expectedCase: String? = nil) {
                    let label = String(decoding: Data(base64Encoded: label)!, as: UTF8.self)
                    let expectedCase = expectedCase.map { String(decoding: Data(base64Encoded: $0)!, as: UTF8.self) }
                    let json = String(decoding: Data(base64Encoded: json)!, as: UTF8.self)
                    checked += 1
                    var reasons: [String] = []
                    defer {
                        if !reasons.isEmpty {
                            failures += 1
                            print("FAIL \(label) (\(T.self)): \(reasons.joined(separator: "; "))\n    \(json)")
                        }
                    }
                    let reference: T
                    do {
                        reference = try JSONDecoder().decode(T.self, from: Data(json.utf8))
                    } catch {
                        reasons.append("JSONDecoder fails: \(error)")
                        return
                    }
                    // A union's value names its case first (an enum's only child is its case's payload).
                    if let expectedCase, case let actual = Mirror(reflecting: reference).children.first?.label ?? "(none)", actual != expectedCase {
                        reasons.append("decodes as case '\(actual)', not '\(expectedCase)'")
                    }
                    do {
                        if try reader.decode(T.self, from: json, fallback: JSONDecoder()) != reference { reasons.append("the runtime's decoder reads another value") }
                    } catch {
                        reasons.append("the runtime's decoder fails: \(error)")
                    }
                    if let quick = reader.read(T.self, from: json), quick != reference { reasons.append("the fast path reads another value") }
                    if ENCODINGS {
                        do {
                            print("ENC \(checked - 1) \(try JSONEncoder().encode(reference).base64EncodedString())")
                        } catch {
                            reasons.append("encoding fails: \(error)")
                        }
                    }
                    if SAME_JSON {
                        let sorted = { (data: Data) throws -> Data in
                            try JSONSerialization.data(withJSONObject: JSONSerialization.jsonObject(with: data), options: [.sortedKeys])
                        }
                        do {
                            let written = try sorted(JSONEncoder().encode(reference))
                            if try written != sorted(Data(json.utf8)) { reasons.append("encodes as another JSON: \(String(decoding: written, as: UTF8.self))") }
                        } catch {
                            reasons.append("encoding fails: \(error)")
                        }
                    }
                    guard ROUND_TRIP else { return }
                    do {
                        if try JSONDecoder().decode(T.self, from: JSONEncoder().encode(reference)) != reference { reasons.append("encoding and decoding again changes the value") }
                    } catch {
                        reasons.append("encoding and decoding again fails: \(error)")
                    }
                }
            }

            var checker = Checker()
            """#.replacingOccurrences(of: "ROUND_TRIP", with: roundTrip ? "true" : "false").replacingOccurrences(of: "SAME_JSON", with: sameJSON ? "true" : "false")
            .replacingOccurrences(of: "ENCODINGS", with: encodings ? "true" : "false") + "\n" + checks + #"print("checked \(checker.checked), failures \(checker.failures)")"# + "\n"
    }

    /// The summary line's counts, or `nil` when the program did not get that far.
    static func summary(of stdout: String) -> (checked: Int, failures: Int)? {
        guard let last = stdout.split(separator: "\n").last, last.hasPrefix("checked ") else { return nil }
        let numbers = last.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        return numbers.count == 2 ? (numbers[0], numbers[1]) : nil
    }
}
