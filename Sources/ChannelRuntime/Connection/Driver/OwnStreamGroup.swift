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
        var started = false
        /// The root whose child watches this stream's statuses (none after a disconnect until the
        /// next start).
        var watchedBy: ConnectionTasks?
        /// Stops following the driver's states (`ConnectionStatusBoard.followStates`).
        let stopFollowingStates: @Sendable () -> Void
    }

    private var streams: [String: OwnStream] = [:]
    private var streamsMade = 0
    /// The states the group's state is merged from, kept by listeners on the drivers' boards (no
    /// task between a driver's state and the group's): the shared stream's, and each own stream's.
    private nonisolated let states = LockedValue(States())

    private struct States: Sendable {
        var shared: ConnectionState = .idle
        var own: [String: ConnectionState] = [:]
    }
    /// The merged state and the own streams' statuses, for observers.
    private let board = ConnectionStatusBoard()
    /// The group's root task and its children (a watcher of each own stream's statuses):
    /// from the first start (or observer) to the `disconnect()` that ends it.
    private var root: ConnectionRoot?
    /// Roots a `disconnect()` is ending: a second `disconnect()` waits for them as well.
    private var endingRoots = EndingRoots()

    /// The shared stream's resumption point only: an own stream is one job's, which a switch of
    /// transport does not carry.
    package nonisolated func forgetResumption() { shared.forgetResumption() }

    package init(shared: ConnectionDriver, makeDriver: @escaping @Sendable (ChannelRequest) -> ConnectionDriver) {
        self.shared = shared
        self.makeDriver = makeDriver
        // Followed for the group's life (the listener holds the states and the board, not the group).
        _ = shared.followStates { [states, board] state in
            states.withLock { states in
                states.shared = state
                board.setConnectionState(Self.merged(shared: states.shared, own: Array(states.own.values)))
            }
        }
    }

    deinit {
        root?.children.end()
    }

    /// The root's children, the root started first when there is none.
    private var children: ConnectionTasks {
        if let root { return root.children }
        let root = ConnectionRoot.start()
        self.root = root
        return root.children
    }

    /// Tasks of this connection alive now: the group's root and its children, and every driver's
    /// (a testing hook).
    package var liveTasks: Int {
        get async {
            var count = (root?.liveTasks ?? 0) + endingRoots.liveTasks
            count += await shared.liveTasks
            for stream in streams.values { count += await stream.driver.liveTasks }
            return count
        }
    }

    // MARK: Own streams

    /// Opens `request`'s own stream: its driver is started when the connection runs.
    package func subscribe(_ request: ChannelRequest) async throws(ConnectionDriver.SubscribeRefusal) -> RawChannelSubscription {
        let driver = makeDriver(request)
        let inner = try await driver.subscribe(to: request.channel)
        streamsMade += 1
        let id = "stream\(streamsMade)"
        states.withLock { $0.own[id] = .idle }
        let stopFollowing = driver.followStates { [weak self] state in self?.streamStateChanged(state, of: id) }
        streams[id] = OwnStream(driver: driver, innerID: inner.id, channel: request.channel, stopFollowingStates: stopFollowing)
        board.setStatus(await driver.status(ofSubscription: inner.id) ?? .subscribing, of: id)
        await watch(id)
        switch lifecycle {
        case .running:
            await startStream(id)
        case .idle, .suspended, .stopped:
            break  // started with the connection
        }
        // The own stream's statuses travel in its events (its driver's); the group's board keeps the
        // same words for `status(ofSubscription:)`.
        var subscription = RawChannelSubscription(id: id, channel: inner.channel, events: inner.events, reader: inner.reader)
        subscription.carriesStatuses = inner.carriesStatuses
        return subscription
    }

    /// Watches own stream `id`'s statuses in a child of the current root (its states come through
    /// a listener on its driver's board).
    private func watch(_ id: String) async {
        guard let stream = streams[id] else { return }
        let children = self.children
        guard stream.watchedBy !== children else { return }
        streams[id]?.watchedBy = children
        let statuses = await stream.driver.statusUpdates(ofSubscription: stream.innerID)
        // Weak: the group must not outlive its connection (its deinit ends the root).
        children.add { [weak self] in
            for await status in statuses { self?.setStatus(status, of: id) }
            // The subscription ended (unsubscribed, or its final event came): so does its stream.
            // A watcher cancelled by a disconnect says nothing: the stream is still registered.
            if !Task.isCancelled { await self?.ended(id) }
        }
    }

    private func startStream(_ id: String) async {
        guard let stream = streams[id], !stream.started else { return }
        streams[id]?.started = true
        if !networkAvailable { await stream.driver.networkPathChanged(available: false) }
        await stream.driver.start()
    }

    /// An own stream's status; `.failed` is final (the status watcher and the state listener both
    /// write it: a word that comes late, such as `.subscribing` after the stream stopped, must not
    /// replace the failure). Checked and written under the states' lock, so neither overtakes.
    private nonisolated func setStatus(_ status: SubscriptionStatus, of id: String) {
        states.withLock { states in
            guard states.own[id] != nil else { return }
            if case .failed = board.status(of: id) { return }
            board.setStatus(status, of: id)
        }
    }

    /// A driver's state, from the listener on its board.
    private nonisolated func streamStateChanged(_ state: ConnectionState, of id: String) {
        let known = states.withLock { states in
            guard states.own[id] != nil else { return false }
            states.own[id] = state
            board.setConnectionState(Self.merged(shared: states.shared, own: Array(states.own.values)))
            return true
        }
        // An own stream that failed for good fails its subscription: the connection carries on.
        if known, case .failed(let failure) = state { setStatus(.failed(failure.errors), of: id) }
    }

    private func ended(_ id: String) async {
        guard let stream = streams.removeValue(forKey: id) else { return }
        stream.stopFollowingStates()
        states.withLock { states in
            states.own[id] = nil
            board.forget(id)
            board.setConnectionState(Self.merged(shared: states.shared, own: Array(states.own.values)))
        }
        await stream.driver.disconnect()
    }

    // MARK: State

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
        board.connectionStateUpdates()
    }

    /// Changes of the group's board (own streams, the merged state) and of the shared stream's.
    package nonisolated func observeChanges(_ continuation: AsyncStream<Void>.Continuation) -> @Sendable () -> Void {
        let stops = [board.observeChanges(continuation), shared.observeChanges(continuation)]
        return { stops.forEach { $0() } }
    }

    /// The group's merged state, as `stateUpdates()` gives it.
    package nonisolated func followStates(_ listener: @escaping @Sendable (ConnectionState) -> Void) -> @Sendable () -> Void {
        board.followStates(listener)
    }

    // MARK: Lifecycle

    package func start() async {
        for id in streams.keys.sorted() { await watch(id) }
        lifecycle = .running
        await shared.start()
        await startOwnStreams { await $0.start() }
    }

    /// Runs the shared stream in the calling task (`ConnectionDriver.run()`), the own streams beside
    /// it; when that run ends, so do the own streams (cut off when the calling task was cancelled,
    /// stopped otherwise) and the group's root.
    package func run() async throws(ConnectionRunError) {
        guard lifecycle != .running, lifecycle != .suspended else { throw .alreadyRunning }
        for id in streams.keys.sorted() { await watch(id) }
        lifecycle = .running
        await startOwnStreams { await $0.start() }
        let ended: Result<Void, ConnectionRunError>
        do throws(ConnectionRunError) {
            try await shared.run()
            ended = .success(())
        } catch {
            ended = .failure(error)
        }
        // A `disconnect()` ended the run: it stops the rest.
        guard lifecycle != .stopped else { return try ended.get() }
        lifecycle = .stopped
        let cancelled = Task.isCancelled
        for stream in streams.values {
            if cancelled { await stream.driver.abort() } else { await stream.driver.disconnect() }
        }
        await endRoot()
        return try ended.get()
    }

    /// Stops every stream, then ends the group's root: once this returns, no task of the connection
    /// is alive (unless `start()` was called again meanwhile).
    package func disconnect() async {
        lifecycle = .stopped
        await shared.disconnect()
        for stream in streams.values { await stream.driver.disconnect() }
        await endRoot()
    }

    /// Cuts every stream off at once (a cancelled `run()`), then ends the group's root.
    package func abort() async {
        lifecycle = .stopped
        await shared.abort()
        for stream in streams.values { await stream.driver.abort() }
        await endRoot()
    }

    private func endRoot() async {
        guard lifecycle == .stopped else { return }
        let roots = endingRoots.adding(root)
        root = nil
        for root in roots { await root.end() }
        endingRoots.ended(roots)
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
        await startOwnStreams { await $0.resume() }
    }

    /// Starts each own stream not started yet, in id order; `again` is what a started one's driver
    /// is told (start after a stop, resume after a suspension).
    private func startOwnStreams(again: (ConnectionDriver) async -> Void) async {
        for id in streams.keys.sorted() {
            if let stream = streams[id], stream.started { await again(stream.driver) } else { await startStream(id) }
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
