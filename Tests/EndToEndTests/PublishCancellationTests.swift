import AppSyncEmulator
import AppSyncRuntime
import ChannelRuntimeTesting
import Foundation
import Logging
import Testing

/// Regression: cancelling a task while its HTTP publish completes deadlocked FoundationNetworking on
/// Linux (found by `runtime-bench slo`). Publishes cancelled at every point of their life must all end,
/// each because of its cancel or its answer, never because the client's deadline ran out.
@Suite("HTTP publish cancellation")
struct PublishCancellationTests {
    @Test func publishesCancelledMidFlightAllEnd() async throws {
        let emulator = AppSyncEmulator(
            configuration: EmulatorConfiguration(namespaces: ["app"], apiKeys: ["da2-key"]),
            logger: Logger(label: "emulator") { _ in SwiftLogNoOpLogHandler() })
        let endpoint = try ChannelEndpoint(http: try await emulator.start())
        let publisher = AppSyncHTTPPublisher(endpoint: endpoint, authorization: .apiKey("da2-key"))
        for round in 0..<300 {
            // Each round is bounded on its own, not the 300 together: how long they take depends on
            // how busy the machine is; whether each one ends does not.
            let outcome = try await awaiting("cancelled publish \(round) to end") {
                let task = Task { try await publisher.publish(["{\"n\":\(round)}"], to: "/app/a") }
                // From before the request to after the answer: every moment of a publish gets a cancel.
                if round % 3 != 0 { try await Task.sleep(for: .microseconds((round * 37) % 1500)) }
                task.cancel()
                return await task.result
            }
            switch outcome {
            case .success: break
            case .failure(let error):
                // A cancel ends the request with the connection: anything else (a deadline that ran
                // out, a refusal) is not what a cancel should cause.
                #expect(error as? AppSyncError == .connectionLost, "round \(round): \(error)")
            }
        }
        await emulator.stop()
    }
}
