import ChannelRuntime
import Foundation

/// The frames waiting for the socket, in order, with a bound on what publishes may queue: a server
/// that stops reading stops the writer, and without a bound an app publishing on grows memory
/// without limit. Control frames (handshake, subscribe, unsubscribe) are few and always queued.
final class OutboundQueue: Sendable {
    enum Frame: Equatable, Sendable {
        case control(String)
        case publish(id: String, text: String)

        var text: String {
            switch self {
            case .control(let text), .publish(_, let text): text
            }
        }
    }

    /// What `enqueue` did.
    enum Outcome: Equatable {
        case queued
        /// The queued publishes already hold `maximumPublishBytes`: nothing was queued.
        case full
        /// The queue was finished: nothing more goes out.
        case finished
    }

    private struct State {
        var frames: [Frame] = []
        var head = 0
        /// UTF-8 bytes of the publishes queued.
        var publishBytes = 0
        var finished = false
        var waiter: CheckedContinuation<Frame?, Never>?
    }

    let maximumPublishBytes: Int
    private let state = LockedValue(State())

    init(maximumPublishBytes: Int) {
        self.maximumPublishBytes = maximumPublishBytes
    }

    /// Queues `frame`; a publish only while the publishes queued leave room for it (one is always
    /// taken when none is queued, however large).
    @discardableResult
    func enqueue(_ frame: Frame) -> Outcome {
        let (outcome, waiter): (Outcome, CheckedContinuation<Frame?, Never>?) = state.withLock { state in
            guard !state.finished else { return (.finished, nil) }
            if case .publish(_, let text) = frame {
                let bytes = text.utf8.count
                guard state.publishBytes == 0 || state.publishBytes + bytes <= maximumPublishBytes else { return (.full, nil) }
                state.publishBytes += bytes
            }
            if let waiter = state.waiter {
                state.waiter = nil
                return (.queued, waiter)
            }
            state.frames.append(frame)
            return (.queued, nil)
        }
        if let waiter {
            // Handed straight to the waiting writer: it counts as queued until `sent` says otherwise.
            waiter.resume(returning: frame)
        }
        return outcome
    }

    /// The next frame, waiting for one; `nil` once finished and drained. One reader only.
    func next() async -> Frame? {
        await withCheckedContinuation { continuation in
            let frame: Frame?? = state.withLock { state in
                if state.head < state.frames.count {
                    defer {
                        state.head += 1
                        if state.head == state.frames.count { (state.frames, state.head) = ([], 0) }
                    }
                    return .some(state.frames[state.head])
                }
                if state.finished { return .some(nil) }
                precondition(state.waiter == nil, "an OutboundQueue is read by one writer")
                state.waiter = continuation
                return nil
            }
            if let frame { continuation.resume(returning: frame) }
        }
    }

    /// The writer is done with `frame` (written, or withdrawn): its bytes leave the bound.
    func done(with frame: Frame) {
        guard case .publish(_, let text) = frame else { return }
        state.withLock { $0.publishBytes -= text.utf8.count }
    }

    /// Nothing more goes out: what is queued is dropped, and the writer gets `nil`.
    func finish() {
        let waiter = state.withLock { state in
            state.finished = true
            (state.frames, state.head, state.publishBytes) = ([], 0, 0)
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }
}
