import ChannelSpec
import Foundation
import Testing

/// The decode suites' per-key check (`DecodeCheck.keyFailures`) must see a value read from another
/// key, and must not fail what a model legitimately writes differently.
@Suite("Per-key check")
struct PerKeyCheckTests {
    private func difference(written: String, sent: String) throws -> String? {
        PerKey.difference(
            written: try JSONDocumentReader.read(Array(written.utf8), file: "written"),
            sent: try JSONDocumentReader.read(Array(sent.utf8), file: "sent"), at: "$")
    }

    @Test func whatAModelMayWriteDifferentlyPasses() throws {
        // Unknown keys dropped, `null` written as nothing or as `null`, a date in the model's format, a number's spelling.
        #expect(try difference(written: #"{"a":1}"#, sent: #"{"a":1,"extra":"x","b":null}"#) == nil)
        #expect(try difference(written: #"{"a":null}"#, sent: #"{"a":null}"#) == nil)
        #expect(try difference(written: #"{"when":"2030-07-01T03:29:59.500Z"}"#, sent: #"{"when":"2030-06-30T23:59:59.5-03:30"}"#) == nil)
        #expect(try difference(written: #"{"when":"1998-12-31T16:00:00.000Z"}"#, sent: #"{"when":"1999-01-01T00:00:00+08:00"}"#) == nil)
        #expect(try difference(written: #"{"n":10000000000,"m":3.0}"#, sent: #"{"n":1e10,"m":3}"#) == nil)
        #expect(try difference(written: #"[{"a":[true]}]"#, sent: #"[{"a":[true],"b":2}]"#) == nil)
    }

    @Test func aValueFromAnotherKeyOrNowhereFails() throws {
        // Swapped values, a key never sent, normalization twins told apart by their scalars.
        #expect(try difference(written: #"{"a":"2","b":"1"}"#, sent: #"{"a":"1","b":"2"}"#) == #"$."a": "2" written, "1" sent"#)
        #expect(try difference(written: #"{"a":1}"#, sent: #"{"b":1}"#) == #"$."a" is written, but no such key was sent"#)
        #expect(try difference(written: "{\"caf\u{E9}\":\"x\"}", sent: "{\"cafe\u{301}\":\"x\"}") != nil)
        #expect(try difference(written: "{\"s\":\"caf\u{E9}\"}", sent: "{\"s\":\"cafe\u{301}\"}") != nil)
        #expect(try difference(written: #"{"a":[1]}"#, sent: #"{"a":[1,2]}"#) != nil)
        #expect(try difference(written: #"{"a":"1"}"#, sent: #"{"a":1}"#) != nil)
        #expect(try difference(written: #"{"a":1}"#, sent: #"{"a":null}"#) != nil)
        #expect(try difference(written: #"{"when":"2026-11-27T12:34:57.000Z"}"#, sent: #"{"when":"2026-11-27T12:34:56Z"}"#) != nil)
    }

    /// A model whose property reads another key, or loses its key, decodes, agrees between both
    /// decoders and round-trips, so only the per-key check catches it.
    @Test(arguments: [
        // Both properties read one key, as normalization twins did before issue 46.
        (".firstName", #"$."last-name": "Ada" written, "Lovelace" sent"#),
        // The property never reads its key: the value is lost.
        ("nil as CodingKeys?", #"$."last-name" was sent but is not written back"#),
    ])
    func aModelReadingAnotherKeyOrNoneIsCaught(lastNameKey: String, failure: String) async throws {
        let spec = DecodeWhatYouGenerateTests.spec(schemas: """
                Thing: {type: object, properties: {first-name: {type: string}, last-name: {type: string}}}
            """)
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let (result, output) = try await TestSupport.generate(spec: spec, named: "spec.yaml", in: work)
        try #require(result.status == 0, "\(result.stderr)")
        let modelsFile = output.appendingPathComponent("Models.swift")
        let models = try TestSupport.contents(modelsFile)
        try #require(models.contains(#"case lastName = "last-name""#), "the generated coding keys changed shape:\n\(models)")
        try (models + """
            extension Thing {
                public init(from decoder: any Decoder) throws {
                    let container = try decoder.container(keyedBy: CodingKeys.self)
                    let lastNameKey: CodingKeys? = \(lastNameKey)
                    self.init(firstName: try container.decodeIfPresent(String.self, forKey: .firstName),
                              lastName: try lastNameKey.flatMap { try container.decodeIfPresent(String.self, forKey: $0) })
                }
            }

            """).write(to: modelsFile, atomically: true, encoding: .utf8)

        let json = #"{"first-name":"Ada","last-name":"Lovelace"}"#
        let payloads = [DecodeCheck.Payload(label: "names", type: "Thing", json: json, kept: json)]
        let main = work.appendingPathComponent("main.swift")
        try DecodeCheck.program(payloads, encodings: true).write(to: main, atomically: true, encoding: .utf8)
        let run = try await TestSupport.runProgram(models: modelsFile, main: main, in: work)
        try #require(run.build.status == 0, "\(run.build.stderr)")
        #expect(DecodeCheck.summary(of: run.stdout).map { $0.checked == 1 && $0.failures == 0 } == true, "\(run.stdout)")
        let failures = DecodeCheck.keyFailures(stdout: run.stdout, payloads: payloads)
        #expect(failures.count == 1 && failures.first?.contains(failure) == true, "\(failures)")
    }
}
