import ChannelCodegen
import Foundation
import Testing

/// One test per defect found by running the generator on specs written elsewhere: each spec below
/// was rejected with a wrong message, or accepted with output that did not compile.
@Suite("Generator regressions")
struct GeneratorRegressionTests {
    /// Writes `files` (relative path → text) into a fresh folder, generates from `main.yaml`, and
    /// type-checks the output when generation succeeds.
    private func generate(_ files: [String: String]) async throws -> (status: Int32, stderr: String, models: String) {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        for (path, text) in files {
            let url = work.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        let config = try TestSupport.writeConfig(in: work, spec: work.appendingPathComponent("main.yaml"))
        let output = work.appendingPathComponent("out")
        let result = try await TestSupport.channelgen(["generate", "--config", config.path, "--output", output.path, "--quiet"])
        guard result.status == 0 else { return (result.status, result.stderr.replacingOccurrences(of: work.path + "/", with: ""), "") }
        let sources = ["Models.swift", "Channels.swift", "Subscriptions.swift", "Notifier.swift"].map { output.appendingPathComponent($0) }
        let typecheck = try await TestSupport.typecheck(sources)
        #expect(typecheck.status == 0, "\(typecheck.stderr)")
        return (result.status, result.stderr, try TestSupport.contents(sources[0]))
    }

    private static let header = """
        asyncapi: 3.0.0
        info: {title: Regressions, version: 1.0.0}

        """

    /// Issue 14: untyped schemas (`{}`, a description only, `items: {}`, `additionalProperties: {}`,
    /// a payload with no schema keywords) were rejected for lacking a `type`; they are any JSON value.
    @Test func untypedSchemasAreJSONValues() async throws {
        let spec = Self.header + """
            channels:
              things:
                address: ns/things
                messages:
                  changed:
                    payload:
                      type: object
                      required: [id, extra]
                      properties:
                        id: {type: string}
                        extra: {description: Anything the server adds.}
                        list: {type: array, items: {}}
                        map: {type: object, additionalProperties: {}}
              raw:
                address: ns/raw
                messages:
                  anything:
                    payload: {}
            operations:
              thingValues: {action: receive, channel: {$ref: '#/channels/things'}}
              rawValues: {action: receive, channel: {$ref: '#/channels/raw'}}
            """
        let result = try await generate(["main.yaml": spec])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.models.contains("public var extra: JSONValue\n"))
        #expect(result.models.contains("public var list: [JSONValue]?\n"))
        #expect(result.models.contains("public var map: [String: JSONValue]?\n"))
        #expect(result.models.contains("import ChannelRuntime\n"))
    }

    @Test func oneMessageWithAnInlinePayloadServesTwoChannels() async throws {
        let spec = Self.header + """
            channels:
              first:
                address: app/{userId}/first
                parameters: {userId: {}}
                messages: {clear: {$ref: '#/components/messages/clear'}}
              second:
                address: app/{userId}/second
                parameters: {userId: {}}
                messages: {clear: {$ref: '#/components/messages/clear'}}
            operations:
              firstValues: {action: receive, channel: {$ref: '#/channels/first'}}
              secondValues: {action: receive, channel: {$ref: '#/channels/second'}}
            components:
              messages:
                clear:
                  name: clear
                  payload:
                    type: object
                    properties:
                      type: {type: string, enum: [all, some]}
                      count: {type: integer}
            """
        let result = try await generate(["main.yaml": spec])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
        // Named after the message both channels carry (its `name`), once.
        #expect(result.models.components(separatedBy: "public struct Clear:").count == 2)
        #expect(!result.models.contains("FirstPayload") && !result.models.contains("SecondPayload"))
    }

    @Test func anArrayComponentWithInlineItemsReferencedTwiceIsOneType() async throws {
        let spec = Self.header + """
            channels:
              list:
                address: app/list
                messages: {list: {payload: {$ref: '#/components/schemas/Lists'}}}
            operations:
              listValues: {action: receive, channel: {$ref: '#/channels/list'}}
            components:
              schemas:
                Lists:
                  type: object
                  properties:
                    mine: {$ref: '#/components/schemas/Channels'}
                    theirs: {$ref: '#/components/schemas/Channels'}
                Channels:
                  type: array
                  items:
                    type: object
                    properties:
                      name: {type: string}
            """
        let result = try await generate(["main.yaml": spec])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.models.contains("public var mine: [ChannelsItem]?"))
        #expect(result.models.contains("public var theirs: [ChannelsItem]?"))
        #expect(result.models.components(separatedBy: "struct ChannelsItem:").count == 2)
    }

    @Test func aChannelKeptInAnotherFileCanBeNamedByOperations() async throws {
        let spec = Self.header + """
            channels:
              echo:
                $ref: './commons/channels.yml#/channels/echo'
            operations:
              echoValues:
                action: receive
                channel: {$ref: '#/channels/echo'}
            """
        let commons = """
            channels:
              echo:
                address: app/echo
                messages:
                  echo:
                    payload:
                      type: object
                      properties:
                        text: {type: string}
            """
        let result = try await generate(["main.yaml": spec, "commons/channels.yml": commons])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
    }

    @Test func aYAMLErrorInAReferencedFileIsReportedOnce() async throws {
        var spec = Self.header + "channels:\n"
        var operations = "operations:\n"
        for index in 0..<9 {
            spec += """
                  c\(index):
                    address: app/c\(index)
                    messages: {m: {payload: {$ref: './schemas.yaml#/components/schemas/S\(index)'}}}

                """
            operations += "  c\(index)Values: {action: receive, channel: {$ref: '#/channels/c\(index)'}}\n"
        }
        let result = try await generate(["main.yaml": spec + operations, "schemas.yaml": "components:\n  schemas: [unclosed\n"])
        #expect(result.status == 1)
        let errors = result.stderr.split(separator: "\n").filter { $0.contains(": error: ") }
        #expect(errors.count == 1, "\(result.stderr)")
        #expect(errors.first?.hasPrefix("schemas.yaml:") == true)
    }

    @Test func aStringDiscriminatorIsAsyncAPIInheritanceAndGenerates() async throws {
        let spec = Self.header + """
            channels:
              pets:
                address: app/pets
                messages: {pet: {payload: {$ref: '#/components/schemas/Pet'}}}
            operations:
              petValues: {action: receive, channel: {$ref: '#/channels/pets'}}
            components:
              schemas:
                Pet:
                  type: object
                  discriminator: petType
                  properties:
                    petType: {type: string}
            """
        // Decoding the object by its own properties does not need the discriminator: no warning,
        // and the doc comment names it.
        let result = try await generate(["main.yaml": spec])
        #expect(result.status == 0)
        #expect(!result.stderr.contains("discriminator"), "\(result.stderr)")
        #expect(result.models.contains("Derived types are told apart by the property: `petType`"), "\(result.models)")
    }

    @Test func aDocumentWithoutChannelsIsValidAsyncAPI3() async throws {
        let result = try await generate(["main.yaml": Self.header + "components: {}\n"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("warning: the document has no 'channels'"))
        #expect(!result.stderr.contains("missing required key"))
    }

    @Test func multiLineTextsAndLineBreakEnumValuesCompile() async throws {
        let spec = """
            asyncapi: 3.0.0
            info:
              title: |
                Streaming
                API
              version: 1.0.0
            channels:
              stream:
                address: app/stream
                messages: {m: {payload: {$ref: '#/components/schemas/Beat'}}}
            operations:
              streamValues: {action: receive, channel: {$ref: '#/channels/stream'}}
            components:
              schemas:
                Beat:
                  type: object
                  properties:
                    kind:
                      type: string
                      enum: ["\\r\\n", "\\n", "data"]
                      example: |
                        first line
                        "second" line \\ with backslash
            """
        let result = try await generate(["main.yaml": spec])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.models.contains(#"case .crLf: return "\r\n""#))
        #expect(result.models.contains(#"case .lf: return "\n""#))
        #expect(result.models.contains(#"/// - Example: `first line"#))
    }
}

/// Output is all or nothing, and I/O errors name the path and the system's reason.
@Suite("Writing output")
struct OutputWritingTests {
    @Test func aFailedWriteLeavesEveryOutputAsItWas() async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let output = work.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: output.appendingPathComponent("Channels.swift"), withIntermediateDirectories: true)
        let models = output.appendingPathComponent("Models.swift")
        try "// previous\n".write(to: models, atomically: true, encoding: .utf8)
        let config = GeneratorOutputTests.vortexConfig
        let result = try await TestSupport.channelgen(["generate", "--config", config.path, "--output", output.path])
        #expect(result.status == 1)
        #expect(result.stderr == "error: cannot write '\(output.path)/Channels.swift': Is a directory\n")
        #expect(try TestSupport.contents(models) == "// previous\n")
        let left = try FileManager.default.contentsOfDirectory(atPath: output.path).sorted()
        #expect(left == ["Channels.swift", "Models.swift"])
    }

    @Test func anOutputPathThatIsAFileIsReportedWithItsReason() async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let output = work.appendingPathComponent("out")
        try "not a folder".write(to: output, atomically: true, encoding: .utf8)
        let result = try await TestSupport.channelgen(["generate", "--config", GeneratorOutputTests.vortexConfig.path, "--output", output.path])
        #expect(result.status == 1)
        #expect(result.stderr == "error: cannot write '\(output.path)': Not a directory\n")
    }
}

/// Config problems that used to surface as compiler errors inside `.build/plugins/…`.
@Suite("Config checks")
struct ConfigCheckTests {
    @Test func publicMocksOfAPackageClientAreAConfigError() async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let manager = FileManager.default
        try manager.createDirectory(at: work.appendingPathComponent("Sources/Shop"), withIntermediateDirectories: true)
        try manager.createDirectory(at: work.appendingPathComponent("Sources/ShopTesting"), withIntermediateDirectories: true)
        try manager.copyItem(at: TestSupport.packageRoot.appendingPathComponent("spec"), to: work.appendingPathComponent("spec"))
        try "spec: ../../spec/vortex-events.asyncapi.yaml\naccessModifier: package\n"
            .write(to: work.appendingPathComponent("Sources/Shop/channelgen.yaml"), atomically: true, encoding: .utf8)
        let mocks = work.appendingPathComponent("Sources/ShopTesting/channelgen.yaml")
        try "spec: ../../spec/vortex-events.asyncapi.yaml\ngenerate: mocks\nclientModule: Shop\n".write(to: mocks, atomically: true, encoding: .utf8)
        let arguments = ["generate", "--config", "Sources/ShopTesting/channelgen.yaml", "--output", "out", "--quiet"]
        let mismatch = try await TestSupport.channelgen(arguments, in: work)
        #expect(mismatch.status == 1)
        #expect(mismatch.stderr == "Sources/ShopTesting/channelgen.yaml:2:11: error: the mocks would be public but Shop's client is package (Sources/Shop/channelgen.yaml); set 'accessModifier: package' here too\n")

        try "spec: ../../spec/vortex-events.asyncapi.yaml\ngenerate: mocks\nclientModule: Shop\naccessModifier: package\n"
            .write(to: mocks, atomically: true, encoding: .utf8)
        let matching = try await TestSupport.channelgen(arguments, in: work)
        #expect(matching.status == 0, "\(matching.stderr)")
    }
}
