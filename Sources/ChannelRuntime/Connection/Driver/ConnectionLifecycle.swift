/// The lifecycle of a connection as its driver (or a group of drivers) runs it: what a
/// `ManagedConnection` forwards its API to. For transport modules (`@_spi(Transport)`), not apps.
@_spi(Transport) public protocol ConnectionLifecycle: Sendable {
    func start() async
    /// Runs the connection in the calling task until it ends (see `ManagedConnection.run()`).
    func run() async throws(ConnectionRunError)
    func disconnect() async
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
    /// A signal at every change the connection publishes (its state, a subscription's status), for
    /// as long as the stream is read: what a test awaits to check a condition again.
    func changes() -> AsyncStream<Void>
    /// See `Wire.forgetResumption()`.
    func forgetResumption()
}

extension ConnectionDriver: ConnectionLifecycle {}
