import Foundation
import Testing

/// What the generator makes of event types (issue 45): the spellings a spec declares for each
/// message (`name` and `x-event-type-aliases`), the enum of several messages reporting the value that
/// chose its case, and an `eventType` the initializer fills in.
@Suite("Event types in generated code")
struct EventTypeGenerationTests {
    static let spec = """
        asyncapi: 3.0.0
        info: {title: T, version: 1.0.0}
        channels:
          org:
            address: app/{userId}/org
            parameters: {userId: {}}
            messages:
              license:
                name: organization/licensePhaseChanged
                x-event-type-aliases: [license/phaseChanged]
                payload: {type: object, required: [eventType, phase], properties: {eventType: {type: string}, phase: {type: string}}}
              plan:
                name: organization/planChanged
                x-event-type-aliases: [plan/typeChanged]
                payload: {type: object, required: [eventType, free], properties: {eventType: {type: string}, free: {type: boolean}}}
          presence:
            address: app/{userId}/presence
            parameters: {userId: {}}
            messages:
              presence:
                name: device/presenceChanged
                x-event-type-aliases: [presence/changed]
                payload:
                  type: object
                  required: [eventType, kind, online]
                  properties: {eventType: {type: string}, kind: {type: string, const: presence}, online: {type: boolean}}
        operations:
          orgValues: {action: receive, channel: {$ref: '#/channels/org'}}
          presenceValues: {action: receive, channel: {$ref: '#/channels/presence'}}
        """

    @Test func subscriptionsDeclareEveryNameAndAliasAndTheEnumReportsItsEventType() async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let (result, output) = try await TestSupport.generate(spec: Self.spec, named: "spec.yaml", in: work)
        #expect(result.status == 0, "\(result.stderr)")
        let subscriptions = try TestSupport.contents(output.appendingPathComponent("Subscriptions.swift"))
        #expect(subscriptions.contains("""
                @_spi(Generated) public static let eventTypes: Set<String> = [
                    "organization/licensePhaseChanged",
                    "license/phaseChanged",
                    "organization/planChanged",
                    "plan/typeChanged",
                ]
            """))
        #expect(subscriptions.contains("""
                @_spi(Generated) public static let eventTypes: Set<String> = [
                    "device/presenceChanged",
                    "presence/changed",
                ]
            """))
        #expect(subscriptions.contains("""
            @_spi(Generated) extension OrgMessage: EventTypeReporting {
                public var eventType: String {
                    switch self {
                    case .license: return "organization/licensePhaseChanged"
                    case .plan: return "organization/planChanged"
                    case .unknown(let value):
                        guard case .string(let type)? = value["eventType"] else { return "" }
                        return type
                    }
                }
            }
            """))
        let checked = try await TestSupport.typecheckClient(in: output)
        #expect(checked.status == 0, "\(checked.stderr)")
    }

    /// An alias chooses its message on a channel of several; a value nobody declared decodes as
    /// `unknown` (which the runtime counts); a fixed `eventType` or `const` is not asked for.
    @Test func aliasesChooseTheirMessageAndInitializersFillInFixedStrings() async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let (result, output) = try await TestSupport.generate(spec: Self.spec, named: "spec.yaml", in: work)
        #expect(result.status == 0, "\(result.stderr)")
        let main = work.appendingPathComponent("main.swift")
        try #"""
            import Foundation
            func decode(_ json: String) -> String {
                guard let event = try? JSONDecoder().decode(OrgMessage.self, from: Data(json.utf8)) else { return "fails" }
                switch event {
                case .license(let license): return "license \(license.phase)"
                case .plan(let plan): return "plan \(plan.free)"
                case .unknown: return "unknown"
                }
            }
            print(decode(#"{"eventType":"license/phaseChanged","phase":"Valid"}"#))
            print(decode(#"{"eventType":"organization/licensePhaseChanged","phase":"Grace"}"#))
            print(decode(#"{"eventType":"plan/typeChanged","free":true}"#))
            print(decode(#"{"eventType":"org/somethingNew","free":true}"#))
            let presence = DevicePresenceChanged(online: true)
            print(presence.eventType, presence.kind)
            print(OrganizationLicensePhaseChanged(phase: "Valid").eventType)
            """#.write(to: main, atomically: true, encoding: .utf8)
        let run = try await TestSupport.runProgram(models: output.appendingPathComponent("Models.swift"), main: main, in: work)
        #expect(run.build.status == 0, "\(run.build.stderr)")
        #expect(run.stdout == """
            license Valid
            license Grace
            plan true
            unknown
            device/presenceChanged presence
            organization/licensePhaseChanged

            """)
    }

    @Test(arguments: [
        ("x-event-type-aliases: plan/typeChanged", "14:31: error: 'x-event-type-aliases' of message 'plan' is a string; expected a list of strings"),
        ("x-event-type-aliases: [{a: b}]", "14:32: error: an alias of message 'plan' is a mapping; expected a string"),
        ("x-event-type-aliases: ['']", "14:32: error: an alias of message 'plan' is empty"),
    ])
    func malformedAliasesAreLocatedErrors(line: String, message: String) async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let spec = Self.spec.replacingOccurrences(of: "x-event-type-aliases: [plan/typeChanged]", with: line)
        let (result, output) = try await TestSupport.generate(spec: spec, named: "spec.yaml", in: work)
        #expect(result.status == 1)
        #expect(result.stderr.contains("spec.yaml:\(message)"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    /// A spelling that names two messages of a channel chooses the first, with a located warning.
    @Test func anAliasOfTwoMessagesIsAWarning() async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let spec = Self.spec.replacingOccurrences(of: "[plan/typeChanged]", with: "[license/phaseChanged]")
        let (result, _) = try await TestSupport.generate(spec: spec, named: "spec.yaml", in: work)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("warning: event type 'license/phaseChanged' of message 'plan' already names another message of the channel"), "\(result.stderr)")
    }
}
