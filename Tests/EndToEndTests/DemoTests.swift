import Foundation
import Testing

/// The README's first command, run as users run it.
@Suite("vortex-demo")
struct DemoTests {
    static let binary = Bundle.main.bundleURL.appendingPathComponent("vortex-demo")

    func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func printsTheNineTypedEventsAndExitsZero() throws {
        let (status, output) = try run([])
        #expect(status == 0, "\(output)")
        for model in [
            "DevicePresenceOutput", "DeviceRecordingOutput", "DeviceFirmwareOutput", "ArchiveStateOutput", "LicenseStateOutput",
            "PlanStateOutput", "AISettingsOutput", "RoleChangeOutput", "UserTokenRevokeOutput",
        ] {
            #expect(output.contains("\(model)("), "\(model) missing")
        }
        #expect(output.contains("All 9 events arrived"))
    }

    @Test func exitsOneWithAClearMessageWhenNothingArrives() throws {
        // Nothing listens on port 1 of loopback.
        let (status, output) = try run(["--endpoint", "http://127.0.0.1:1/event", "--api-key", "da2-x", "--timeout", "1"])
        #expect(status == 1)
        #expect(output.contains("vortex-demo: the nine subscriptions were not acknowledged within 1.0 s"))
    }

    @Test func rejectsAnEndpointWithoutCredentials() throws {
        let (status, output) = try run(["--endpoint", "https://x.appsync-api.eu-west-1.amazonaws.com/event"])
        #expect(status != 0)
        #expect(output.contains("pass exactly one of --api-key or --token"))
    }
}
