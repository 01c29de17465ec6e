import ChannelCodegen
import ChannelSpec
import Foundation
import Testing

/// Issue 50: what channelgen accepts agrees with the official AsyncAPI JSON Schemas
/// (asyncapi/spec-json-schemas, applied as the official parser applies them), in every mode.
///
/// `Fixtures/official-verdicts.txt` records the schemas' verdict on every document of the fixtures
/// (made by `Benchmarks/scripts/official_verdicts.py`, which needs Python's `jsonschema` and the
/// schemas; the check here needs neither). A document the schemas call valid generates in every mode
/// (exit 0, warnings allowed), but for the few refused by a rule of the AsyncAPI text the schemas
/// cannot express (`ownRules`); one they call invalid gets at least one located diagnostic in every
/// mode. A change in what channelgen accepts shows up here, document by document.
@Suite("Validity agrees with the official AsyncAPI schemas")
struct OfficialVerdictTests {
    struct Verdict: Sendable, CustomTestStringConvertible {
        var path: String
        /// `valid`, `invalid`, or `unknown` (the document names a remote `$ref` the script did not fetch).
        var verdict: String
        var reason: String
        var testDescription: String { path }
    }

    enum Mode: String, CaseIterable {
        case models, appsync, sse
    }

    static let verdicts: [Verdict] = {
        let text = (try? TestSupport.contents(TestSupport.fixtures.appendingPathComponent("official-verdicts.txt"))) ?? ""
        return text.split(separator: "\n").map { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return Verdict(path: fields[0], verdict: fields.count > 1 ? fields[1] : "", reason: fields.count > 2 ? fields[2] : "")
        }
    }()

    /// Valid by the schemas, refused by channelgen in these modes, each for a rule the schemas cannot
    /// express. The test also checks each is still refused, so a stale entry is noticed.
    static let ownRules: [String: (modes: Set<Mode>, why: String)] = [
        "bad/operation-channel-inline.yaml": ([.appsync, .sse], "AsyncAPI 3: an operation's `channel` MUST be a Reference Object"),
        "bad/two-messages.yaml": ([.appsync, .sse], "AsyncAPI 3: an operation's messages MUST be a subset of its channel's"),
        "bad/undefined-address-parameter.yaml": ([.appsync, .sse], "AsyncAPI 3: each `{expression}` of an address is a parameter of the channel"),
        "bad/ref-cycle.yaml": ([.models, .appsync, .sse], "a `$ref` chain that comes back to itself names no schema"),
        "bad/x-swift-name-clash.yaml": ([.models, .appsync, .sse], "the spec's own `x-swift-name`s collide: no Swift can have both"),
    ]

    /// Every AsyncAPI document of the fixtures (files in `shared`/`common` folders are fragments).
    static func documents() throws -> Set<String> {
        let root = TestSupport.packageRoot.path + "/"
        var found: Set<String> = ["spec/vortex-events.asyncapi.yaml"]
        for folder in ["corpus/asyncapi", "bad", "validity"] {
            let base = TestSupport.fixtures.appendingPathComponent(folder)
            let enumerator = try #require(FileManager.default.enumerator(atPath: base.path))
            for case let relative as String in enumerator where relative.hasSuffix(".yaml") || relative.hasSuffix(".yml") {
                let components = relative.split(separator: "/")
                guard !components.contains(where: { ["shared", "common", "commons"].contains($0) }) else { continue }
                found.insert(String(base.appendingPathComponent(relative).path.dropFirst(root.count)))
            }
        }
        return found
    }

    @Test func everyDocumentHasAVerdict() throws {
        let recorded = Set(Self.verdicts.map(\.path))
        let documents = try Self.documents()
        #expect(documents.subtracting(recorded).isEmpty, "no verdict recorded (run Benchmarks/scripts/official_verdicts.py): \(documents.subtracting(recorded).sorted())")
        #expect(recorded.subtracting(documents).isEmpty, "verdicts for documents that are gone: \(recorded.subtracting(documents).sorted())")
        #expect(Self.verdicts.allSatisfy { ["valid", "invalid", "unknown"].contains($0.verdict) })
    }

    @Test(arguments: verdicts)
    func channelgenAgrees(_ verdict: Verdict) {
        let ownRule = Self.ownRules.first { verdict.path.hasSuffix("/" + $0.key) }?.value
        for mode in Mode.allCases {
            var config = GeneratorConfig(specPath: TestSupport.packageRoot.appendingPathComponent(verdict.path).path, mode: mode == .models ? .models : .client)
            config.transport = mode == .sse ? .sse : .appsync
            let diagnostics = Generator.generate(config: config).diagnostics
            let errors = diagnostics.filter { $0.severity == .error }
            switch verdict.verdict {
            case "valid" where ownRule?.modes.contains(mode) == true:
                #expect(!errors.isEmpty, "\(verdict.path) (\(mode)) is now accepted: remove it from `ownRules` (\(ownRule!.why))")
            case "valid":
                #expect(errors.isEmpty, "\(verdict.path) is valid but refused in mode \(mode): \(errors.map(\.description))")
            case "invalid":
                let located = diagnostics.filter { $0.severity != .note && $0.location != nil }
                #expect(!located.isEmpty, "\(verdict.path) is invalid (\(verdict.reason)) but mode \(mode) says nothing")
            default:
                break  // a remote `$ref`: nothing to hold it to
            }
        }
    }
}
