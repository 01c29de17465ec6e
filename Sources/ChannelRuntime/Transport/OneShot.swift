/// Resolves once (with `nil` for success or an error); `wait()` returns that outcome whenever it is
/// called. A transport's connect waits on it for what a channel callback or a delegate reports.
package final class OneShot: Sendable {
    package init() {}

    private let state = LockedValue<(done: Bool, error: (any Error)?, waiter: CheckedContinuation<Void, any Error>?)>((false, nil, nil))

    package func resolve(_ error: (any Error)?) {
        let waiter: CheckedContinuation<Void, any Error>? = state.withLock { state in
            guard !state.done else { return nil }
            state.done = true
            state.error = error
            defer { state.waiter = nil }
            return state.waiter
        }
        if let waiter {
            if let error { waiter.resume(throwing: error) } else { waiter.resume() }
        }
    }

    /// Whether `resolve` was called.
    package var isResolved: Bool { state.withLock { $0.done } }

    package func wait() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let outcome: (any Error)?? = state.withLock { state in
                if state.done { return .some(state.error) }
                state.waiter = continuation
                return .none
            }
            switch outcome {
            case .none: break
            case .some(nil): continuation.resume()
            case .some(let error?): continuation.resume(throwing: error)
            }
        }
    }
}
