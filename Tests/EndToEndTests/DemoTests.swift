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

    @Test(arguments: [[], ["--transport", "sse"]])
    func printsTheNineTypedEventsAndExitsZero(_ arguments: [String]) async throws {
        let (status, output) = try await run(arguments)
        #expect(status == 0, "\(output)")
        #expect(output.contains(arguments.isEmpty ? "on one WebSocket" : "on one Server-Sent Events stream"))
        for model in [
            "DevicePresenceOutput", "DeviceRecordingOutput", "DeviceFirmwareOutput", "ArchiveStateOutput", "LicenseStateOutput",
            "PlanStateOutput", "AISettingsOutput", "RoleChangeOutput", "UserTokenRevokeOutput",
        ] {
            #expect(output.contains("\(model)("), "\(model) missing")
        }
        #expect(output.contains("All 9 events arrived"))
    }

    @Test func exitsOneWithAClearMessageWhenNothingArrives() async throws {
        // Nothing listens on port 1 of loopback.
        let (status, output) = try await run(["--endpoint", "http://127.0.0.1:1/event", "--api-key", "da2-x", "--timeout", "1"])
        #expect(status == 1)
        #expect(output.contains("vortex-demo: the nine subscriptions were not acknowledged within 1.0 s"))
    }

    @Test func rejectsAnEndpointWithoutCredentials() async throws {
        let (status, output) = try await run(["--endpoint", "https://x.appsync-api.eu-west-1.amazonaws.com/event"])
        #expect(status != 0)
        #expect(output.contains("pass exactly one of --api-key or --token"))
    }
}
