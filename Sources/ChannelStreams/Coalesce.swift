import ChannelRuntime

extension AsyncSequence where Self: Sendable, Element: Sendable {
    /// One output per key and window: the first event for a key opens a window of `window`; events
    /// for the same key inside it are folded into one (by default the latest wins), which is
    /// delivered when the window closes. Keys are independent. "Ten events for the same job → one
    /// refresh."
    ///
    /// When the base sequence ends, open windows are delivered at once (in the order they opened) and
    /// the result ends. Cancelling the consumer's task ends the result and stops reading the base.
    ///
    /// - Parameters:
    ///   - key: the entity an event is about (a job id, a device).
    ///   - window: how long events for one key are gathered.
    ///   - clock: the clock windows are measured on (inject a manual one in tests).
    ///   - merge: folds a newer event into the gathered one; by default the newer replaces it.
    public func coalesced<Key: Hashable & Sendable, C: Clock>(
        by key: @escaping @Sendable (Element) -> Key,
        within window: C.Duration,
        clock: C,
        merge: @escaping @Sendable (_ gathered: Element, _ newer: Element) -> Element = { _, newer in newer }
    ) -> AsyncStream<Element> {
        let (output, continuation) = AsyncStream.makeStream(of: Element.self)
        let coalescer = Coalescer<Key, Element>(continuation: continuation)
        // Not a child: the operator returns a stream at once. The reader ends with the base or when
        // the stream's consumer stops; each window's timer is a child of it.
        let reader = Task {
            await withDiscardingTaskGroup { group in
                do {
                    for try await element in self {
                        let key = key(element)
                        let opened = coalescer.add(element, for: key, merge: merge)
                        guard opened else { continue }
                        let deadline = clock.now.advanced(by: window)
                        group.addTask {
                            do { try await clock.sleep(until: deadline, tolerance: nil) } catch { return }
                            coalescer.flush(key)
                        }
                    }
                } catch {
                    // A failing base ends the result like a finished one.
                }
                group.cancelAll()
            }
            coalescer.finish()
        }
        continuation.onTermination = { _ in reader.cancel() }
        return output
    }
}

/// The windows of `coalesced(by:within:clock:merge:)`: what each open key has gathered.
final class Coalescer<Key: Hashable & Sendable, Element: Sendable>: Sendable {
    private struct State {
        var gathered: [Key: Element] = [:]
        /// Keys with an open window, in the order the windows opened.
        var order: [Key] = []
    }

    private let state = LockedValue(State())
    private let continuation: AsyncStream<Element>.Continuation

    init(continuation: AsyncStream<Element>.Continuation) {
        self.continuation = continuation
    }

    /// Adds `element` to `key`'s window; true when it opened the window.
    func add(_ element: Element, for key: Key, merge: (Element, Element) -> Element) -> Bool {
        state.withLock { state in
            if let gathered = state.gathered[key] {
                state.gathered[key] = merge(gathered, element)
                return false
            }
            state.gathered[key] = element
            state.order.append(key)
            return true
        }
    }

    /// `key`'s window closed: deliver what it gathered.
    func flush(_ key: Key) {
        let element = state.withLock { state -> Element? in
            state.order.removeAll { $0 == key }
            return state.gathered.removeValue(forKey: key)
        }
        if let element { continuation.yield(element) }
    }

    /// The base ended: deliver every open window, oldest first, and end.
    func finish() {
        let elements = state.withLock { state in
            defer { state = State() }
            return state.order.compactMap { state.gathered[$0] }
        }
        for element in elements { continuation.yield(element) }
        continuation.finish()
    }
}
