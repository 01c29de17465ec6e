/// Where a transport runs what a socket needs for as long as it lives (reading it): children of
/// the root task of the connection that opened it, so no task of a socket outlives its connection.
/// The connection hands one to `WebSocketTransport.connect` and `EventStreamTransport.open`.
public struct TransportTasks: Sendable {
    package typealias Work = @Sendable () async -> Void
    /// Starts `work`; returns how to cancel it, or `nil` when nothing can run any more.
    package typealias Start = @Sendable (_ work: @escaping Work) -> (@Sendable () -> Void)?

    private let start: Start

    package init(start: @escaping Start) { self.start = start }

    /// Runs `work` as a child of the connection's root until it returns or the returned handle's
    /// `cancel()` is called (the connection's end cancels it too). Throws `CancellationError`,
    /// and runs nothing, when the connection is ending.
    public func run(_ work: @escaping @Sendable () async -> Void) throws -> TransportTask {
        guard let cancel = start(work) else { throw CancellationError() }
        return TransportTask(cancel: cancel)
    }
}

/// A socket's work that `TransportTasks` runs.
public struct TransportTask: Sendable {
    private let cancelWork: @Sendable () -> Void

    package init(cancel: @escaping @Sendable () -> Void) { cancelWork = cancel }

    /// Cancels the work; it ends as its task's cancellation makes it.
    public func cancel() { cancelWork() }
}
