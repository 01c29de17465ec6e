import ChannelRuntime
import ChannelRuntimeTesting
import ChannelStreams
import Foundation
import Testing

/// Coalescing and debouncing on a manual clock: windows open and close only when the test moves time.
@Suite("Stream operators")
struct StreamOperatorTests {
    struct JobEvent: Sendable, Equatable {
        var job: String
        var progress: Int
        var count = 1
    }

    /// Feeds `events`, then waits until the operator read them all (the window timers are registered).
    func feed(_ events: [JobEvent], into continuation: AsyncStream<JobEvent>.Continuation) { for event in events { continuation.yield(event) } }

    @Test func aBurstForOneKeyBecomesOneOutputWhenTheWindowCloses() async throws {
        let clock = ManualClock()
        let (input, continuation) = AsyncStream.makeStream(of: JobEvent.self)
        let output = TypedCollector(input.coalesced(by: \.job, within: .milliseconds(500), clock: clock))
        feed((1...10).map { JobEvent(job: "job-1", progress: $0 * 10) }, into: continuation)
        try await clock.waitForSleeper(until: .milliseconds(500))
        clock.advance(by: .milliseconds(499))
        try await Task.sleep(for: .milliseconds(20))  // a window that has not closed delivers nothing
        #expect(output.elements.isEmpty)
        clock.advance(by: .milliseconds(1))
        try await output.waitFor(count: 1)
        #expect(output.elements == [JobEvent(job: "job-1", progress: 100)])
        continuation.finish()
    }

    @Test func keysHaveTheirOwnWindowsAndAMergeFoldsTheBurst() async throws {
        let clock = ManualClock()
        let (input, continuation) = AsyncStream.makeStream(of: JobEvent.self)
        let merged = input.coalesced(by: \.job, within: .milliseconds(500), clock: clock) { gathered, newer in
            JobEvent(job: newer.job, progress: newer.progress, count: gathered.count + newer.count)
        }
        let output = TypedCollector(merged)
        feed([JobEvent(job: "a", progress: 1), JobEvent(job: "b", progress: 1), JobEvent(job: "a", progress: 2)], into: continuation)
        try await clock.waitForSleeper(until: .milliseconds(500))
        clock.advance(by: .milliseconds(300))
        feed([JobEvent(job: "a", progress: 3)], into: continuation)  // still a's first window
        try await eventually("the late event read") { clock.pendingDeadlines.count == 2 }
        clock.advance(by: .milliseconds(200))
        try await output.waitFor(count: 2)
        #expect(Set(output.elements.map(\.job)) == ["a", "b"])
        #expect(output.elements.first { $0.job == "a" } == JobEvent(job: "a", progress: 3, count: 3))
        #expect(output.elements.first { $0.job == "b" } == JobEvent(job: "b", progress: 1, count: 1))

        // After the window closed, the next event opens a new one.
        feed([JobEvent(job: "a", progress: 4)], into: continuation)
        try await clock.waitForSleeper(until: .milliseconds(1000))
        clock.advance(by: .milliseconds(500))
        try await output.waitFor(count: 3)
        #expect(output.elements.last == JobEvent(job: "a", progress: 4))
        continuation.finish()
    }

    @Test func theEndOfTheBaseDeliversOpenWindowsAtOnceAndEnds() async throws {
        let clock = ManualClock()
        let (input, continuation) = AsyncStream.makeStream(of: JobEvent.self)
        let output = input.coalesced(by: \.job, within: .seconds(60), clock: clock)
        feed([JobEvent(job: "x", progress: 1), JobEvent(job: "y", progress: 1), JobEvent(job: "x", progress: 2)], into: continuation)
        continuation.finish()
        var received: [JobEvent] = []
        for await event in output { received.append(event) }
        #expect(received == [JobEvent(job: "x", progress: 2), JobEvent(job: "y", progress: 1)])
    }

    /// swift-async-algorithms' debounce, re-exported: a burst costs one refresh.
    @Test func debounceTurnsABurstIntoOneRefresh() async throws {
        let clock = ManualClock()
        let (input, continuation) = AsyncStream.makeStream(of: Int.self)
        let received = LockedBox<[Int]>([])
        let debounced = input.debounce(for: .milliseconds(500), clock: clock)
        let reader = Task { for await n in debounced { received.mutate { $0.append(n) } } }
        for n in 1...10 { continuation.yield(n) }
        try await clock.waitForSleeper(until: .milliseconds(500))
        clock.advance(by: .milliseconds(500))
        try await eventually("one output") { received.value.count == 1 }
        #expect(received.value == [10])
        continuation.finish()
        reader.cancel()
    }
}
