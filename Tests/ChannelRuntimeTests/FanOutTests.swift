@testable import ChannelRuntime
import ChannelRuntimeTesting
import Foundation
import Testing

/// The hub's delivery rules, one value, no tasks: who gets an event in which order, history replay
/// against live delivery, and how overflows are reported.
@Suite("Fan-out")
struct FanOutTests {
    private static func consumer() -> (Consumer<Int>, AsyncStream<Int>) {
        let (stream, continuation) = BatchedStream<Int>.makeStream()
        return (.events(continuation), stream)
    }

    private static func envelope(_ value: Int, channel: String = "app/a") -> ChannelEnvelope<Int> {
        ChannelEnvelope(event: value, channel: channel, eventType: nil, receivedAt: Date(timeIntervalSince1970: 0), sequence: value)
    }

    @Test func higherPrioritiesFirstThenInTheOrderConsumersCame() {
        var fanOut = FanOut<Int>()
        var names: [Int: String] = [:]
        for (name, priority) in [("a", 0), ("b", 5), ("c", 5), ("d", -1), ("e", 0)] {
            names[fanOut.add(Self.consumer().0, priority: priority, replaying: nil).id] = name
        }
        #expect(fanOut.order.map { names[$0]! } == ["b", "c", "a", "e", "d"])
        #expect(fanOut.consumers.count == 5)
        var wasLast = fanOut.remove(fanOut.order[0])
        #expect(!wasLast)
        #expect(fanOut.order.map { names[$0]! } == ["c", "a", "e", "d"])
        for id in fanOut.order.dropLast() {
            wasLast = fanOut.remove(id)
            #expect(!wasLast)
        }
        wasLast = fanOut.remove(fanOut.order[0])
        #expect(wasLast)
        #expect(fanOut.isEmpty && fanOut.consumers.isEmpty)
    }

    @Test func aReplayingConsumerGetsTheKeptEventsAndThenOnlyLiveOnes() {
        var fanOut = FanOut<Int>()
        #expect(!fanOut.wantsEnvelopes)
        let history = HistoryStore<Int>(retention: HistoryRetention(count: 2), clock: RuntimeClock(ManualClock()))
        fanOut.history = history
        #expect(fanOut.wantsEnvelopes)  // each event is recorded from now on
        for value in 1...3 { history.append(Self.envelope(value)) }

        let replaying = fanOut.add(Self.consumer().0, priority: 0, replaying: "app/a")
        #expect(replaying.replay.map(\.event) == [2, 3])  // the retention's last two, oldest first
        let live = fanOut.add(Self.consumer().0, priority: 0, replaying: nil)
        #expect(live.replay.isEmpty)
        // What comes after the add is live, to both: the replay ended where live delivery starts.
        #expect(fanOut.order == [replaying.id, live.id])
        history.append(Self.envelope(4))
        let later = fanOut.add(Self.consumer().0, priority: 0, replaying: "app/a")
        #expect(later.replay.map(\.event) == [3, 4])
    }

    /// Issue 44: the kept history is one channel's; a consumer of another channel (after a user
    /// switch) gets none of it, and the next channel's first event replaces it.
    @Test func aHistoryIsReplayedOnlyToItsOwnChannel() {
        var fanOut = FanOut<Int>()
        let history = HistoryStore<Int>(retention: HistoryRetention(count: 5), clock: RuntimeClock(ManualClock()))
        fanOut.history = history
        for value in 1...3 { history.append(Self.envelope(value, channel: "app/user/alice")) }
        #expect(fanOut.add(Self.consumer().0, priority: 0, replaying: "app/user/bob").replay.isEmpty)
        #expect(history.snapshot(of: nil).isEmpty)
        #expect(history.snapshot(of: "app/user/alice").map(\.event) == [1, 2, 3])
        history.append(Self.envelope(4, channel: "app/user/bob"))
        #expect(history.snapshot(of: "app/user/alice").isEmpty)
        #expect(fanOut.add(Self.consumer().0, priority: 0, replaying: "app/user/bob").replay.map(\.event) == [4])
    }

    @Test func anEnvelopeConsumerAsksForEnvelopesUntilItLeaves() {
        var fanOut = FanOut<Int>()
        _ = fanOut.add(Self.consumer().0, priority: 0, replaying: nil)
        #expect(!fanOut.wantsEnvelopes)
        let (_, continuation) = BatchedStream<ChannelEnvelope<Int>>.makeStream()
        let envelopes = fanOut.add(.envelopes(continuation), priority: 0, replaying: "app/a")
        #expect(envelopes.replay.isEmpty)  // no history kept
        #expect(fanOut.wantsEnvelopes)
        _ = fanOut.remove(envelopes.id)
        #expect(!fanOut.wantsEnvelopes)
    }

    @Test func aRunOfOverflowsIsCountedEveryTimeAndWarnedOnce() {
        var fanOut = FanOut<Int>()
        var reports: [OverflowReport] = []
        var overflowing: [Bool] = []
        for overflowed in [0, 2, 1, 0, 3] {
            reports.append(fanOut.delivered(overflowed: overflowed))
            overflowing.append(fanOut.overflowing)
        }
        // Counted every time; warned at the first overflow of each run (a consumer caught up between).
        #expect(reports == [.nothing, .countAndWarn(2), .count(1), .nothing, .countAndWarn(3)])
        #expect(overflowing == [false, true, true, false, true])
    }

    @Test func aFullConsumerDropsItsOldestAndTheSendSaysSo() async {
        // The sends `Entry` performs for a delivery: what `delivered(overflowed:)` is told.
        let (stream, continuation) = BatchedStream<Int>.makeStream(bufferingPolicy: .bufferingNewest(2))
        var fanOut = FanOut<Int>()
        _ = fanOut.add(.events(continuation), priority: 0, replaying: nil)
        var reports: [OverflowReport] = []
        for value in 1...4 {
            var overflowed = 0
            for case .events(let consumer) in fanOut.consumers where consumer.send(value) == .dropped { overflowed += 1 }
            reports.append(fanOut.delivered(overflowed: overflowed))
        }
        #expect(reports == [.nothing, .nothing, .countAndWarn(1), .count(1)])
        continuation.finish()
        var kept: [Int] = []
        for await value in stream { kept.append(value) }
        #expect(kept == [3, 4])
    }
}
