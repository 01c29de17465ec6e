import Foundation

/// `AsyncStream.makeStream(of:bufferingPolicy:)` with a cheaper hand-off between threads, for
/// streams that carry many small elements (frames, events).
///
/// An `AsyncStream` made with a continuation takes its lock, and may wake its reader, for every
/// element. When the reader keeps pace with the writer (the runtime's case: decoding an event takes
/// less than waking a thread), both threads contend for that lock on every element and each one
/// costs a futex sleep and wake-up. Here the reader takes up to `batchLimit` buffered elements under
/// one lock and hands them out from its own copy, and the writer wakes the reader only when it waits
/// (Benchmarks/README.md §3 measures both).
///
/// The stream is an ordinary `AsyncStream` (made with `init(unfolding:onCancel:)`), and
/// `BatchedStream.Continuation` behaves like `AsyncStream.Continuation`: the same buffering policies
/// and `YieldResult`s, `finish()` (the reader still gets what is buffered), and `onTermination`,
/// called once: on `finish()`, when the consumer's task is cancelled, or when the stream is dropped.
/// One difference: elements the reader already took (at most `batchLimit - 1`) are no longer in
/// the buffer, so a bounded buffer holds up to that many more, and a `bufferingNewest` buffer that
/// drops does not drop those. Use a `batchLimit` of 1 where that matters.
package enum BatchedStream<Element: Sendable> {
    package typealias BufferingPolicy = AsyncStream<Element>.Continuation.BufferingPolicy
    package typealias YieldResult = AsyncStream<Element>.Continuation.YieldResult
    package typealias Termination = AsyncStream<Element>.Continuation.Termination

    /// A stream and the continuation that feeds it.
    ///
    /// - Parameters:
    ///   - bufferingPolicy: as for `AsyncStream` (default: unbounded).
    ///   - batchLimit: how many buffered elements the reader takes at once (at least 1).
    package static func makeStream(
        bufferingPolicy: BufferingPolicy = .unbounded, batchLimit: Int = 64
    ) -> (stream: AsyncStream<Element>, continuation: Continuation) {
        let (stream, continuation, _) = makeStreamAndReader(bufferingPolicy: bufferingPolicy, batchLimit: batchLimit)
        return (stream, continuation)
    }

    /// `makeStream` with its reader: reading `reader` directly skips `AsyncStream`'s per-element
    /// work (a cancellation handler and generic metadata lookups in its unspecialized code). Read
    /// the stream or the reader, not both.
    ///
    /// With a `weightLimit`, elements sent with `send(_:weight:)` also bound the buffer by their
    /// total weight (bytes, say): by the policy, the oldest are dropped until the new one fits, or
    /// the new one is. The reader then takes at most an eighth of the limit in one batch.
    /// Elements `streamSkips` names are the reader's alone: the stream passes over them.
    package static func makeStreamAndReader(
        bufferingPolicy: BufferingPolicy = .unbounded, batchLimit: Int = 64, weightLimit: Int? = nil,
        streamSkips: (@Sendable (Element) -> Bool)? = nil
    ) -> (stream: AsyncStream<Element>, continuation: Continuation, reader: Reader) {
        let storage = Storage(policy: bufferingPolicy, batchLimit: max(1, batchLimit), weightLimit: weightLimit)
        let reader = Reader(storage)
        storage.reader = reader
        let next: @Sendable () async -> Element? = if let streamSkips {
            {
                while let element = await reader.nextIgnoringCancellation() {
                    if !streamSkips(element) { return element }
                }
                return nil
            }
        } else {
            { await reader.nextIgnoringCancellation() }
        }
        let stream = AsyncStream(unfolding: next, onCancel: { storage.terminate(.cancelled) })
        return (stream, Continuation(storage: storage), reader)
    }

    /// Feeds a `BatchedStream` (any number of writers, from any thread).
    package struct Continuation: Sendable {
        let storage: Storage

        /// Buffers `element` for the reader (or hands it over when the reader waits).
        @discardableResult
        package func yield(_ element: Element) -> YieldResult { storage.yield(element) }

        /// `yield(_:)` with a result that is not generic: in code Swift does not specialize, building
        /// a `YieldResult` costs a metadata lookup per element.
        @discardableResult
        package func send(_ element: Element) -> BatchedStreamSend { storage.send(element) }

        /// Waits until the buffered elements weigh at most `weight` (or the stream ended): a writer
        /// that can pause (it pulls from a source) keeps the buffer bounded without dropping.
        /// One writer at a time waits.
        package func waitForRoom(weight: Int) async { await storage.waitForRoom(weight: weight) }

        /// Buffers `element` of `weight` toward the stream's `weightLimit`, dropping the oldest
        /// buffered elements until it fits (one element alone always fits), or, with
        /// `bufferingOldest`, `element` itself; returns how many were dropped (also for the count
        /// limit), or -1 once the stream ended.
        package func send(_ element: Element, weight: Int) -> Int { storage.send(element, weight: weight, markingGap: { _, _ in }) }

        /// `send(_:weight:)` that tells the first element after dropped ones what went
        /// (`markGap(&element, dropped)`: it adds their count, and what they had been told), so the
        /// reader learns of the loss where it happened. Not called when `element` itself is
        /// dropped (`bufferingOldest`).
        package func send(_ element: Element, weight: Int, markingGap markGap: (inout Element, [Element]) -> Void) -> Int {
            storage.send(element, weight: weight, markingGap: markGap)
        }

        /// Ends the stream: the reader gets what is buffered, then `nil`.
        package func finish() { storage.terminate(.finished) }

        /// Drops every element not read yet, the reader's taken batch included: once this returns,
        /// the reader gets only elements sent after it (the hub's user switch).
        package func discardBuffered() { storage.discardBuffered() }

        /// Called once when the stream ends: finished, cancelled or dropped. Set after the end, it
        /// is called at once.
        package var onTermination: (@Sendable (Termination) -> Void)? {
            get { storage.onTermination }
            nonmutating set { storage.onTermination = newValue }
        }
    }

    /// The buffer between the writers and the one reader: a ring of elements under one lock.
    ///
    /// The runtime's consumers of this are generic code that Swift does not specialize (a hub entry
    /// for a subscription type it never saw), where every use of a generic type such as
    /// `Deque<Element>` or `(Element, Int)` asks the runtime for its metadata (a hash-map lookup).
    /// So the hot path here uses only the element's own metadata: raw pointers into the ring,
    /// a non-generic waiter and a non-generic result (`BatchedStreamSend`).
    final class Storage: @unchecked Sendable {
        // @unchecked: every stored variable is touched with `lock` held.
        private let lock = NSLock()
        private var ring: UnsafeMutablePointer<Element>
        private var capacity: Int
        private var head = 0
        private var count = 0
        /// The reader, when it waits for an element.
        private var waiter: UnsafeContinuation<Void, Never>?
        /// Whether the stream ended (a `Bool`: testing the optional `endReason` is generic work).
        private var isEnded = false
        /// Why the stream ended; set once. No element is accepted after it.
        private var endReason: Termination?
        private var handler: (@Sendable (Termination) -> Void)?
        private let limit: Int?
        private let dropsOldest: Bool
        let batchLimit: Int
        /// The most total weight buffered (`send(_:weight:)`), and each buffered element's weight,
        /// a ring beside `ring`.
        private let weightLimit: Int?
        /// The most weight the reader takes in one batch (`takeBuffered`).
        private let batchWeightLimit: Int
        private var weights: UnsafeMutablePointer<Int>?
        private var totalWeight = 0
        /// A writer waiting for the total weight to fall to `roomThreshold` (`waitForRoom`).
        private var roomWaiter: UnsafeContinuation<Void, Never>?
        private var roomThreshold = 0
        /// Counts `discardBuffered()` calls: a batch taken before the last one is not handed out.
        private var discards = 0
        /// The reader, for `discardBuffered()` to reach the batch it took (it owns this storage).
        /// Set once, before the storage is shared.
        weak var reader: Reader?

        init(policy: BufferingPolicy, batchLimit: Int, weightLimit: Int? = nil) {
            switch policy {
            case .bufferingNewest(let limit): (self.limit, dropsOldest) = (max(0, limit), true)
            case .bufferingOldest(let limit): (self.limit, dropsOldest) = (max(0, limit), false)
            default: (limit, dropsOldest) = (nil, true)
            }
            self.batchLimit = batchLimit
            self.weightLimit = weightLimit
            batchWeightLimit = (weightLimit ?? .max) / 8
            capacity = 16
            ring = .allocate(capacity: capacity)
            if weightLimit != nil { weights = .allocate(capacity: capacity) }
        }

        deinit {
            for offset in 0..<count { (ring + (head + offset) % capacity).deinitialize(count: 1) }
            ring.deallocate()
            weights?.deallocate()
        }

        /// `send` with a weight: drops by the policy until `element` fits both limits, the oldest
        /// (`bufferingNewest`, unbounded) or `element` itself (`bufferingOldest`: returns 1). One
        /// element alone always fits. Elements are released outside the lock.
        func send(_ element: Element, weight: Int, markingGap markGap: (inout Element, [Element]) -> Void) -> Int {
            precondition(weights != nil, "send(_:weight:) needs a stream made with a weightLimit")
            lock.lock()
            if isEnded {
                lock.unlock()
                return -1
            }
            // The common case, room for it, builds nothing generic over the element (a metadata
            // lookup each in the hub's unspecialized code).
            guard isFull(adding: weight) else {
                append(element, weight: weight)
                return 0
            }
            if !dropsOldest {
                lock.unlock()
                return 1
            }
            var element = element
            var dropped: [Element] = []
            while isFull(adding: weight) {
                dropped.append((ring + head).move())
                totalWeight -= weights![head]
                head = (head + 1) % capacity
                count -= 1
            }
            // The oldest left is the first after the loss (not yet taken: taking is under this lock).
            if count > 0 { markGap(&(ring + head).pointee, dropped) } else { markGap(&element, dropped) }
            append(element, weight: weight)
            return dropped.count
        }

        /// Whether the buffer has no room for an element of `weight` (one alone always fits).
        private func isFull(adding weight: Int) -> Bool {
            count > 0 && ((limit.map { count >= $0 } ?? false) || totalWeight + weight > weightLimit!)
        }

        /// Buffers `element` of `weight` at the end, releases the lock and wakes a waiting reader.
        private func append(_ element: Element, weight: Int) {
            if count == capacity { grow() }
            let slot = (head + count) % capacity
            (ring + slot).initialize(to: element)
            weights![slot] = weight
            totalWeight += weight
            count += 1
            let waiter = self.waiter
            self.waiter = nil
            lock.unlock()
            waiter?.resume()
        }

        /// `yield` without building a generic result: the runtime's hot path.
        func send(_ element: Element) -> BatchedStreamSend {
            var remaining = 0
            return enqueue(element, droppedInto: nil, remaining: &remaining)
        }

        func yield(_ element: Element) -> YieldResult {
            withUnsafeTemporaryAllocation(of: Element.self, capacity: 1) { slot in
                var remaining = 0
                switch enqueue(element, droppedInto: slot.baseAddress!, remaining: &remaining) {
                case .enqueued: return .enqueued(remaining: remaining)
                case .dropped: return .dropped(slot.baseAddress!.move())
                case .terminated: return .terminated
                }
            }
        }

        /// Buffers `element`, dropping by the policy when full, and wakes a waiting reader. The
        /// element a full buffer drops (the oldest, or this one) is moved to `droppedInto` when
        /// given, else released; `remaining` is the room left (`.max` unbounded).
        private func enqueue(_ element: Element, droppedInto slot: UnsafeMutablePointer<Element>?, remaining: inout Int) -> BatchedStreamSend {
            lock.lock()
            if isEnded {
                lock.unlock()
                return .terminated
            }
            var outcome = BatchedStreamSend.enqueued
            if let limit, count >= limit {
                if !dropsOldest || limit == 0 {
                    lock.unlock()
                    slot?.initialize(to: element)
                    return .dropped
                }
                if let slot { slot.moveInitialize(from: ring + head, count: 1) } else { (ring + head).deinitialize(count: 1) }
                if let weights { totalWeight -= weights[head] }
                head = (head + 1) % capacity
                count -= 1
                outcome = .dropped
            }
            if count == capacity { grow() }
            let slot = (head + count) % capacity
            (ring + slot).initialize(to: element)
            // Sent without a weight to a weighted stream (a replay, say): it weighs nothing.
            weights?[slot] = 0
            count += 1
            remaining = limit.map { $0 - count } ?? .max
            let waiter = self.waiter
            self.waiter = nil
            lock.unlock()
            waiter?.resume()
            return outcome
        }

        private func grow() {
            let larger = UnsafeMutablePointer<Element>.allocate(capacity: capacity * 2)
            let firstRun = min(count, capacity - head)
            larger.moveInitialize(from: ring + head, count: firstRun)
            (larger + firstRun).moveInitialize(from: ring, count: count - firstRun)
            ring.deallocate()
            ring = larger
            if let weights {
                let largerWeights = UnsafeMutablePointer<Int>.allocate(capacity: capacity * 2)
                largerWeights.moveInitialize(from: weights + head, count: firstRun)
                (largerWeights + firstRun).moveInitialize(from: weights, count: count - firstRun)
                weights.deallocate()
                self.weights = largerWeights
            }
            head = 0
            capacity *= 2
        }

        /// After a burst has drained: an unbounded stream does not keep its peak size.
        private func shrink() {
            ring.deallocate()
            capacity = 16
            ring = .allocate(capacity: capacity)
            if weights != nil {
                weights?.deallocate()
                weights = .allocate(capacity: capacity)
            }
            head = 0
        }

        /// Ends the stream for `reason` (once); cancelling also discards what is buffered.
        func terminate(_ reason: Termination) {
            lock.lock()
            guard !isEnded else {
                lock.unlock()
                return
            }
            isEnded = true
            endReason = reason
            var discarded: [Element] = []
            if case .cancelled = reason {
                discarded.reserveCapacity(count)
                for offset in 0..<count { discarded.append((ring + (head + offset) % capacity).move()) }
                (head, count, totalWeight) = (0, 0, 0)
            }
            let (handler, waiter, roomWaiter) = (self.handler, self.waiter, self.roomWaiter)
            (self.handler, self.waiter, self.roomWaiter) = (nil, nil, nil)
            lock.unlock()
            // The elements are released outside the lock (a deinit might do anything).
            discarded.removeAll()
            waiter?.resume()
            roomWaiter?.resume()
            handler?(reason)
        }

        /// The weight buffered, whether a writer waits for room, and whether the stream ended.
        var bufferState: (weight: Int, writerWaits: Bool, ended: Bool) {
            lock.lock()
            defer { lock.unlock() }
            return (totalWeight, roomWaiter != nil, isEnded)
        }

        func waitForRoom(weight: Int) async {
            precondition(weights != nil, "waitForRoom(weight:) needs a stream made with a weightLimit")
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                lock.lock()
                if totalWeight <= weight || isEnded {
                    lock.unlock()
                    continuation.resume()
                    return
                }
                precondition(roomWaiter == nil, "one BatchedStream writer waits for room at a time")
                (roomWaiter, roomThreshold) = (continuation, weight)
                lock.unlock()
            }
        }

        var onTermination: (@Sendable (Termination) -> Void)? {
            get {
                lock.lock()
                defer { lock.unlock() }
                return handler
            }
            set {
                lock.lock()
                let endedAlready = endReason
                if !isEnded { handler = newValue }
                lock.unlock()
                if let endedAlready { newValue?(endedAlready) }
            }
        }

        /// Moves up to `batchLimit` elements, oldest first, to `destination`, waiting for one when
        /// there is none; 0 once the stream ended and is drained. `discards` is the count of
        /// `discardBuffered()` calls when the elements were taken.
        func take(into destination: UnsafeMutablePointer<Element>) async -> (count: Int, discards: Int) {
            while true {
                if let taken = takeBuffered(into: destination) { return taken }
                await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                    lock.lock()
                    if count > 0 || isEnded {
                        lock.unlock()
                        continuation.resume()
                        return
                    }
                    precondition(waiter == nil, "a BatchedStream is read by more than one task at once")
                    waiter = continuation
                    lock.unlock()
                }
            }
        }

        /// What `take` moves without waiting: `nil` when the reader must wait.
        private func takeBuffered(into destination: UnsafeMutablePointer<Element>) -> (count: Int, discards: Int)? {
            lock.lock()
            var roomMade: UnsafeContinuation<Void, Never>?
            defer {
                lock.unlock()
                roomMade?.resume()
            }
            guard count > 0 else { return isEnded ? (0, discards) : nil }
            var taken = min(count, batchLimit)
            if let weights {
                // A batch taken is out of the buffer's bounds: it weighs at most an eighth of the
                // limit (and one element, however heavy).
                var batchWeight = 0
                for offset in 0..<taken {
                    let weight = weights[(head + offset) % capacity]
                    if offset > 0, batchWeight + weight > batchWeightLimit {
                        taken = offset
                        break
                    }
                    batchWeight += weight
                }
                totalWeight -= batchWeight
                if roomWaiter != nil, totalWeight <= roomThreshold { (roomMade, roomWaiter) = (roomWaiter, nil) }
            }
            let firstRun = min(taken, capacity - head)
            destination.moveInitialize(from: ring + head, count: firstRun)
            (destination + firstRun).moveInitialize(from: ring, count: taken - firstRun)
            head = (head + taken) % capacity
            count -= taken
            if count == 0, capacity > 4096 { shrink() }
            return (taken, discards)
        }

        /// Empties the buffer and the reader's taken batch (see `Continuation.discardBuffered()`).
        func discardBuffered() {
            // Under the reader's lock, which it holds when it looks at `discards`: a batch taken
            // before this call is either dropped here or dropped when the reader gets it.
            reader?.discardTaken { discarded in
                lock.lock()
                defer { lock.unlock() }
                for offset in 0..<count { discarded.append((ring + (head + offset) % capacity).move()) }
                (head, count, totalWeight) = (0, 0, 0)
                discards += 1
                let roomMade = roomWaiter
                roomWaiter = nil
                roomMade?.resume()
                return discards
            }
        }
    }

    /// The reader's side: the batch it took, handed out one element at a time. Dropping the stream
    /// drops the reader, which ends the stream.
    ///
    /// Reading it directly, rather than the stream, skips `AsyncStream`'s work per element (a
    /// cancellation handler, a lock and generic metadata lookups in its unspecialized code): an
    /// element of the batch taken before costs one lock. Read the stream or the reader, not both.
    package final class Reader: @unchecked Sendable {
        // @unchecked: `taken`, `nextIndex` and `end` are touched by one reader at a time: under
        // `lock`, or while `reading` (set under `lock`) says a refill is under way. A second task
        // reading at once traps, as with `AsyncStream`.
        private let storage: Storage
        private let lock = NSLock()
        private var reading = false
        private let taken: UnsafeMutablePointer<Element>
        private var nextIndex = 0
        private var end = 0
        /// The storage's `discards` as this reader last heard of it.
        private var discards = 0

        init(_ storage: Storage) {
            self.storage = storage
            taken = .allocate(capacity: storage.batchLimit)
        }

        /// Ends the stream from the reader's side, as a cancelled reading task does: what is buffered
        /// is dropped, the writer's termination handler runs, and `next()` returns `nil` once the
        /// batch already taken is handed out.
        package func cancel() { storage.terminate(.cancelled) }

        /// What waits for this reader, by weight, whether the writer waits for room, and whether
        /// the writer finished: how a test sees a transport hold its source back, or a forwarder
        /// done, without reading.
        package var buffered: (weight: Int, writerWaits: Bool, ended: Bool) { storage.bufferState }

        deinit {
            (taken + nextIndex).deinitialize(count: end - nextIndex)
            taken.deallocate()
            storage.terminate(.cancelled)
        }

        #if compiler(>=6.2)
        /// The next element, or `nil` once the stream ended and is drained. A cancelled task ends
        /// the stream, as an `AsyncStream` consumer does. It runs on the caller's executor: an
        /// actor reading it does not hop off and back for each element (only to take a batch).
        package nonisolated(nonsending) func next() async -> Element? {
            if let element = nextTakenUnlessCancelled() { return element }
            return await refillEndingOnCancellation()
        }
        #else
        /// The next element, or `nil` once the stream ended and is drained. A cancelled task ends
        /// the stream, as an `AsyncStream` consumer does. (Compilers before Swift 6.2 have no
        /// `nonisolated(nonsending)`: an actor reading it hops off and back for each element.)
        package func next() async -> Element? {
            if let element = nextTakenUnlessCancelled() { return element }
            return await refillEndingOnCancellation()
        }
        #endif

        /// The next element of the batch taken before; `nil` when there is none, or when the task
        /// is cancelled, which ends the stream.
        private func nextTakenUnlessCancelled() -> Element? {
            if Task.isCancelled {
                storage.terminate(.cancelled)
                return nil
            }
            return nextTaken()
        }

        /// `refill()`, or `nil` once the task is cancelled, which ends the stream.
        private func refillEndingOnCancellation() async -> Element? {
            if Task.isCancelled { return nil }
            // Waiting is the only place cancellation must interrupt; a handler per element costs.
            return await withTaskCancellationHandler { await refill() } onCancel: { [storage] in storage.terminate(.cancelled) }
        }

        /// `next()` for the stream, which handles cancellation itself.
        func nextIgnoringCancellation() async -> Element? {
            if let element = nextTaken() { return element }
            return await refill()
        }

        /// The next element of the batch taken before, if there is one.
        private func nextTaken() -> Element? {
            lock.lock()
            defer { lock.unlock() }
            precondition(!reading, "a BatchedStream is read by more than one task at once")
            guard nextIndex < end else { return nil }
            defer { nextIndex += 1 }
            return (taken + nextIndex).move()
        }

        /// Takes the next batch (waiting for one) and returns its first element.
        private func refill() async -> Element? {
            while true {
                setReading()
                let (count, discardsThen) = await storage.take(into: taken)
                if let first = tookBatch(count, discards: discardsThen) { return first }
                if count == 0 { return nil }
                // The batch was discarded while it was on its way here: take the next one.
            }
        }

        private func setReading() {
            lock.lock()
            let twice = reading
            reading = true
            lock.unlock()
            precondition(!twice, "a BatchedStream is read by more than one task at once")
        }

        /// After `take`: its first element, and the rest for `nextTaken`; `nil` (for a non-empty
        /// batch) when a `discardBuffered()` came after it was taken.
        private func tookBatch(_ count: Int, discards discardsThen: Int) -> Element? {
            lock.lock()
            defer { lock.unlock() }
            reading = false
            guard discardsThen == discards else {
                taken.deinitialize(count: count)
                (nextIndex, end) = (0, 0)
                return nil
            }
            (nextIndex, end) = (min(count, 1), count)
            return count > 0 ? taken.move() : nil
        }

        /// Runs `emptyStorage` (which moves the buffered elements out and returns the new
        /// `discards`) with this reader's lock held, and drops the batch taken but not handed out.
        fileprivate func discardTaken(_ emptyStorage: (inout [Element]) -> Int) {
            var discarded: [Element] = []
            lock.lock()
            discards = emptyStorage(&discarded)
            if !reading {
                for index in nextIndex..<end { discarded.append((taken + index).move()) }
                (nextIndex, end) = (0, 0)
            }
            lock.unlock()
            // The elements are released outside the locks (a deinit might do anything).
            discarded.removeAll()
        }
    }
}

/// What `BatchedStream.Continuation.send(_:)` did with an element.
package enum BatchedStreamSend: Sendable {
    case enqueued
    /// The buffer was full: the oldest element (`bufferingNewest`) or this one (`bufferingOldest`) was dropped.
    case dropped
    /// The stream has ended.
    case terminated
}
