import NIOConcurrencyHelpers
import NIOCore

/// Carries a response body from the task reading the socket to the body's consumer, holding at
/// most `capacity` bytes (or `maximumChunks` chunks) in between, plus the one chunk whose push
/// reached the bound.
///
/// The reader waits in `push` while the hand-off is full, and while it waits it reads nothing from
/// the channel, so NIO's own back-pressure stops reading the socket and the server's sends stall in
/// TCP. A server sending faster than the consumer parses costs this bound, not its whole output.
final class BodyHandOff: Sendable {
    private struct State {
        var chunks = CircularBuffer<[UInt8]>()
        var bytes = 0
        /// No more chunks will come (`finish`), or the consumer is gone (`cancel`).
        var finished = false
        var cancelled = false
        var waitingProducer: CheckedContinuation<Void, Never>?
        var waitingConsumer: CheckedContinuation<[UInt8]?, Never>?

        func isFull(capacity: Int, maximumChunks: Int) -> Bool { bytes >= capacity || chunks.count >= maximumChunks }

        /// The oldest chunk, and the waiting reader to wake if taking it made room.
        mutating func take(capacity: Int, maximumChunks: Int) -> (chunk: [UInt8], wake: CheckedContinuation<Void, Never>?)? {
            guard let chunk = chunks.popFirst() else { return nil }
            bytes -= chunk.count
            guard !isFull(capacity: capacity, maximumChunks: maximumChunks) else { return (chunk, nil) }
            defer { waitingProducer = nil }
            return (chunk, waitingProducer)
        }
    }

    let capacity: Int
    let maximumChunks: Int
    private let state = NIOLockedValueBox(State())

    init(capacity: Int, maximumChunks: Int = 64) {
        self.capacity = max(1, capacity)
        self.maximumChunks = max(1, maximumChunks)
    }

    /// Hands `chunk` over, waiting while the hand-off is full. Returns false once the consumer is
    /// gone: the reader stops.
    func push(_ chunk: [UInt8]) async -> Bool {
        enum Step { case handedToConsumer(CheckedContinuation<[UInt8]?, Never>), buffered(full: Bool), refused }
        let step: Step = state.withLockedValue { state in
            if state.cancelled || state.finished { return .refused }
            if let consumer = state.waitingConsumer {
                state.waitingConsumer = nil
                return .handedToConsumer(consumer)
            }
            state.chunks.append(chunk)
            state.bytes += chunk.count
            return .buffered(full: state.isFull(capacity: capacity, maximumChunks: maximumChunks))
        }
        switch step {
        case .refused:
            return false
        case .handedToConsumer(let consumer):
            consumer.resume(returning: chunk)
            return true
        case .buffered(full: false):
            return true
        case .buffered(full: true):
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let wait = state.withLockedValue { state -> Bool in
                    guard !state.cancelled, state.isFull(capacity: capacity, maximumChunks: maximumChunks) else { return false }
                    state.waitingProducer = continuation
                    return true
                }
                if !wait { continuation.resume() }
            }
            return state.withLockedValue { !$0.cancelled }
        }
    }

    /// The next chunk, waiting for one; `nil` once the body ended and everything was taken.
    func next() async -> [UInt8]? {
        enum Step { case chunk([UInt8], wake: CheckedContinuation<Void, Never>?), end, wait }
        let step: Step = state.withLockedValue { state in
            if state.cancelled { return .end }
            if let (chunk, wake) = state.take(capacity: capacity, maximumChunks: maximumChunks) { return .chunk(chunk, wake: wake) }
            return state.finished ? .end : .wait
        }
        switch step {
        case .chunk(let chunk, let wake):
            wake?.resume()
            return chunk
        case .end:
            return nil
        case .wait:
            return await withCheckedContinuation { (continuation: CheckedContinuation<[UInt8]?, Never>) in
                enum Outcome { case waiting, chunk([UInt8], wake: CheckedContinuation<Void, Never>?), end }
                let outcome: Outcome = state.withLockedValue { state in
                    if state.cancelled { return .end }
                    if let (chunk, wake) = state.take(capacity: capacity, maximumChunks: maximumChunks) { return .chunk(chunk, wake: wake) }
                    if state.finished { return .end }
                    state.waitingConsumer = continuation
                    return .waiting
                }
                switch outcome {
                case .waiting: break
                case .chunk(let chunk, let wake):
                    wake?.resume()
                    continuation.resume(returning: chunk)
                case .end: continuation.resume(returning: nil)
                }
            }
        }
    }

    /// The body ended: the consumer gets what is buffered, then `nil`.
    func finish() {
        let consumer = state.withLockedValue { state -> CheckedContinuation<[UInt8]?, Never>? in
            state.finished = true
            defer { state.waitingConsumer = nil }
            return state.waitingConsumer
        }
        consumer?.resume(returning: nil)
    }

    /// The consumer is gone: what is buffered is dropped and a waiting reader returns.
    func cancel() {
        let (producer, consumer) = state.withLockedValue { state in
            state.cancelled = true
            state.chunks.removeAll()
            state.bytes = 0
            defer { (state.waitingProducer, state.waitingConsumer) = (nil, nil) }
            return (state.waitingProducer, state.waitingConsumer)
        }
        producer?.resume()
        consumer?.resume(returning: nil)
    }
}
