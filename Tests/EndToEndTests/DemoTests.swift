import ChannelRuntimeTesting
import ChildProcessSupport
import Foundation
import Testing

/// The README's first command, run as users run it.
@Suite("vortex-demo")
struct DemoTests {
    static let binary = Bundle.main.bundleURL.appendingPathComponent("vortex-demo")

    func run(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        let result = try await ChildProcess.run(Self.binary, arguments, mergingOutput: true)
        return (result.status, result.stdout)
    }

    /// Every `--transport` whose adapter runs here: the platform's defaults and each client named.
    static let transports: [[String]] = {
        var transports = [[], ["--transport", "sse"], ["--transport", "websocket-nio"], ["--transport", "sse-nio"]]
        #if canImport(Darwin)
        transports += [["--transport", "sse-urlsession"], ["--transport", "websocket-urlsession"]]
        #endif
        return transports
    }()

    @Test(arguments: transports)
    func printsTheNineTypedEventsAndExitsZero(_ arguments: [String]) async throws {
        let (status, output) = try await run(arguments)
        #expect(status == 0, "\(output)")
        let isSSE = arguments.last?.hasPrefix("sse") == true
        #expect(output.contains(isSSE ? "on one Server-Sent Events stream" : "on one WebSocket"))
        for model in [
            "DevicePresenceOutput", "DeviceRecordingOutput", "DeviceFirmwareOutput", "ArchiveStateOutput", "LicenseStateOutput",
            "PlanStateOutput", "AISettingsOutput", "RoleChangeOutput", "UserTokenRevokeOutput",
        ] {
            #expect(output.contains("\(model)("), "\(model) missing")
        }
        #expect(output.contains("All 9 events arrived"))
        // Dates print as the properties the app reads, not as their wrapper's storage.
        #expect(output.contains(", timestamp: 20") && !output.contains("ISO8601<"), "\(output)")
    }

    /// `--log-level trace`: one line per event (channel, type, size, sequence; the SSE id), one per
    /// frame, and nothing of any payload or credential in any log line.
    @Test(arguments: [[], ["--transport", "sse"]])
    func traceLogsOneLinePerEventAndNoPayload(_ arguments: [String]) async throws {
        let (status, output) = try await run(arguments + ["--verbose", "--log-level", "trace"])
        #expect(status == 0, "\(output)")
        let logLines = output.split(separator: "\n").filter { $0.wholeMatch(of: /\d{4}-\d\d-\d\dT\S+ \w+ vortex-demo:.*/) != nil }
        let events = logLines.filter { $0.hasSuffix("[ChannelRuntime] event") }
        #expect(events.count == 9, "\(events)")
        #expect(events.allSatisfy { $0.contains("channel=vortex-app/user/demo-user-1/") && $0.contains(" sequence=") && $0.contains(" type=") })
        if arguments.last == "sse" { #expect(events.allSatisfy { $0.contains(" id=") }, "\(events)") }
        #expect(logLines.contains { $0.hasSuffix("[ChannelRuntime] frame") })
        // The sample events' values (printed by the demo itself, never by a log line) and the user's JWT.
        for secret in ["cam-lobby", "org-1", "eyJ", "00:02:D1"] {
            #expect(!logLines.contains { $0.contains(secret) }, "\(secret) in \(logLines.filter { $0.contains(secret) })")
        }
        #expect(output.contains("cam-lobby"))  // the demo printed the events: the check above can fail
    }

    /// `--stay` keeps the streams open until SIGINT, printing connection states; SIGUSR1 is a network
    /// path change: the WebSocket answers its ping and stays, the SSE stream is reopened.
    @Test(arguments: [[], ["--transport", "sse"]])
    func staysUntilInterruptedAndTakesSIGUSR1AsAPathChange(_ arguments: [String]) async throws {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = arguments + ["--stay"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        let output = OutputText()
        pipe.fileHandleForReading.readabilityHandler = { output.append($0.availableData) }
        process.terminationHandler = { _ in output.exited() }
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        try await output.untilText("staying") { $0.contains("Staying connected") }
        let connectedBefore = output.text.components(separatedBy: "connection: connected").count
        kill(process.processIdentifier, SIGUSR1)
        try await output.untilText("the path change") { $0.contains("SIGUSR1: the network path changed") }
        if arguments.last == "sse" {
            try await output.untilText("the stream reopened") { $0.components(separatedBy: "connection: connected").count > connectedBefore }
        }
        kill(process.processIdentifier, SIGINT)
        try await output.untilExit()
        // The pipe may still hold the last line when the exit is seen.
        try await output.untilText("the last line") { $0.hasSuffix("connection: disconnected\n") }
        #expect(process.terminationStatus == 0, "\(output.text)")
        #expect(output.text.hasSuffix("connection: disconnected\n"), "\(output.text)")
    }

    @Test func exitsOneWithAClearMessageWhenNothingArrives() async throws {
        // Nothing listens on port 1 of loopback.
        let (status, output) = try await run(["--endpoint", "http://127.0.0.1:1/event", "--api-key", "da2-x", "--timeout", "1"])
        #expect(status == 1)
        #expect(output.contains("vortex-demo: the nine subscriptions were not acknowledged within 1.0 s"))
    }

    #if !canImport(Darwin)
    /// URLSession's adapters are not offered on Linux (issue 44): the demo says so and names the alternative.
    @Test(arguments: [("websocket-urlsession", "websocket-nio"), ("sse-urlsession", "sse-nio")])
    func refusesURLSessionOffApplePlatformsWithTheReason(_ transport: String, _ alternative: String) async throws {
        let (status, output) = try await run(["--transport", transport])
        #expect(status != 0)
        #expect(output.contains("\(transport) needs an Apple platform"))
        #expect(output.contains(alternative))
    }
    #endif

    @Test func rejectsAnEndpointWithoutCredentials() async throws {
        let (status, output) = try await run(["--endpoint", "https://x.appsync-api.eu-west-1.amazonaws.com/event"])
        #expect(status != 0)
        #expect(output.contains("pass exactly one of --api-key or --token"))
    }
}

/// A child's output as it arrives, and whether it has exited.
final class OutputText: Sendable {
    private let output = Watched<(data: Data, exited: Bool)>((Data(), false))
    func append(_ more: Data) { output.update { $0.data.append(more) } }
    func exited() { output.update { $0.exited = true } }
    var text: String { String(decoding: output.value.data, as: UTF8.self) }

    /// Returns once the output so far satisfies `condition` (an await: each chunk resumes it).
    func untilText(_ what: String, _ condition: @escaping @Sendable (String) -> Bool) async throws {
        try await output.wait(what) { condition(String(decoding: $0.data, as: UTF8.self)) }
    }

    /// Returns once the child has exited.
    func untilExit() async throws { try await output.wait("the exit") { $0.exited } }
}
