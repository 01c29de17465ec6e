/// Every task a connection runs, as children of one task group: the root `ConnectionDriver.start()`
/// starts and `disconnect()` ends and awaits, so no task of the connection outlives it.
///
/// The driver asks for work synchronously (on its actor, as the state machine's actions come); the
/// root adds each piece to its group. A group cancels its children only all together, so a child
/// that must end before the rest (an open given up, a closed session's reader, a cancelled timer)
/// runs under a `ChildStop` of its own.
package final class ConnectionTasks: Sendable {
    package typealias Work = @Sendable () async -> Void

    private struct State {
        var queued: [Work] = []
        var waiting: CheckedContinuation<[Work]?, Never>?
        var ending = false
        /// Children added and not yet ended, queued ones included.
        var live = 0
        /// `run()` returned: the root's task is over.
        var finished = false
        /// `finished()` calls waiting for `run()` to return.
        var finishWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = LockedValue(State())

    package init() {}

    /// Children alive now (a testing hook: after `disconnect()`, none).
    package var liveChildren: Int { state.withLock { $0.live } }

    /// Whether `run()` has returned (a testing hook).
    package var hasFinished: Bool { state.withLock { $0.finished } }

    /// Runs `work` as a child of the root; false (and nothing runs) once `end()` was called.
    @discardableResult
    package func add(_ work: @escaping Work) -> Bool {
        let (accepted, waiting): (Bool, CheckedContinuation<[Work]?, Never>?) = state.withLock { state in
            guard !state.ending else { return (false, nil) }
            state.live += 1
            guard let waiting = state.waiting else {
                state.queued.append(work)
                return (true, nil)
            }
            state.waiting = nil
            return (true, waiting)
        }
        waiting?.resume(returning: [work])
        return accepted
    }

    /// Runs `work` as a child that `stop` ends on its own; false (and nothing runs) once `end()` was called.
    @discardableResult
    package func add(stoppedBy stop: ChildStop, _ work: @escaping Work) -> Bool {
        add { await stop.run(work) }
    }

    /// The children stop: the root cancels them and returns once every one has ended.
    package func end() {
        let waiting: CheckedContinuation<[Work]?, Never>? = state.withLock { state in
            state.ending = true
            state.live -= state.queued.count
            state.queued.removeAll()
            defer { state.waiting = nil }
            return state.waiting
        }
        waiting?.resume(returning: nil)
    }

    /// The root: runs every piece of work as a child until `end()` (or until the calling task is
    /// cancelled), then cancels the children and waits for them.
    package func run() async {
        await withTaskCancellationHandler {
            await withDiscardingTaskGroup { group in
                while let batch = await next() {
                    for work in batch {
                        group.addTask {
                            await work()
                            self.state.withLock { $0.live -= 1 }
                        }
                    }
                }
                group.cancelAll()
            }
        } onCancel: {
            end()
        }
        let waiters = state.withLock { state in
            state.finished = true
            defer { state.finishWaiters.removeAll() }
            return state.finishWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once `run()` has returned (at once when it has).
    package func finished() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let over = state.withLock { state in
                if !state.finished { state.finishWaiters.append(continuation) }
                return state.finished
            }
            if over { continuation.resume() }
        }
    }

    private func next() async -> [Work]? {
        await withCheckedContinuation { continuation in
            let ready: [Work]?? = state.withLock { state in
                if state.ending { return .some(nil) }
                guard state.queued.isEmpty else {
                    defer { state.queued.removeAll() }
                    return .some(state.queued)
                }
                state.waiting = continuation
                return .none
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}

/// Ends one child of a `ConnectionTasks` group before the others: `stop()` cancels the work it runs
/// (and the work's own end makes `stop()` a no-op).
package final class ChildStop: Sendable {
    private struct State {
        /// `stop()` was called, or the work ended.
        var over = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = LockedValue(State())

    package init() {}

    package func stop() {
        let waiter: CheckedContinuation<Void, Never>? = state.withLock { state in
            state.over = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Runs `work` until it returns or `stop()` is called, whichever comes first; then cancels it and
    /// waits for it to end. One task beside the caller's: the caller waits for either.
    fileprivate func run(_ work: @escaping ConnectionTasks.Work) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await work()
                self.stop()
            }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let over = state.withLock { state in
                        if !state.over { state.waiter = continuation }
                        return state.over
                    }
                    if over { continuation.resume() }
                }
            } onCancel: {
                stop()
            }
            group.cancelAll()
        }
    }
}

/// A started root and the children it runs: what a connection (a driver, or a group of them) keeps
/// from its first start to the `disconnect()` that ends it.
package struct ConnectionRoot: Sendable {
    package let children: ConnectionTasks
    /// The root's own task; `nil` when the app's task runs the root (`run()`).
    private let task: Task<Void, Never>?

    /// Starts a root. Not a child: a connection's calls return at once, so its root needs a task of
    /// its own; `end()` ends it and waits for it.
    package static func start() -> ConnectionRoot {
        let children = ConnectionTasks()
        return ConnectionRoot(children: children, task: Task { await children.run() })
    }

    /// A root the calling task runs (the connection's `run()`): it calls `children.run()` itself.
    package static func runByCaller() -> ConnectionRoot {
        ConnectionRoot(children: ConnectionTasks(), task: nil)
    }

    /// Whether the app's task runs this root (`run()`), not a task of the root's own.
    package var isRunByCaller: Bool { task == nil }

    /// The root and its children alive now (a testing hook).
    package var liveTasks: Int { (children.hasFinished ? 0 : 1) + children.liveChildren }

    /// Cancels every child and returns once all ended.
    package func end() async {
        children.end()
        if let task { await task.value } else { await children.finished() }
    }
}

/// Roots a `disconnect()` took to end and has not seen end yet. Another `disconnect()` meanwhile
/// finds no root to take, and must not return before those end: it waits for them too.
package struct EndingRoots: Sendable {
    private var roots: [ConnectionRoot] = []
    /// `disconnect()` calls waiting for roots to end (a testing hook).
    package private(set) var waiting = 0

    package init() {}

    /// Adds `root` (taken from its connection, if any) and returns every root being ended: the
    /// caller awaits each `end()`, then calls `ended(_:)` with them.
    package mutating func adding(_ root: ConnectionRoot?) -> [ConnectionRoot] {
        if let root { roots.append(root) }
        waiting += 1
        return roots
    }

    /// Forgets `ended`, which the caller saw end.
    package mutating func ended(_ ended: [ConnectionRoot]) {
        roots.removeAll { root in ended.contains { $0.children === root.children } }
        waiting -= 1
    }

    /// The tasks of the roots being ended.
    package var liveTasks: Int { roots.reduce(0) { $0 + $1.liveTasks } }
}
