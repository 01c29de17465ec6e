import Foundation
import Testing

/// Own streams in the spec (issue 47): `x-request-stream` on a channel makes each instance its own
/// stream whose events name their message; `x-ends-stream` marks the messages that end it.
@Suite("Own streams in generated code")
struct OwnStreamGenerationTests {
    static func spec(channel extra: String = "x-request-stream: true", finalMessage: String = "x-ends-stream: true") -> String {
        """
        asyncapi: 3.0.0
        info: {title: T, version: 1.0.0}
        channels:
          job:
            address: /jobs/{jobId}/stream
            \(extra)
            parameters: {jobId: {}}
            messages:
              progress:
                payload: {type: object, required: [done], properties: {done: {type: integer}}}
              finished:
                name: done
                \(finalMessage)
                payload: {type: object, required: [ok], properties: {ok: {type: boolean}}}
              again:
                name: done
                payload: {type: object, properties: {other: {type: string}}}
        operations:
          jobValues: {action: receive, channel: {$ref: '#/channels/job'}}
        """
    }

    @Test func messagesAreChosenByNameAndFinalOnesAreListed() async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let (result, output) = try await TestSupport.generate(spec: Self.spec(), named: "spec.yaml", in: work, extra: "transport: sse\n")
        #expect(result.status == 0, "\(result.stderr)")
        // Two messages named `done`: the first takes the name, with a located warning.
        #expect(result.stderr.contains("spec.yaml:15:7:"), "\(result.stderr)")
        #expect(result.stderr.contains("messages 'finished' and 'again' of channel 'job' have the name 'done'"))
        let subscriptions = try TestSupport.contents(output.appendingPathComponent("Subscriptions.swift"))
        #expect(subscriptions.contains("@_spi(Generated) public static let isOwnStream: Bool = true"))
        #expect(subscriptions.contains("@_spi(Generated) public static let finalEventNames: Set<String> = [\"done\"]"))
        // A message without a `name` is named by its key.
        #expect(subscriptions.contains("@_spi(Generated) public static let eventTypes: Set<String> = [\"progress\", \"done\"]"))
        let models = try TestSupport.contents(output.appendingPathComponent("Models.swift"))
        #expect(models.contains("""
                    switch decoder.userInfo[.channelEventName] as? String {
                    case "progress"?: self = .progress(try decoder.value())
                    case "done"?: self = .finished(try decoder.value())
                    case let name? where name != "message": self = .unknown(try decoder.value())
                    default:
            """), "\(models)")
        let checked = try await TestSupport.typecheckClient(in: output)
        #expect(checked.status == 0, "\(checked.stderr)")
        // No warning either (a case named twice would be one).
        #expect(!checked.stderr.contains("warning"), "\(checked.stderr)")
    }

    @Test func aFinalMessageOnAChannelWhoseEventsNameNothingIsWarnedAbout() async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let (result, output) = try await TestSupport.generate(spec: Self.spec(channel: "description: shared"), named: "spec.yaml", in: work, extra: "transport: sse\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("spec.yaml:11:7:"), "\(result.stderr)")
        #expect(result.stderr.contains("'x-ends-stream' of message 'finished' has no effect: channel 'job' is not an own stream"))
        let subscriptions = try TestSupport.contents(output.appendingPathComponent("Subscriptions.swift"))
        #expect(!subscriptions.contains("isOwnStream"))
        #expect(!subscriptions.contains("finalEventNames"))
        let models = try TestSupport.contents(output.appendingPathComponent("Models.swift"))
        #expect(!models.contains("channelEventName"))
    }

    @Test(arguments: ["x-request-stream: yes please", "x-request-stream: [true]"])
    func aFlagThatIsNotABooleanIsALocatedError(_ flag: String) async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let (result, _) = try await TestSupport.generate(spec: Self.spec(channel: flag), named: "spec.yaml", in: work, extra: "transport: sse\n")
        #expect(result.status == 1)
        #expect(result.stderr.contains("spec.yaml:6:"), "\(result.stderr)")
        #expect(result.stderr.contains("'x-request-stream' of channel 'job' must be true or false"))
    }
}
