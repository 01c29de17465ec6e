import ChannelCodegen
import ChannelSpec
import Foundation
import Testing

/// Golden output, determinism, write-if-changed and the `check` command.
@Suite("Generator output")
struct GeneratorOutputTests {
    static let vortexConfig = TestSupport.packageRoot.appendingPathComponent("Sources/VortexEvents/channelgen.yaml")

    @Test(arguments: ["EnrichmentJobs", "VortexEvents", "VortexEventsTesting"])
    func generatedFolderMatchesTheSpecByteForByte(_ target: String) throws {
        let config = TestSupport.packageRoot.appendingPathComponent("Sources/\(target)/channelgen.yaml")
        let result = Generator.generate(configAt: config.path)
        #expect(result.diagnostics.isEmpty)
        let files = try #require(result.files)
        #expect(files.map(\.name) == ["Models.swift", "Channels.swift", "Subscriptions.swift", "Notifier.swift", "Mocks.swift"])
        for file in files {
            let committed = try TestSupport.contents(TestSupport.packageRoot.appendingPathComponent("Generated/\(target)/\(file.name)"))
            #expect(committed == file.contents, "Generated/\(target)/\(file.name) is stale; run generate-channels")
        }
    }

    @Test func vortexClientHasTheNineChannelsOfTheDesign() throws {
        let files = try #require(Generator.generate(configAt: Self.vortexConfig.path).files)
        let notifier = try #require(files.first { $0.name == "Notifier.swift" }).contents
        let expected = [
            ("devicePresenceValues", "DevicePresenceOutput"), ("deviceRecordingValues", "DeviceRecordingOutput"),
            ("deviceFirmwareValues", "DeviceFirmwareOutput"), ("archiveValues", "ArchiveStateOutput"),
            ("licenseValues", "LicenseStateOutput"), ("planValues", "PlanStateOutput"),
            ("aiSettingsValues", "AISettingsOutput"), ("roleValues", "RoleChangeOutput"),
            ("revokeValues", "UserTokenRevokeOutput"),
        ]
        for (method, model) in expected {
            #expect(notifier.contains("public func \(method)() async -> AsyncStream<\(model)>"))
        }
        #expect(notifier.contains("public final class BackendNotifier: BackendNotifierProtocol"))
        // One requirement per operation and the connection's states (protocol + class), and two
        // generic ones serving every channel: an instance whatever the parameters, and envelopes.
        #expect(notifier.components(separatedBy: "() async -> AsyncStream<").count - 1 == 20)
        #expect(notifier.contains("public func values<Subscription: ChannelSubscription>("))
        #expect(notifier.contains("public func envelopes<Subscription: ChannelSubscription>("))
        #expect(notifier.components(separatedBy: "func values<").count - 1 == 2)
        #expect(notifier.components(separatedBy: "func envelopes<").count - 1 == 2)
        #expect(notifier.contains("public func setUserId(_ userId: String) async throws(ChannelParameterError)"))
    }

    @Test func twoRunsGiveIdenticalBytesAndKeepModificationTimes() async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let output = work.appendingPathComponent("out")
        let first = try await TestSupport.channelgen(["generate", "--config", Self.vortexConfig.path, "--output", output.path])
        #expect(first.status == 0)
        #expect(first.stdout.contains("(5 written, 0 unchanged)"))
        let names = try FileManager.default.contentsOfDirectory(atPath: output.path).sorted()
        let past = Date(timeIntervalSince1970: 1_700_000_000)
        var bytes: [String: Data] = [:]
        for name in names {
            let url = output.appendingPathComponent(name)
            bytes[name] = try Data(contentsOf: url)
            try TestSupport.setModificationDate(past, of: url)
        }

        let second = try await TestSupport.channelgen(["generate", "--config", Self.vortexConfig.path, "--output", output.path])
        #expect(second.status == 0)
        #expect(second.stdout.contains("(0 written, 5 unchanged)"))
        for name in names {
            let url = output.appendingPathComponent(name)
            #expect(try Data(contentsOf: url) == bytes[name])
            #expect(try TestSupport.modificationDate(url) == past)
        }
    }

    @Test func onlyTheChangedFileIsRewritten() throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let files = try #require(Generator.generate(configAt: Self.vortexConfig.path).files)
        let output = work.appendingPathComponent("out").path
        _ = try GeneratedFileWriter.write(files, to: output)
        var changed = files
        changed[0].contents += "// changed\n"
        let report = try GeneratedFileWriter.write(changed, to: output)
        #expect(report.written == ["Models.swift"])
        #expect(report.unchanged == ["Channels.swift", "Subscriptions.swift", "Notifier.swift", "Mocks.swift"])
    }

    /// Reviewing a spec change: adding one optional property to a Vortex model changes three
    /// generated lines outside comments (the property, its initializer parameter and assignment),
    /// all in `Models.swift`: every field is written once.
    @Test func addingAnOptionalFieldChangesThreeGeneratedLines() throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        for name in ["vortex-events.asyncapi.yaml", "openapi-schemas.yaml"] {
            try FileManager.default.copyItem(
                at: TestSupport.packageRoot.appendingPathComponent("spec/\(name)"), to: work.appendingPathComponent(name))
        }
        let config = try TestSupport.writeConfig(
            in: work, spec: work.appendingPathComponent("vortex-events.asyncapi.yaml"), extra: "notifier: BackendNotifier\naccessModifier: public\n")
        let before = try #require(Generator.generate(configAt: config.path).files)

        let schemas = work.appendingPathComponent("openapi-schemas.yaml")
        let text = try TestSupport.contents(schemas)
        let anchor = "        orgId:\n          type: string\n          nullable: true\n          description: Organization identifier.\n"
        let plan = try #require(text.range(of: "    PlanStateOutput:\n"))
        let orgId = try #require(text.range(of: anchor, range: plan.upperBound..<text.endIndex))
        let edited = text.replacingCharacters(in: orgId, with: anchor + "        seats:\n          type: integer\n          description: Seats in the plan.\n")
        try edited.write(to: schemas, atomically: true, encoding: .utf8)
        let after = try #require(Generator.generate(configAt: config.path).files)

        func code(_ file: GeneratedFile) -> [String] {
            file.contents.components(separatedBy: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }
        }
        var changed: [String: [String]] = [:]
        for (old, new) in zip(before, after) {
            let difference = code(new).difference(from: code(old))
            let lines = difference.map { change -> String in
                switch change {
                case .insert(_, let line, _): "+ " + line
                case .remove(_, let line, _): "- " + line
                }
            }
            if !lines.isEmpty { changed[new.name] = lines }
        }
        #expect(changed == ["Models.swift": ["+     public var seats: Int?", "+         seats: Int? = nil,", "+         self.seats = seats"]], "\(changed)")
    }

    /// A file earlier versions generated (`Decoders.swift`) is removed from the output folder, so a
    /// committed `Generated/` folder holds no stale code; a file of that name channelgen did not
    /// write is left alone.
    @Test func aFileNoLongerGeneratedIsRemovedOnlyIfChannelgenWroteIt() throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let files = try #require(Generator.generate(configAt: Self.vortexConfig.path).files)
        let output = work.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        let retired = output.appendingPathComponent("Decoders.swift")
        try "// Generated by channelgen from spec/vortex-events.asyncapi.yaml. Do not edit.\n".write(to: retired, atomically: true, encoding: .utf8)
        let report = try GeneratedFileWriter.write(files, to: output.path)
        #expect(report.removed == ["Decoders.swift"])
        #expect(!FileManager.default.fileExists(atPath: retired.path))

        try "// The app's own decoders.\n".write(to: retired, atomically: true, encoding: .utf8)
        let again = try GeneratedFileWriter.write(files, to: output.path)
        #expect(again.removed.isEmpty && again.written.isEmpty)
        #expect(FileManager.default.fileExists(atPath: retired.path))
    }

    /// The writer compares a file's bytes in place: one byte changed on disk, at the same length,
    /// or a file cut to nothing, is rewritten; the others are left alone.
    @Test func aFileDifferingInOneByteOrEmptiedIsRewritten() throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let files = try #require(Generator.generate(configAt: Self.vortexConfig.path).files)
        let output = work.appendingPathComponent("out")
        _ = try GeneratedFileWriter.write(files, to: output.path)
        let models = output.appendingPathComponent("Models.swift"), channels = output.appendingPathComponent("Channels.swift")
        var edited = try Data(contentsOf: models)
        edited[edited.count / 2] ^= 0x01
        try edited.write(to: models)
        try Data().write(to: channels)

        let report = try GeneratedFileWriter.write(files, to: output.path)
        #expect(report.written == ["Models.swift", "Channels.swift"])
        #expect(report.unchanged == ["Subscriptions.swift", "Notifier.swift", "Mocks.swift"])
        for file in files {
            #expect(try Data(contentsOf: output.appendingPathComponent(file.name)) == Data(file.contents.utf8))
        }
    }

    @Test func headerNamesTheSpecRelativeToThePackage() throws {
        let files = try #require(Generator.generate(configAt: Self.vortexConfig.path).files)
        for file in files {
            #expect(file.contents.hasPrefix("// Generated by channelgen from spec/vortex-events.asyncapi.yaml. Do not edit.\n\n"))
        }
    }

    /// The build plugin's command line (options in any order, relative paths) and ArgumentParser's
    /// other spellings give the same files; wrong command lines get ArgumentParser's errors. The
    /// header names the spec relative to its package from any working folder.
    @Test func thePluginsCommandLineAndOtherSpellingsAgree() async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try "// swift-tools-version: 6.1\n".write(to: work.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(at: work.appendingPathComponent("specs"), withIntermediateDirectories: true)
        for (from, to) in [("vortex-events.asyncapi.yaml", "vortex.yaml"), ("openapi-schemas.yaml", "openapi-schemas.yaml")] {
            try FileManager.default.copyItem(
                at: TestSupport.packageRoot.appendingPathComponent("spec/\(from)"), to: work.appendingPathComponent("specs/\(to)"))
        }
        try "spec: specs/vortex.yaml\n".write(to: work.appendingPathComponent("channelgen.yaml"), atomically: true, encoding: .utf8)
        let config = work.appendingPathComponent("channelgen.yaml").path

        // The plugin's shape, options in another order.
        let fast = try await TestSupport.channelgen(["generate", "--output", "fast", "--quiet", "--config", "channelgen.yaml"], in: work)
        #expect(fast.status == 0 && fast.stdout.isEmpty && fast.stderr.isEmpty, "\(fast.stderr)")
        // `--config=…` is ArgumentParser's.
        let parsed = try await TestSupport.channelgen(["generate", "--config=\(config)", "--output", work.appendingPathComponent("parsed").path])
        #expect(parsed.status == 0, "\(parsed.stderr)")
        #expect(parsed.stdout.hasPrefix("channelgen: 5 files in "))
        for name in ["Models.swift", "Channels.swift", "Subscriptions.swift", "Notifier.swift", "Mocks.swift"] {
            let a = try TestSupport.contents(work.appendingPathComponent("fast/\(name)"))
            let b = try TestSupport.contents(work.appendingPathComponent("parsed/\(name)"))
            #expect(a == b, "\(name)")
            #expect(a.hasPrefix("// Generated by channelgen from specs/vortex.yaml. Do not edit.\n"))
        }
        // Wrong command lines: ArgumentParser explains what is wrong.
        let missing = try await TestSupport.channelgen(["generate", "--config", config], in: work)
        #expect(missing.status == 64 && missing.stderr.contains("Missing expected argument '--output <output>'"), "\(missing.stderr)")
        let unknown = try await TestSupport.channelgen(["generate", "--config", config, "--output", "x", "--frobnicate"], in: work)
        #expect(unknown.status == 64 && unknown.stderr.contains("Unknown option '--frobnicate'"), "\(unknown.stderr)")
    }

    // MARK: check

    /// A copy of the package's generator inputs and Generated/ in a temporary folder.
    private func packageCopy() throws -> URL {
        let work = try TestSupport.temporaryDirectory()
        let manager = FileManager.default
        try "// swift-tools-version: 6.1\n".write(to: work.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        try manager.copyItem(at: TestSupport.packageRoot.appendingPathComponent("spec"), to: work.appendingPathComponent("spec"))
        try manager.copyItem(at: TestSupport.packageRoot.appendingPathComponent("Generated"), to: work.appendingPathComponent("Generated"))
        for target in ["EnrichmentJobs", "VortexEvents", "VortexEventsTesting"] {
            try manager.createDirectory(at: work.appendingPathComponent("Sources/\(target)"), withIntermediateDirectories: true)
            for file in ["channelgen.yaml", "\(target).swift"] {
                try manager.copyItem(
                    at: TestSupport.packageRoot.appendingPathComponent("Sources/\(target)/\(file)"),
                    to: work.appendingPathComponent("Sources/\(target)/\(file)"))
            }
        }
        return work
    }

    /// A nested package (a folder with its own `Package.swift`, as `Benchmarks/` is) has its own
    /// targets: its configs are not this package's, and `check` leaves them alone.
    @Test func checkLeavesANestedPackagesConfigsAlone() async throws {
        let package = try packageCopy()
        defer { try? FileManager.default.removeItem(at: package) }
        let nested = package.appendingPathComponent("Benchmarks/Sources/Routing")
        try FileManager.default.createDirectory(at: nested, withIntermediateDirectories: true)
        try "spec: ../../../spec/vortex-events.asyncapi.yaml\n".write(to: nested.appendingPathComponent("channelgen.yaml"), atomically: true, encoding: .utf8)
        let stray = try await TestSupport.channelgen(["check"], in: package)
        #expect(stray.status == 1 && stray.stderr.contains("Benchmarks/Sources/Routing/channelgen.yaml:1:1: error: no target"), "\(stray.stderr)")
        try "// swift-tools-version: 6.1\n".write(to: package.appendingPathComponent("Benchmarks/Package.swift"), atomically: true, encoding: .utf8)
        let current = try await TestSupport.channelgen(["check"], in: package)
        #expect(current.status == 0, "\(current.stderr)")
    }

    /// A target with a custom `path:`: `generate-channels` records it in Generated/targets.yaml, and
    /// `check` compares it like any other (before, it said "Generated/ is current" without looking).
    @Test func checkFindsTargetsWithACustomPathThroughTheIndex() async throws {
        let package = try packageCopy()
        defer { try? FileManager.default.removeItem(at: package) }
        let manager = FileManager.default
        try manager.moveItem(at: package.appendingPathComponent("Sources/VortexEvents"), to: package.appendingPathComponent("Client"))
        try (try TestSupport.contents(package.appendingPathComponent("Client/channelgen.yaml")))
            .replacingOccurrences(of: "spec: ../../spec/", with: "spec: ../spec/")
            .write(to: package.appendingPathComponent("Client/channelgen.yaml"), atomically: true, encoding: .utf8)

        let unknown = try await TestSupport.channelgen(["check"], in: package)
        #expect(unknown.status == 1)
        #expect(unknown.stderr.hasPrefix("Client/channelgen.yaml:1:1: error: no target `check` knows uses this config"))

        try "VortexEvents: \"Client/channelgen.yaml\"\n".write(
            to: package.appendingPathComponent("Generated/targets.yaml"), atomically: true, encoding: .utf8)
        let current = try await TestSupport.channelgen(["check"], in: package)
        #expect(current.status == 0, "\(current.stderr)")
        #expect(current.stdout.contains("Generated/ is current (EnrichmentJobs, VortexEvents, VortexEventsTesting)"))

        let models = package.appendingPathComponent("Generated/VortexEvents/Models.swift")
        try (try TestSupport.contents(models)).replacingOccurrences(of: "public var online: Bool?", with: "public var online: Bool")
            .write(to: models, atomically: true, encoding: .utf8)
        let drifted = try await TestSupport.channelgen(["check"], in: package)
        #expect(drifted.status == 1)
        #expect(drifted.stdout.contains("+    public var online: Bool?\n"))
    }

    /// SwiftPM skips a target folder with no Swift file, so the plugin never runs: say so, with the fix.
    @Test func checkExplainsATargetWithoutASwiftFile() async throws {
        let package = try packageCopy()
        defer { try? FileManager.default.removeItem(at: package) }
        try FileManager.default.removeItem(at: package.appendingPathComponent("Sources/VortexEventsTesting/VortexEventsTesting.swift"))
        let result = try await TestSupport.channelgen(["check"], in: package)
        #expect(result.status == 1)
        #expect(result.stderr == """
            Sources/VortexEventsTesting/channelgen.yaml:1:1: error: target 'VortexEventsTesting' has no Swift file, so SwiftPM skips \
            it and nothing is generated; add one, e.g. Sources/VortexEventsTesting/VortexEventsTesting.swift containing \
            `@_exported import ChannelRuntime`

            """)
    }

    @Test func checkPassesWhenGeneratedIsCurrent() async throws {
        let package = try packageCopy()
        defer { try? FileManager.default.removeItem(at: package) }
        let result = try await TestSupport.channelgen(["check"], in: package)
        #expect(result.status == 0)
        #expect(result.stdout.contains("Generated/ is current (EnrichmentJobs, VortexEvents, VortexEventsTesting)"))
    }

    @Test func checkFailsWithADiffAfterAHandEdit() async throws {
        let package = try packageCopy()
        defer { try? FileManager.default.removeItem(at: package) }
        let models = package.appendingPathComponent("Generated/VortexEvents/Models.swift")
        let original = try TestSupport.contents(models)
        try original.replacingOccurrences(of: "public var online: Bool?", with: "public var online: Bool")
            .write(to: models, atomically: true, encoding: .utf8)

        let result = try await TestSupport.channelgen(["check"], in: package)
        #expect(result.status == 1)
        #expect(result.stdout.contains("--- a/Generated/VortexEvents/Models.swift\n+++ b/Generated/VortexEvents/Models.swift\n@@ -"))
        #expect(result.stdout.contains("\n-    public var online: Bool\n+    public var online: Bool?\n"))
        #expect(result.stderr.contains("generate-channels"))
    }

    @Test func checkFailsWhenTheSpecChangedButGeneratedDidNot() async throws {
        let package = try packageCopy()
        defer { try? FileManager.default.removeItem(at: package) }
        let schemas = package.appendingPathComponent("spec/openapi-schemas.yaml")
        try (try TestSupport.contents(schemas)).replacingOccurrences(
            of: "description: Whether the device is online.", with: "description: Whether the device is reachable.")
            .write(to: schemas, atomically: true, encoding: .utf8)
        let result = try await TestSupport.channelgen(["check"], in: package)
        #expect(result.status == 1)
        #expect(result.stdout.contains("+    /// Whether the device is reachable."))
    }

    @Test func checkReportsFilesThatAreNoLongerGenerated() async throws {
        let package = try packageCopy()
        defer { try? FileManager.default.removeItem(at: package) }
        try "// old\n".write(to: package.appendingPathComponent("Generated/VortexEvents/Old.swift"), atomically: true, encoding: .utf8)
        let result = try await TestSupport.channelgen(["check"], in: package)
        #expect(result.status == 1)
        #expect(result.stdout.contains("Generated/VortexEvents/Old.swift: not generated any more"))
    }
}
