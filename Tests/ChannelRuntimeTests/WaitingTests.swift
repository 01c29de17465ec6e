import ChannelRuntimeTesting
import Testing

/// The tests' own waits: a verdict that does not depend on which task a busy machine runs first.
@Suite("Test waits")
struct WaitingTests {
    /// A zero bound makes the bound's timer and the waiter ready at once, as on a cooperative pool
    /// starved past the bound: the condition that holds is what the verdict follows, every time.
    @Test func aConditionThatHoldsWhenTheBoundEndsIsNotATimeOut() async throws {
        for _ in 0..<200 {
            try await Watched(1).wait("one", within: 0) { $0 == 1 }
        }
    }

    @Test func aConditionThatNeverHeldIsATimeOutNamingWhatWasAwaited() async {
        let error = await #expect(throws: WaitTimedOut.self) {
            try await Watched(0).wait("one", within: 0) { $0 == 1 }
        }
        #expect(error?.description == "gave up waiting for one")
    }

    @Test func aCollectorThatTimesOutSaysWhatCameInstead() async {
        let collected = Collected { AsyncStream { $0.yield("connecting"); $0.yield("connected") } }
        _ = try? await collected.first(2)
        let error = await #expect(throws: WaitTimedOut.self) {
            try await collected.wait("closed", within: 0) { $0.contains("closed") }
        }
        #expect(error?.description == "gave up waiting for closed; 2 came, the last: connecting, connected")
        collected.cancel()
    }
}
