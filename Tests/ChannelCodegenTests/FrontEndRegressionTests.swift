import Foundation
import Testing

/// The generator front end on adversarial input (issue: no crash, `$ref`s confined, safe
/// diagnostics): each case exits 1 with a precise `file:line:col` diagnostic, never a crash.
@Suite("Front end on adversarial specs")
struct FrontEndRegressionTests {
    /// Writes `files` into a fresh package folder (with a `Package.swift`, so `$ref`s are confined to
    /// it), runs `channelgen lint main.yaml` there, and returns exit status and stderr.
    private func lint(_ files: [String: String], spec: String = "main.yaml", strict: Bool = false) async throws -> (status: Int32, stderr: String, folder: URL) {
        let work = try TestSupport.temporaryDirectory()
        let package = work.appendingPathComponent("package")
        try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
        try "// swift-tools-version: 6.1\n".write(to: package.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        for (path, text) in files {
            let url = path.hasPrefix("../") ? work.appendingPathComponent(String(path.dropFirst(3))) : package.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        let result = try await TestSupport.channelgen(["lint", spec] + (strict ? ["--strict"] : []), in: package)
        #expect(!result.stderr.contains("Fatal error"))
        return (result.status, result.stderr, work)
    }

    private static func spec(payload: String, schemas: String) -> String {
        """
        asyncapi: 3.0.0
        info: {title: Adversarial, version: 1.0.0}
        channels:
          c:
            address: app/c
            messages: {m: {payload: \(payload)}}
        operations:
          cValues: {action: receive, channel: {$ref: '#/channels/c'}}
        components:
          schemas:
        \(schemas)
        """
    }

    /// Issue 14: a `required` entry naming no declared property is a defect of real specs; like
    /// swift-openapi-generator, it is a warning at its line and the rest generates.
    @Test func aRequiredPropertyThatIsNotDeclaredIsAWarningAndIgnored() async throws {
        let schemas = """
                Ping:
                  type: object
                  required: [id, ghost]
                  properties:
                    id: {type: string}
            """
        let result = try await lint(["main.yaml": Self.spec(payload: "{$ref: '#/components/schemas/Ping'}", schemas: schemas)])
        defer { try? FileManager.default.removeItem(at: result.folder) }
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("main.yaml:13:22: warning: required property 'ghost' is not declared in 'properties' of 'Ping'; it is ignored"), "\(result.stderr)")
    }

    /// A schema that an `allOf` extends is a mixin: its `required` may name a property another
    /// member declares (websocket-gemini's `default`). Generated on its own (a models-only run makes
    /// every component a model) it is not a defect, so no warning; a schema no `allOf` uses still warns.
    @Test func aMixinsRequiredNameIsNotWarnedAboutOnItsOwn() async throws {
        let schemas = """
                Ping:
                  type: object
                  properties:
                    base: {$ref: '#/components/schemas/Base'}
                    heartbeat: {$ref: '#/components/schemas/Heartbeat'}
                    alone: {$ref: '#/components/schemas/Alone'}
                Base:
                  type: object
                  required: [type]
                  properties: {sequence: {type: integer}}
                Heartbeat:
                  allOf:
                    - {properties: {type: {type: string, const: heartbeat}}}
                    - $ref: '#/components/schemas/Base'
                Alone:
                  type: object
                  required: [type]
                  properties: {sequence: {type: integer}}
            """
        let result = try await lint(["main.yaml": Self.spec(payload: "{$ref: '#/components/schemas/Ping'}", schemas: schemas)])
        defer { try? FileManager.default.removeItem(at: result.folder) }
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "main.yaml:27:18: warning: required property 'type' is not declared in 'properties' of 'Alone'; it is ignored\n")
    }

    @Test func aSchemaRecursiveThroughAnArrayIsAnError() async throws {
        let text = Self.spec(payload: "{$ref: '#/components/schemas/L'}", schemas: "    L: {type: array, items: {$ref: '#/components/schemas/L'}}")
        let result = try await lint(["main.yaml": text], strict: true)
        defer { try? FileManager.default.removeItem(at: result.folder) }
        #expect(result.status == 1)
        #expect(result.stderr == "main.yaml:11:36: error: recursive schema 'L' has no Swift type: it is an array or map of itself (L → L)\n")
    }

    @Test func aSchemaRecursiveThroughAMapIsAnError() async throws {
        let text = Self.spec(
            payload: "{$ref: '#/components/schemas/T'}",
            schemas: "    T: {type: object, additionalProperties: {$ref: '#/components/schemas/T'}}")
        let result = try await lint(["main.yaml": text], strict: true)
        defer { try? FileManager.default.removeItem(at: result.folder) }
        #expect(result.status == 1)
        #expect(result.stderr == "main.yaml:11:52: error: recursive schema 'T' has no Swift type: it is an array or map of itself (T → T)\n")
    }

    @Test func deeplyNestedInlineObjectsAreAnErrorAtTheDepthLimit() async throws {
        var schema = "{type: string}"
        for _ in 0..<100 { schema = "{type: object, properties: {p: \(schema)}}" }
        let result = try await lint(["main.yaml": Self.spec(payload: schema, schemas: "    {}")])
        defer { try? FileManager.default.removeItem(at: result.folder) }
        #expect(result.status == 1)
        #expect(result.stderr.contains("error: schema 'p' is nested more than 64 levels deep (through properties, items and $refs)"))
        #expect(result.stderr.wholeMatch(of: /main\.yaml:\d+:\d+: error: [^\n]+\n/) != nil, "\(result.stderr)")
    }

    @Test(arguments: ["/etc/passwd", "../outside.yaml", "../../../../../../etc/hostname"])
    func refsOutsideThePackageAreNotRead(_ target: String) async throws {
        let text = Self.spec(payload: "{$ref: '\(target)#/x'}", schemas: "    {}")
        let result = try await lint(["main.yaml": text, "../outside.yaml": "x: {type: string}\n"])
        defer { try? FileManager.default.removeItem(at: result.folder) }
        #expect(result.status == 1)
        let line = try #require(result.stderr.split(separator: "\n").first)
        #expect(line.hasPrefix("main.yaml:6:36: error: '"), "\(result.stderr)")
        #expect(line.hasSuffix("named by $ref is outside '\(result.folder.resolvingSymlinksInPath().path)/package'; specs may only read files inside their package"))
    }

    /// Outside any package (no `Package.swift` above), a spec may read files under the working
    /// folder, as a multi-file example laid out like asyncapi/spec's social-media one does
    /// (`service/asyncapi.yaml` → `../common/messages.yaml`); nothing above it.
    @Test func withoutAPackageTheWorkingFolderIsTheLimit() async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let root = work.appendingPathComponent("examples")
        for folder in ["service", "common"] {
            try FileManager.default.createDirectory(at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        try "Ping: {type: object, properties: {id: {type: string}}}\n".write(to: root.appendingPathComponent("common/schemas.yaml"), atomically: true, encoding: .utf8)
        try "Secret: {type: string}\n".write(to: work.appendingPathComponent("secret.yaml"), atomically: true, encoding: .utf8)
        func spec(_ reference: String) -> String { Self.spec(payload: "{$ref: '\(reference)'}", schemas: "    {}") }
        try spec("../common/schemas.yaml#/Ping").write(to: root.appendingPathComponent("service/asyncapi.yaml"), atomically: true, encoding: .utf8)
        let inside = try await TestSupport.channelgen(["lint", "service/asyncapi.yaml"], in: root)
        #expect(inside.status == 0, "\(inside.stderr)")

        try spec("../../secret.yaml#/Secret").write(to: root.appendingPathComponent("service/asyncapi.yaml"), atomically: true, encoding: .utf8)
        let outside = try await TestSupport.channelgen(["lint", "service/asyncapi.yaml"], in: root)
        #expect(outside.status == 1)
        #expect(outside.stderr.contains("named by $ref is outside '\(root.resolvingSymlinksInPath().path)'"), "\(outside.stderr)")
    }

    @Test func aSymlinkLeadingOutOfThePackageIsNotFollowed() async throws {
        let text = Self.spec(payload: "{$ref: 'link.yaml#/x'}", schemas: "    {}")
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try "x: {type: string}\n".write(to: work.appendingPathComponent("secret.yaml"), atomically: true, encoding: .utf8)
        let package = work.appendingPathComponent("package")
        try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
        try "// swift-tools-version: 6.1\n".write(to: package.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        try text.write(to: package.appendingPathComponent("main.yaml"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: package.appendingPathComponent("link.yaml").path, withDestinationPath: "../secret.yaml")
        let result = try await TestSupport.channelgen(["lint", "main.yaml"], in: package)
        #expect(result.status == 1)
        #expect(result.stderr.contains("main.yaml:6:36: error: 'link.yaml' named by $ref is outside"))
    }

    @Test func aDeviceIsNotARegularFile() async throws {
        let result = try await TestSupport.channelgen(["lint", "/dev/zero"])
        #expect(result.status == 1)
        #expect(result.stderr == "error: cannot read spec '/dev/zero': not a regular file\n")
    }

    @Test func aBadPercentEscapeAndAnEmptyRefSayWhatIsWrong() async throws {
        let text = Self.spec(payload: "{$ref: '#/components/schemas/%zz'}", schemas: "    S: {type: string}")
        let bad = try await lint(["main.yaml": text])
        defer { try? FileManager.default.removeItem(at: bad.folder) }
        #expect(bad.stderr == "main.yaml:6:36: error: $ref '#/components/schemas/%zz' has an invalid percent-escape (each '%' must be followed by two hex digits)\n")
        let empty = try await lint(["main.yaml": Self.spec(payload: "{$ref: ''}", schemas: "    S: {type: string}")])
        defer { try? FileManager.default.removeItem(at: empty.folder) }
        #expect(empty.stderr == "main.yaml:6:36: error: $ref is empty; name a target such as '#/components/schemas/Name'\n")
    }

    @Test func specTextInDiagnosticsCannotForgeLinesOrEscapeSequences() async throws {
        let text = Self.spec(payload: "{$ref: '#/components/schemas/S'}", schemas: "    S: {type: \"strng\\nfake.yaml:1:1: error: forged\\u001B[2J\"}")
        let result = try await lint(["main.yaml": text])
        defer { try? FileManager.default.removeItem(at: result.folder) }
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(result.stderr.contains(#"warning: unknown schema type 'strng\u{A}fake.yaml:1:1: error: forged\u{1B}[2J'"#))
        #expect(!result.stderr.contains("\u{1B}"))
    }

    @Test func invalidUTF8IsReportedAtItsByte() async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let spec = work.appendingPathComponent("bad.yaml")
        try Data("asyncapi: 3.0.0\ninfo: {title: \"caf".utf8 + [0xC3, 0x28] + "\"}\n".utf8).write(to: spec)
        let result = try await TestSupport.channelgen(["lint", "bad.yaml"], in: work)
        #expect(result.status == 1)
        #expect(result.stderr == "bad.yaml:2:19: error: invalid UTF-8 (byte 0xC3 at offset 34); spec files must be UTF-8 text\n")
    }

    @Test func aNULByteIsReportedWhereItIs() async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try Data("asyncapi: 3.0.0\ninfo: {title: é\u{0}}\n".utf8).write(to: work.appendingPathComponent("nul.yaml"))
        let result = try await TestSupport.channelgen(["lint", "nul.yaml"], in: work)
        #expect(result.status == 1)
        #expect(result.stderr == "nul.yaml:2:17: error: YAML syntax error: control characters are not allowed (U+0)\n", "\(result.stderr)")
    }

    @Test func keywordsThatDoNotFitTheTypeAreWarnings() async throws {
        let text = Self.spec(payload: "{$ref: '#/components/schemas/S'}", schemas: """
                S:
                  type: object
                  properties:
                    count: {type: integer, format: date-time, enum: [1, two]}
                    name: {type: string, items: {type: string}}
            """)
        let result = try await lint(["main.yaml": text])
        defer { try? FileManager.default.removeItem(at: result.folder) }
        #expect(result.status == 0)
        #expect(result.stderr.split(separator: "\n").map(String.init) == [
            "main.yaml:14:40: warning: format 'date-time' applies to string schemas; it is ignored on an integer",
            "main.yaml:14:61: warning: enum value 'two' is not an integer; it is ignored",
            "main.yaml:15:30: warning: 'items' applies to array schemas; it is ignored on a string",
        ])
    }

    /// The config names the spec, so a spec that cannot be read is reported at the config's `spec:` value.
    @Test(arguments: [("../../missing.yaml", "cannot read spec 'missing.yaml': no such file"),
                      ("/etc/hosts", "the spec '/etc/hosts' is outside '<package>'; specs may only read files inside their package")])
    func aSpecPathProblemIsReportedAtTheConfigLine(_ spec: String, _ message: String) async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let target = work.appendingPathComponent("Sources/T")
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        try "// swift-tools-version: 6.1\n".write(to: work.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        try "# the spec\nspec: \(spec)\n".write(to: target.appendingPathComponent("channelgen.yaml"), atomically: true, encoding: .utf8)
        let result = try await TestSupport.channelgen(
            ["generate", "--config", "Sources/T/channelgen.yaml", "--output", work.appendingPathComponent("out").path], in: work)
        #expect(result.status == 1)
        let expected = message.replacingOccurrences(of: "<package>", with: work.resolvingSymlinksInPath().path)
        #expect(result.stderr == "Sources/T/channelgen.yaml:2:7: error: \(expected)\n")
    }
}
