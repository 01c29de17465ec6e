/// Why a connection's `run()` ended other than by `disconnect()`, a final event or cancellation.
public enum ConnectionRunError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The connection failed for good (its state is `.failed` with the same reason).
    case failed(ConnectionFailure)
    /// The service closed the connection with a final close code (its state is `.closed`).
    case closed(ConnectionEnd)
    /// The connection runs already: `start()` or another `run()` runs it.
    case alreadyRunning

    public var description: String {
        switch self {
        case .failed(let failure): "the connection failed for good: \(failure)"
        case .closed(let end): "the service closed the connection for good: \(end)"
        case .alreadyRunning: "the connection runs already (start() or another run() runs it)"
        }
    }
}
