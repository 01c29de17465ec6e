import Foundation

/// A connection's shared stream and the own streams beside it (`ChannelRequest.isOwnStream`, such
/// as one Server-Sent Events request per job). Each own stream is a `ConnectionDriver` of its own
/// with one subscription, so it reconnects, backs off, resumes and fails on its own; the app
/// starts, suspends, resumes and stops them all at once through the connection. An own stream
/// ends with its subscription: unsubscribed, or finished by a final event.
///
/// The connection's state is the shared stream's; while that one is connected, an own stream on
/// its way back (waiting for a network, reconnecting, connecting) shows instead. An own stream
/// that failed for good shows in its subscription's status (`.failed`), not in the connection's
/// state: the other streams are fine.
package actor OwnStreamGroup: ConnectionLifecycle {
    private let shared: ConnectionDriver
    private let makeDriver: @Sendable (ChannelRequest) -> ConnectionDriver

    private enum Lifecycle {
        case idle, running, suspended, stopped
    }

    private var lifecycle = Lifecycle.idle
    private var networkAvailable = true

    private struct OwnStream {
        let driver: ConnectionDriver
        /// The subscription's id in its driver.
        let innerID: String
        let channel: String
        var state: ConnectionState = .idle
        var started = false
        var watchers: [Task<Void, Never>] = []
    }

    private var streams: [String: OwnStream] = [:]
    private var streamsMade = 0
    private var sharedState: ConnectionState = .idle
    /// The merged state and the own streams' statuses, for observers.
    private let board = ConnectionStatusBoard()
    private var sharedWatcher: Task<Void, Never>?

    /// The shared stream's resumption point only: an own stream is one job's, which a switch of
    /// transport does not carry.
    package nonisolated func forgetResumption() { shared.forgetResumption() }

    package init(shared: ConnectionDriver, makeDriver: @escaping @Sendable (ChannelRequest) -> ConnectionDriver) {
        self.shared = shared
        self.makeDriver = makeDriver
    }

    deinit {
        sharedWatcher?.cancel()
        for stream in streams.values { for watcher in stream.watchers { watcher.cancel() } }
    }

    // MARK: Own streams

    /// Opens `request`'s own stream: its driver is started when the connection runs.
    package func subscribe(_ request: ChannelRequest) async throws(ConnectionDriver.SubscribeRefusal) -> RawChannelSubscription {
        watchSharedState()
        let driver = makeDriver(request)
        let inner = try await driver.subscribe(to: request.channel)
        streamsMade += 1
        let id = "stream\(streamsMade)"
        streams[id] = OwnStream(driver: driver, innerID: inner.id, channel: request.channel)
        board.setStatus(await driver.status(ofSubscription: inner.id) ?? .subscribing, of: id)
        let statuses = await driver.statusUpdates(ofSubscription: inner.id)
        let states = await driver.stateUpdates()
        streams[id]?.watchers = [
            Task { [weak self] in
                for await status in statuses { await self?.setStatus(status, of: id) }
                // The subscription ended (unsubscribed, or its final event came): so does its stream.
                await self?.ended(id)
            },
            Task { [weak self] in
                for await state in states {
                    guard let self else { return }
                    await self.streamStateChanged(state, of: id)
                }
            },
        ]
        switch lifecycle {
        case .running:
            await startStream(id)
        case .idle, .suspended, .stopped:
            break  // started with the connection
        }
        return RawChannelSubscription(id: id, channel: inner.channel, events: inner.events, reader: inner.reader)
    }

    private func startStream(_ id: String) async {
        guard let stream = streams[id], !stream.started else { return }
        streams[id]?.started = true
        if !networkAvailable { await stream.driver.networkPathChanged(available: false) }
        await stream.driver.start()
    }

    /// An own stream's status; `.failed` is final (two watchers write it: a word that comes
    /// late, such as `.subscribing` after the stream stopped, must not replace the failure).
    private func setStatus(_ status: SubscriptionStatus, of id: String) {
        guard streams[id] != nil else { return }
        if case .failed = board.status(of: id) { return }
        board.setStatus(status, of: id)
    }

    private func streamStateChanged(_ state: ConnectionState, of id: String) {
        guard streams[id] != nil else { return }
        streams[id]?.state = state
        // An own stream that failed for good fails its subscription: the connection carries on.
        if case .failed(let failure) = state { setStatus(.failed(failure.errors), of: id) }
        publishState()
    }

    private func ended(_ id: String) async {
        guard let stream = streams.removeValue(forKey: id) else { return }
        board.forget(id)
        for watcher in stream.watchers { watcher.cancel() }
        publishState()
        await stream.driver.disconnect()
    }

    // MARK: State

    private func watchSharedState() {
        guard sharedWatcher == nil else { return }
        let shared = self.shared
        // Weak: the shared stream's states never end, and the group must not outlive its connection.
        sharedWatcher = Task { [weak self] in
            for await state in await shared.stateUpdates() {
                guard let self else { return }
                await self.sharedStateChanged(state)
            }
        }
    }

    private func sharedStateChanged(_ state: ConnectionState) {
        sharedState = state
        publishState()
    }

    private func publishState() {
        board.setConnectionState(Self.merged(shared: sharedState, own: streams.values.map(\.state)))
    }

    /// The shared stream's state; while it is connected, the own stream furthest from connected
    /// of those on their way back.
    static func merged(shared: ConnectionState, own: [ConnectionState]) -> ConnectionState {
        guard shared == .connected else { return shared }
        func rank(_ state: ConnectionState) -> Int {
            switch state {
            case .waitingForNetwork: 3
            case .reconnecting: 2
            case .connecting: 1
            case .connected, .idle, .suspended, .disconnected, .failed, .closed: 0
            }
        }
        return own.filter { rank($0) > 0 }.max { rank($0) < rank($1) } ?? shared
    }

    package var state: ConnectionState {
        get async {
            var own: [ConnectionState] = []
            for stream in streams.values { own.append(await stream.driver.state) }
            return Self.merged(shared: await shared.state, own: own)
        }
    }

    package func stateUpdates() async -> AsyncStream<ConnectionState> {
        watchSharedState()
        return board.connectionStateUpdates()
    }

    // MARK: Lifecycle

    package func start() async {
        watchSharedState()
        lifecycle = .running
        await shared.start()
        for id in streams.keys.sorted() {
            if streams[id]?.started == true { await streams[id]?.driver.start() } else { await startStream(id) }
        }
    }

    package func disconnect() async {
        lifecycle = .stopped
        await shared.disconnect()
        for stream in streams.values { await stream.driver.disconnect() }
    }

    package func suspend() async {
        guard lifecycle == .running else { return }
        lifecycle = .suspended
        await shared.suspend()
        for stream in streams.values where stream.started { await stream.driver.suspend() }
    }

    package func resume() async {
        guard lifecycle == .suspended || lifecycle == .running else { return }
        lifecycle = .running
        await shared.resume()
        for id in streams.keys.sorted() {
            if streams[id]?.started == true { await streams[id]?.driver.resume() } else { await startStream(id) }
        }
    }

    package func networkPathChanged(available: Bool) async {
        networkAvailable = available
        await shared.networkPathChanged(available: available)
        for stream in streams.values where stream.started { await stream.driver.networkPathChanged(available: available) }
    }

    // MARK: Subscriptions

    package func unsubscribe(_ id: String) async {
        guard let stream = streams[id] else { return await shared.unsubscribe(id) }
        await stream.driver.unsubscribe(stream.innerID)
        await ended(id)
    }

    package var acknowledgedChannels: [String] {
        get async {
            var channels = await shared.acknowledgedChannels
            for (id, stream) in streams where board.status(of: id)?.isActive == true { channels.append(stream.channel) }
            return channels.sorted()
        }
    }

    package func status(ofSubscription id: String) async -> SubscriptionStatus? {
        streams[id] == nil ? await shared.status(ofSubscription: id) : board.status(of: id)
    }

    package func statusUpdates(ofSubscription id: String) async -> AsyncStream<SubscriptionStatus> {
        streams[id] == nil ? await shared.statusUpdates(ofSubscription: id) : board.statusUpdates(of: id)
    }
}

extension ConnectionFailure {
    /// The service's errors behind the failure (one describing it when the service sent none).
    var errors: [ServiceError] {
        switch self {
        case .unauthorized(let errors), .rejected(let errors):
            errors.isEmpty ? [ServiceError(errorType: "ConnectionFailed", message: "\(self)")] : errors
        case .gaveUp:
            [ServiceError(errorType: "GaveUp", message: "the reconnect policy gave up")]
        }
    }
}
