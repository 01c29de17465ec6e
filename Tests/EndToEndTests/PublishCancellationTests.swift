import AppSyncEmulator
import AppSyncRuntime
import Foundation
import Logging
import Testing

/// Regression: cancelling a task while its HTTP publish completes deadlocked FoundationNetworking on
/// Linux (found by `runtime-bench slo`). Publishes cancelled at every point of their life must all end.
@Suite("HTTP publish cancellation")
struct PublishCancellationTests {
    @Test func publishesCancelledMidFlightAllEnd() async throws {
        let emulator = AppSyncEmulator(
            configuration: EmulatorConfiguration(namespaces: ["app"], apiKeys: ["da2-key"]),
            logger: Logger(label: "emulator") { _ in SwiftLogNoOpLogHandler() })
        let endpoint = try ChannelEndpoint(http: try await emulator.start())
        let publisher = AppSyncHTTPPublisher(endpoint: endpoint, authorization: .apiKey("da2-key"))
        try await bounded("300 cancelled publishes") {
            for round in 0..<300 {
                let task = Task { try await publisher.publish(["{\"n\":\(round)}"], to: "/app/a") }
                // From before the request to after the answer: every moment of a publish gets a cancel.
                if round % 3 != 0 { try await Task.sleep(for: .microseconds((round * 37) % 1500)) }
                task.cancel()
                _ = await task.result
            }
        }
        await emulator.stop()
    }
}
