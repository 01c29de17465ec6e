@testable import ChannelRuntime
import Foundation
import Testing

/// `BatchedStream` behaves like `AsyncStream.makeStream`: order, buffering policies, finishing,
/// cancelling and dropping, and `onTermination` once.
@Suite("Batched stream")
struct BatchedStreamTests {
    /// Ends-of-stream seen by `onTermination`, in order.
    final class Terminations: @unchecked Sendable {
        // @unchecked: guarded by `lock`.
        private let lock = NSLock()
        private var seen: [String] = []
        func record(_ termination: BatchedStream<Int>.Termination) {
            lock.withLock { seen.append("\(termination)") }
        }
        var all: [String] { lock.withLock { seen } }
    }

    /// A writer racing a reader: whatever the interleaving, the reader sees 0..<n in order, through
    /// the stream or through the reader itself (as the connection and the hub's pump read it).
    @Test(arguments: [1, 3, 64], [false, true])
    func everyElementArrivesOnceInOrderFromConcurrentBatches(batchLimit: Int, throughReader: Bool) async {
        let (stream, continuation, reader) = BatchedStream<Int>.makeStreamAndReader(batchLimit: batchLimit)
        let count = 50_000
        let writer = Task.detached {
            for value in 0..<count {
                continuation.yield(value)
                if value % 997 == 0 { await Task.yield() }
            }
            continuation.finish()
        }
        var expected = 0
        var inOrder = true
        func take(_ value: Int) {
            if value != expected { inOrder = false }
            expected += 1
        }
        if throughReader {
            while let value = await reader.next() { take(value) }
            #expect(await reader.next() == nil)  // ended stays ended
        } else {
            for await value in stream { take(value) }
        }
        await writer.value
        #expect(inOrder)
        #expect(expected == count)
    }

    @Test func finishingHandsOutWhatIsBufferedThenEnds() async {
        let terminations = Terminations()
        let (stream, continuation) = BatchedStream<Int>.makeStream(batchLimit: 2)
        continuation.onTermination = { terminations.record($0) }
        for value in 1...5 { continuation.yield(value) }
        continuation.finish()
        if case .terminated = continuation.yield(6) {} else { Issue.record("a yield after finish was accepted") }
        var received: [Int] = []
        for await value in stream { received.append(value) }
        #expect(received == [1, 2, 3, 4, 5])
        #expect(terminations.all == ["finished"])
    }

    @Test func bufferingNewestDropsTheOldestAndSaysWhich() async {
        let (stream, continuation) = BatchedStream<Int>.makeStream(bufferingPolicy: .bufferingNewest(3))
        var results: [String] = []
        for value in 1...5 {
            switch continuation.yield(value) {
            case .enqueued(let remaining): results.append("enqueued \(remaining)")
            case .dropped(let dropped): results.append("dropped \(dropped)")
            default: results.append("terminated")
            }
        }
        #expect(results == ["enqueued 2", "enqueued 1", "enqueued 0", "dropped 1", "dropped 2"])
        #expect(continuation.send(6) == .dropped)
        continuation.finish()
        #expect(await Array(stream) == [4, 5, 6])
    }

    @Test func bufferingOldestDropsTheNewElement() async {
        let (stream, continuation) = BatchedStream<Int>.makeStream(bufferingPolicy: .bufferingOldest(2))
        continuation.yield(1)
        continuation.yield(2)
        if case .dropped(let dropped) = continuation.yield(3) { #expect(dropped == 3) } else { Issue.record("3 was not dropped") }
        #expect(continuation.send(4) == .dropped)
        continuation.finish()
        #expect(await Array(stream) == [1, 2])
    }

    @Test func aBufferThatGrewAndWrappedKeepsTheOrder() async {
        // The ring wraps around and grows while the reader holds a part of it.
        let (stream, continuation) = BatchedStream<Int>.makeStream(batchLimit: 5)
        var iterator = stream.makeAsyncIterator()
        var received: [Int] = []
        var next = 0
        for round in 0..<200 {
            for _ in 0..<(round % 37) {
                continuation.yield(next)
                next += 1
            }
            for _ in 0..<(round % 23) where received.count < next {
                if let value = await iterator.next() { received.append(value) }
            }
        }
        continuation.finish()
        while let value = await iterator.next() { received.append(value) }
        #expect(received == Array(0..<next))
    }

    @Test func cancellingTheConsumerEndsTheStreamOnce() async throws {
        let terminations = Terminations()
        let (stream, continuation) = BatchedStream<Int>.makeStream()
        continuation.onTermination = { terminations.record($0) }
        let started = AsyncStream.makeStream(of: Void.self)
        let consumer = Task {
            var count = 0
            started.continuation.yield()
            for await _ in stream { count += 1 }
            return count
        }
        for await _ in started.stream { break }
        continuation.yield(1)
        consumer.cancel()
        _ = await consumer.value
        #expect(terminations.all == ["cancelled"])
        if case .terminated = continuation.yield(2) {} else { Issue.record("a yield after cancelling was accepted") }
        continuation.finish()
        #expect(terminations.all == ["cancelled"])
    }

    @Test func droppingTheStreamEndsIt() {
        let terminations = Terminations()
        var continuation: BatchedStream<Int>.Continuation?
        do {
            let made = BatchedStream<Int>.makeStream()
            continuation = made.continuation
            made.continuation.onTermination = { terminations.record($0) }
            made.continuation.yield(1)
            _ = made.stream
        }
        #expect(terminations.all == ["cancelled"])
        #expect(continuation?.send(2) == .terminated)
    }

    @Test func aHandlerSetAfterTheEndIsCalledAtOnce() {
        let terminations = Terminations()
        let (stream, continuation) = BatchedStream<Int>.makeStream()
        continuation.finish()
        continuation.onTermination = { terminations.record($0) }
        #expect(terminations.all == ["finished"])
        withExtendedLifetime(stream) {}  // dropped earlier, the stream would have ended as cancelled
    }

    @Test func elementsLeftBehindAreReleased() async {
        // Buffered, taken-but-unread and dropped elements are all released (no leak, no double free).
        final class Tracked: Sendable {
            let onDeinit: @Sendable () -> Void
            init(_ onDeinit: @escaping @Sendable () -> Void) { self.onDeinit = onDeinit }
            deinit { onDeinit() }
        }
        let released = LockedValue(0)
        do {
            let (stream, continuation) = BatchedStream<Tracked>.makeStream(bufferingPolicy: .bufferingNewest(50), batchLimit: 8)
            for _ in 0..<100 { continuation.yield(Tracked { released.withLock { $0 += 1 } }) }
            var iterator = stream.makeAsyncIterator()
            _ = await iterator.next()  // takes a batch of 8, hands out one
        }
        #expect(released.withLock { $0 } == 100)
    }

    // MARK: Discarding what is not read yet (the hub's user switch, issue 44)

    @Test func discardingDropsTheBufferAndTheTakenBatchAndReleasesThem() async {
        final class Tracked: Sendable {
            let value: Int
            let onDeinit: @Sendable () -> Void
            init(_ value: Int, _ onDeinit: @escaping @Sendable () -> Void) { (self.value, self.onDeinit) = (value, onDeinit) }
            deinit { onDeinit() }
        }
        let released = LockedValue(0)
        let (stream, continuation) = BatchedStream<Tracked>.makeStream(batchLimit: 4)
        for value in 1...10 { continuation.yield(Tracked(value) { released.withLock { $0 += 1 } }) }
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next()?.value == 1)  // took 1–4, handed out 1
        #expect(released.withLock { $0 } == 1)
        continuation.discardBuffered()
        #expect(released.withLock { $0 } == 10)  // 2–4 taken, 5–10 buffered: all released
        continuation.yield(Tracked(11) {})
        continuation.finish()
        #expect(await iterator.next()?.value == 11)
        #expect(await iterator.next() == nil)
    }

    /// The hub's order: the writer stops, the buffer is discarded, then new elements come. Whatever
    /// the reader had taken or was taking, a read that starts after the discard returns only new
    /// elements — also a batch taken just before the discard and handed over just after it.
    @Test(arguments: [1, 7, 64])
    func aReadAfterADiscardNeverReturnsAnOlderElement(batchLimit: Int) async {
        for round in 0..<200 {
            let (_, continuation, reader) = BatchedStream<Int>.makeStreamAndReader(bufferingPolicy: .bufferingNewest(100), batchLimit: batchLimit)
            let discarded = LockedValue(false)
            let switcher = Task.detached {
                for value in 0..<(round % 50 + 1) {
                    continuation.yield(-1 - value)  // old: negative
                    if value % 7 == 0 { await Task.yield() }
                }
                continuation.discardBuffered()
                discarded.withLock { $0 = true }
                for value in 0..<20 { continuation.yield(value) }
                continuation.finish()
            }
            var oldAfterDiscard = 0
            var new: [Int] = []
            while true {
                let afterDiscard = discarded.withLock { $0 }
                guard let value = await reader.next() else { break }
                if value < 0 {
                    if afterDiscard { oldAfterDiscard += 1 }
                } else {
                    new.append(value)
                }
            }
            await switcher.value
            #expect(oldAfterDiscard == 0)
            #expect(new == Array(0..<20))
        }
    }

    @Test func aWeightLimitDropsTheOldestUntilTheNewOneFits() async {
        let (stream, continuation, _) = BatchedStream<Int>.makeStreamAndReader(bufferingPolicy: .bufferingNewest(100), weightLimit: 25)
        #expect(continuation.send(1, weight: 10) == 0)
        #expect(continuation.send(2, weight: 10) == 0)
        #expect(continuation.send(3, weight: 10) == 1)  // 1 goes: 30 > 25
        #expect(continuation.send(4, weight: 24) == 2)  // 2 and 3 go
        #expect(continuation.send(5, weight: 1_000) == 1)  // alone, it fits
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == 5)
        #expect(continuation.send(6, weight: 25) == 0)  // taken: its weight left the buffer
        #expect(continuation.send(7, weight: 1) == 1)
        continuation.finish()
        #expect(continuation.send(8, weight: 1) == -1)
        #expect(await iterator.next() == 7)
        #expect(await iterator.next() == nil)
    }

    @Test func aWeightedStreamKeepsItsCountLimitAndOrderAcrossGrowth() async {
        let (stream, continuation, _) = BatchedStream<Int>.makeStreamAndReader(bufferingPolicy: .bufferingNewest(40), batchLimit: 7, weightLimit: 1_000)
        var dropped = 0
        for value in 0..<100 { dropped += continuation.send(value, weight: 1) }
        #expect(dropped == 60)
        continuation.finish()
        #expect(await Array(stream) == Array(60..<100))
    }

    /// An oldest-first stream keeps what it holds and drops the newcomer, by weight as by count.
    @Test func anOldestFirstWeightedStreamDropsTheNewOne() async {
        let (stream, continuation, _) = BatchedStream<Int>.makeStreamAndReader(bufferingPolicy: .bufferingOldest(3), weightLimit: 25)
        #expect(continuation.send(1, weight: 10) == 0)
        #expect(continuation.send(2, weight: 10) == 0)
        #expect(continuation.send(3, weight: 10) == 1)  // 30 > 25: 3 goes
        #expect(continuation.send(4, weight: 5) == 0)
        #expect(continuation.send(5, weight: 1) == 1)  // three held: 5 goes
        continuation.finish()
        #expect(await Array(stream) == [1, 2, 4])
        let (alone, lone, _) = BatchedStream<Int>.makeStreamAndReader(bufferingPolicy: .bufferingOldest(3), weightLimit: 25)
        #expect(lone.send(9, weight: 1_000) == 0)  // alone, it fits
        lone.finish()
        #expect(await Array(alone) == [9])
    }

    /// The reader's batch is out of the buffer's bounds, so it is bounded too: an eighth of the
    /// weight limit, and always one element.
    @Test func theReaderTakesAtMostAnEighthOfTheWeightLimitAtOnce() async {
        let (_, continuation, reader) = BatchedStream<Int>.makeStreamAndReader(batchLimit: 64, weightLimit: 800)
        for value in 1...5 { _ = continuation.send(value, weight: 40) }
        #expect(await reader.next() == 1)  // a batch of 1 and 2: 80 of the 100 a batch may weigh
        #expect(continuation.send(6, weight: 700) == 1)  // 3, 4, 5 still buffered: 820 > 800, 3 goes
        continuation.finish()
        var rest: [Int] = []
        while let value = await reader.next() { rest.append(value) }
        #expect(rest == [2, 4, 5, 6])
    }

    /// An element yielded without a weight into a weighted stream (the hub's replay) weighs nothing,
    /// and dropping it by count leaves the weights right.
    @Test func anUnweightedElementInAWeightedStreamWeighsNothing() async {
        let (stream, continuation, _) = BatchedStream<Int>.makeStreamAndReader(bufferingPolicy: .bufferingNewest(2), weightLimit: 20)
        continuation.yield(1)
        #expect(continuation.send(2, weight: 20) == 0)  // 1 weighs nothing: both fit
        continuation.yield(3)  // by count: 1 goes
        #expect(continuation.send(4, weight: 1) == 1)  // by count: 2 goes, and its weight with it
        continuation.finish()
        #expect(await Array(stream) == [3, 4])
    }

    /// A writer waiting for room goes on once the reader took enough, or the stream ended.
    @Test func aWriterWaitsForRoomUntilTheReaderTakesOrTheStreamEnds() async {
        let (_, continuation, reader) = BatchedStream<Int>.makeStreamAndReader(batchLimit: 1, weightLimit: .max)
        for value in 1...3 { _ = continuation.send(value, weight: 10) }
        let waited = LockedValue(false)
        let writer = Task {
            await continuation.waitForRoom(weight: 10)
            waited.withLock { $0 = true }
        }
        #expect(await reader.next() == 1)  // 20 left: still waiting
        #expect(await reader.next() == 2)  // 10 left: room
        await writer.value
        #expect(waited.withLock { $0 })
        _ = continuation.send(4, weight: 100)
        let ending = Task { await continuation.waitForRoom(weight: 0) }
        continuation.finish()
        await ending.value  // the end releases it
    }

    // MARK: The reader, read directly (as the connection and the hub's pump do)

    @Test func anActorReadingTheReaderGetsEveryElement() async {
        // The connection's case: the reader runs on the actor's executor (`nonisolated(nonsending)`).
        actor Sum {
            var total = 0
            func read(_ reader: BatchedStream<Int>.Reader) async -> Int {
                while let value = await reader.next() { total += value }
                return total
            }
        }
        let (_, continuation, reader) = BatchedStream<Int>.makeStreamAndReader()
        let writer = Task.detached {
            for value in 1...1_000 { continuation.yield(value) }
            continuation.finish()
        }
        #expect(await Sum().read(reader) == 500_500)
        await writer.value
    }

    @Test func cancellingTheReadersTaskEndsTheStreamWhileItWaits() async throws {
        let (_, continuation, reader) = BatchedStream<Int>.makeStreamAndReader()
        let terminations = Terminations()
        continuation.onTermination = { terminations.record($0) }
        let waiting = Task { await reader.next() }
        waiting.cancel()
        #expect(await waiting.value == nil)
        #expect(terminations.all == ["cancelled"])
        #expect(continuation.send(1) == .terminated)
    }

    @Test func cancellingTheReadersTaskEndsTheStreamWhileItHoldsABatch() async throws {
        let (_, continuation, reader) = BatchedStream<Int>.makeStreamAndReader()
        let terminations = Terminations()
        continuation.onTermination = { terminations.record($0) }
        for value in 1...3 { continuation.yield(value) }
        #expect(await reader.next() == 1)  // took all three
        let cancelled = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await reader.next()
        }
        #expect(await cancelled.value == nil)
        #expect(terminations.all == ["cancelled"])
    }
}
