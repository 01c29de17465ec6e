import Foundation
import Testing

/// Issue 50: an object of many properties keeps them in parts (`WideObjects`), so its debug build
/// grows linearly; to an app it is the same struct. These tests decode, encode and use it.
@Suite("Wide objects")
struct WideObjectTests {
    /// 150 properties (three parts) with what could go wrong at a part's edge: properties and a nested
    /// type with the parts' own names (`part0`, `Part1`), a top-level type named like a part
    /// (`Part2`), a property named `self`, a JSON key that is not a Swift name, a date, required
    /// properties in the last part.
    static let spec: String = {
        var properties = [
            "part0: {type: string}",
            "part1: {type: object, properties: {inner: {type: integer}}}",
            "self: {type: boolean}",
            "first-name: {type: string}",
            "other: {$ref: '#/components/schemas/Part2'}",
        ]
        properties += (properties.count..<146).map { index in "p\(index): {type: \(["string", "integer", "number"][index % 3])}" }
        properties += ["createdAt: {type: string, format: date-time}", "last: {type: string}", "kind: {type: string, enum: [a, b]}", "tail: {type: integer}"]
        return """
            asyncapi: 3.0.0
            info: {title: T, version: 1.0.0}
            channels:
              things:
                address: app/things
                messages: {thing: {payload: {$ref: '#/components/schemas/Thing'}}}
            operations:
              thingValues: {action: receive, channel: {$ref: '#/channels/things'}}
            components:
              schemas:
                Part2: {type: object, properties: {value: {type: string}}}
                Thing:
                  type: object
                  required: [part0, createdAt, last, tail]
                  properties:
            \(properties.map { "          " + $0 }.joined(separator: "\n"))
            """
    }()

    @Test func aWideObjectIsKeptInPartsAndDecodesEncodesAndBuildsLikeAPlainStruct() async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let (result, output) = try await TestSupport.generate(spec: Self.spec, named: "spec.yaml", in: work)
        try #require(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("warning"), "\(result.stderr)")
        let models = try TestSupport.contents(output.appendingPathComponent("Models.swift"))
        #expect(models.components(separatedBy: "private struct Part").count - 1 == 3, "three parts of at most 64 properties")

        var full: [String] = [
            #""part0":"p""#, #""part1":{"inner":7}"#, #""self":true"#, #""first-name":"Ann""#, #""other":{"value":"v"}"#,
            #""createdAt":"2026-11-27T12:00:00.000Z""#, #""last":"l""#, #""kind":"b""#, #""tail":9"#,
        ]
        full += (5..<146).map { index in "\"p\(index)\":" + ["\"s\(index)\"", "\(index)", "\(index).5"][index % 3] }
        let required = #"{"part0":"p","createdAt":"2026-11-27T12:00:00.000Z","last":"l","tail":1}"#
        let missingInLastPart = #"{"part0":"p","createdAt":"2026-11-27T12:00:00.000Z","last":"l"}"#
        let main = work.appendingPathComponent("main.swift")
        let checks = DecodeCheck.program([
            .init(label: "full", type: "Thing", json: "{" + full.joined(separator: ",") + "}"),
            .init(label: "required only", type: "Thing", json: required),
            .init(label: "missing tail", type: "Thing", json: missingInLastPart),
        ], sameJSON: true)
        try checks.replacingOccurrences(of: "var checker = Checker()", with: "print(\"app:\", useThing().joined(separator: \"|\"))\nvar checker = Checker()")
            .write(to: main, atomically: true, encoding: .utf8)

        // An app's use of it: the memberwise initializer, properties read and written by name, key paths.
        let app = work.appendingPathComponent("app.swift")
        try #"""
            import Foundation

            func useThing() -> [String] {
                var thing = Thing(part0: "a", self: false, createdAt: Date(timeIntervalSince1970: 0), last: "z", tail: 3)
                thing.p143 = 1.5
                thing.firstName = "Bo"
                thing[keyPath: \Thing.tail] += 1
                let copy = thing
                thing.part1 = Thing.Part1(inner: 2)
                return ["\(copy.tail)", copy.firstName ?? "", "\(copy.p143 ?? 0)", "\(copy == thing)", "\(thing.part1?.inner ?? 0)", thing.other?.value ?? "none"]
            }
            """#.write(to: app, atomically: true, encoding: .utf8)
        let run = try await TestSupport.runProgram(models: [output.appendingPathComponent("Models.swift"), app], main: main, in: work)
        try #require(run.build.status == 0, "\(run.build.stderr)")
        #expect(run.stdout.contains("app: 4|Bo|1.5|false|2|none"), "\(run.stdout)")
        let failures = run.stdout.split(separator: "\n").filter { $0.hasPrefix("FAIL") }
        #expect(DecodeCheck.summary(of: run.stdout).map { $0.checked == 3 && $0.failures == 1 } == true, "\(run.stdout)")
        #expect(failures.count == 1 && failures.first?.hasPrefix("FAIL missing tail") == true, "\(failures)")
    }
}
