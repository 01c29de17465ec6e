/// The lifecycle of a connection as its driver (or a group of drivers) runs it: what a
/// `ManagedConnection` forwards its API to. For transport modules (`@_spi(Transport)`), not apps.
@_spi(Transport) public protocol ConnectionLifecycle: Sendable {
    func start() async
    /// Runs the connection in the calling task until it ends (see `ManagedConnection.run()`).
    func run() async throws(ConnectionRunError)
    func disconnect() async
    /// Ends the connection at once, without a close handshake (a cancelled `run()`).
    func abort() async
    func suspend() async
    func resume() async
    func networkPathChanged(available: Bool) async
    var state: ConnectionState { get async }
    func stateUpdates() async -> AsyncStream<ConnectionState>
    /// Calls `listener` with the current state and each new one, synchronously, until the returned
    /// closure is called: how `SwitchableConnection` shows the state of the transport in use.
    func followStates(_ listener: @escaping @Sendable (ConnectionState) -> Void) -> @Sendable () -> Void
    func unsubscribe(_ id: String) async
    var acknowledgedChannels: [String] { get async }
    func status(ofSubscription id: String) async -> SubscriptionStatus?
    func statusUpdates(ofSubscription id: String) async -> AsyncStream<SubscriptionStatus>
    /// Yields to `continuation` at every change the connection publishes (its state, a
    /// subscription's status) until the returned closure is called.
    func observeChanges(_ continuation: AsyncStream<Void>.Continuation) -> @Sendable () -> Void
    /// See `Wire.forgetResumption()`.
    func forgetResumption()
}

extension ConnectionLifecycle {
    /// A signal at every change the connection publishes (its state, a subscription's status), for
    /// as long as the stream is read: what a test awaits to check a condition again.
    public func changes() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let stop = observeChanges(continuation)
        continuation.onTermination = { _ in stop() }
        return stream
    }
}

extension ConnectionDriver: ConnectionLifecycle {}
