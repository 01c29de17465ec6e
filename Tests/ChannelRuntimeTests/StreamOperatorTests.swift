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
        try await clock.untilSleepers("the late event read") { $0.count == 2 }
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
        try await received.wait("one output") { $0.count == 1 }
        #expect(received.value == [10])
        continuation.finish()
        reader.cancel()
    }

    // MARK: Refresh batches (seed 002)

    /// The rule as a value: distinct keys in first-seen order, due after the silence or at the
    /// latest the maximum delay after the first event.
    @Test func aRefreshBatchIsDueAfterSilenceOrAtTheLatestAfterTheMaximumDelay() {
        typealias Instant = ManualClock.Instant
        let origin = ManualClock().now
        func at(_ milliseconds: Int) -> Instant { origin.advanced(by: .milliseconds(milliseconds)) }
        var batch = RefreshBatch<String, Instant>(silence: .milliseconds(500), maximumDelay: .seconds(5))
        var taken = batch.takeAll()
        #expect(batch.deadline == nil && taken == nil)
        let started = [batch.add("job-1", at: at(0)), batch.add("job-2", at: at(100)), batch.add("job-1", at: at(200))]
        #expect(started == [true, false, false])  // only the first event starts a batch (and a timer)
        #expect(batch.deadline == at(700))
        taken = batch.take(at: at(699))
        #expect(taken == nil)
        taken = batch.take(at: at(700))
        #expect(taken == ["job-1", "job-2"])
        #expect(batch.deadline == nil)

        // A stream that never falls silent: due 5 s after its first event all the same.
        for step in 0..<30 { _ = batch.add("device-\(step % 3)", at: at(1_000 + step * 400)) }
        #expect(batch.deadline == at(6_000))
        taken = batch.take(at: at(6_000))
        #expect(taken == ["device-0", "device-1", "device-2"])
    }

    @Test func refreshBatchesComeAfterSilenceOnTheClock() async throws {
        let clock = ManualClock()
        let (input, continuation) = AsyncStream.makeStream(of: JobEvent.self)
        // The operator takes an event in the same step as it reads it: read means gathered.
        let read = LockedBox(0)
        let counted = input.map { @Sendable event in
            read.mutate { $0 += 1 }
            return event
        }
        let output = TypedCollector(counted.refreshBatches(by: \.job, afterSilence: .milliseconds(500), maximumDelay: .seconds(5), clock: clock))
        feed((1...10).map { JobEvent(job: $0 % 3 == 0 ? "b" : "a", progress: $0) }, into: continuation)
        try await clock.waitForSleeper(until: .milliseconds(500))
        clock.advance(by: .milliseconds(300))
        feed([JobEvent(job: "c", progress: 1)], into: continuation)  // moves the deadline to 800 ms
        try await read.wait("the late event read") { $0 == 11 }
        clock.advance(by: .milliseconds(200))  // the timer wakes at 500 ms: not due, sleeps again
        try await clock.waitForSleeper(until: .milliseconds(800))
        #expect(output.elements.isEmpty)
        clock.advance(by: .milliseconds(300))
        try await output.waitFor(count: 1)
        #expect(output.elements == [["a", "b", "c"]])

        // The next event starts a new batch; the base ending delivers it at once.
        feed([JobEvent(job: "a", progress: 11)], into: continuation)
        try await clock.waitForSleeper(until: .milliseconds(1_300))
        continuation.finish()
        try await output.waitFor(count: 2)
        #expect(output.elements.last == ["a"])

        // The defaults (500 ms, 5 s, the continuous clock): a base that ends delivers what it has at once.
        let (quick, quickInput) = AsyncStream.makeStream(of: JobEvent.self)
        quickInput.yield(JobEvent(job: "z", progress: 1))
        quickInput.yield(JobEvent(job: "z", progress: 2))
        quickInput.finish()
        var batches: [[String]] = []
        for await batch in quick.refreshBatches(by: { $0.job }) { batches.append(batch) }
        #expect(batches == [["z"]])
    }
}
