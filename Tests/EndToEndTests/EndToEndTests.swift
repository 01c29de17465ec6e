import AppSyncEmulator
import AppSyncRuntime
import ChannelRuntime
import Foundation
import Testing
import VortexEvents
import ChannelRuntimeTesting

/// Generated `BackendNotifier` + runtime + emulator over real sockets on 127.0.0.1 (OS-chosen ports).
@Suite("End to end over loopback", .serialized)
struct EndToEndTests {
    let now = Date(timeIntervalSince1970: 1_737_892_800)

    func pair(_ channel: String, _ event: some Encodable) throws -> (String, String) { (channel, try json(event)) }

    /// One event per channel for `user`, tagged with `tag` so deliveries can be told apart.
    func samples(user: String, tag: String) throws -> [(String, String)] {
        [
            try pair(DevicePresenceSubscription(userId: user).channel, DevicePresenceOutput(eventType: "device/presenceChanged", timestamp: now, thingName: tag, online: true)),
            try pair(DeviceRecordingSubscription(userId: user).channel, DeviceRecordingOutput(eventType: "device/recordingStateChanged", timestamp: now, thingName: tag)),
            try pair(DeviceFirmwareSubscription(userId: user).channel, DeviceFirmwareOutput(eventType: "device/firmwareUpdated", timestamp: now, thingName: tag, fwUpdateState: 2)),
            try pair(ArchiveStateEventsSubscription(userId: user).channel, ArchiveStateOutput(eventType: "archive/stateChanged", timestamp: now, thingName: tag, status: .completed)),
            try pair(LicensePhaseSubscription(userId: user).channel, LicenseStateOutput(eventType: "organization/licensePhaseChanged", timestamp: now, orgId: tag, licensePhase: .valid)),
            try pair(PlanTypeSubscription(userId: user).channel, PlanStateOutput(eventType: "organization/planChanged", timestamp: now, orgId: tag, isFreePlan: true)),
            try pair(AISettingsSubscription(userId: user).channel, AISettingsOutput(eventType: "organization/aiSettingsChanged", timestamp: now, orgId: tag)),
            try pair(RoleChangeEventsSubscription(userId: user).channel, RoleChangeOutput(eventType: "user/roleChanged", timestamp: now, reason: tag)),
            try pair(UserTokenRevokeEventsSubscription(userId: user).channel, UserTokenRevokeOutput(eventType: "user/tokenRevoked", timestamp: now, userId: user, revokedAt: now, reason: .passwordChanged, requestId: tag)),
        ]
    }

    /// Nine collectors, one per notifier method, each reducing its events to their tag.
    struct Nine {
        let all: [Collected<String>]

        init(_ notifier: BackendNotifier) {
            all = [
                Collected { await notifier.devicePresenceValues().tags { $0.thingName } },
                Collected { await notifier.deviceRecordingValues().tags { $0.thingName } },
                Collected { await notifier.deviceFirmwareValues().tags { $0.thingName } },
                Collected { await notifier.archiveValues().tags { $0.thingName } },
                Collected { await notifier.licenseValues().tags { $0.orgId } },
                Collected { await notifier.planValues().tags { $0.orgId } },
                Collected { await notifier.aiSettingsValues().tags { $0.orgId } },
                Collected { await notifier.roleValues().tags { $0.reason } },
                Collected { await notifier.revokeValues().tags { $0.requestId } },
            ]
        }

        func cancel() { all.forEach { $0.cancel() } }

        /// Returns once each of the nine streams has received an event (each collector awaited in
        /// turn: an await, not a poll).
        func untilEachReceived(_ what: String, within seconds: Double = 120) async throws {
            for collector in all { try await collector.wait(what, within: seconds) { !$0.isEmpty } }
        }
    }

    func publishAll(_ stack: Stack, user: String, tag: String) async throws {
        for (channel, event) in try samples(user: user, tag: tag) {
            let result = try await stack.publisher.publish([event], to: channel)
            #expect(result.failed.isEmpty)
        }
    }

    @Test func theEmulatorsActivityFollowsConnectionsAndEndsWhenItStops() async throws {
        let stack = try await Stack.start()
        let updates = stack.emulator.activityUpdates()
        var iterator = updates.makeAsyncIterator()
        #expect(await iterator.next() == EmulatorActivity())  // the activity now comes first
        let nine = Nine(stack.notifier)
        await stack.connection.start()
        try await stack.emulator.untilActivity("nine subscriptions") { $0.connections == 1 && $0.subscriptions == 9 }
        await stack.connection.disconnect()
        try await stack.emulator.untilActivity("the close") { $0.connections == 0 && $0.subscriptions == 0 && $0.connectionsAccepted == 1 }
        nine.cancel()
        await stack.emulator.stop()
        let ended = try await awaiting("the activity stream's end") {
            for await _ in updates {}
            return true
        }
        #expect(ended)
    }

    @Test func nineStreamsEachReceiveOnlyTheirOwnEvents() async throws {
        let stack = try await Stack.start()
        let nine = Nine(stack.notifier)
        await stack.connection.start()
        try await untilPublished(by: stack.connection, "nine subscriptions") { await stack.connection.acknowledgedChannels.count == 9 }
        #expect(await stack.emulator.connectionsAccepted == 1)  // one WebSocket for all nine

        try await publishAll(stack, user: "alice", tag: "first")
        try await nine.untilEachReceived("nine events")
        for collector in nine.all { #expect(collector.elements == ["first"]) }
        let metrics = stack.connection.metrics.snapshot()
        #expect(metrics.channels.values.map(\.decoded).reduce(0, +) == 9)
        #expect(metrics.channels.values.map(\.dropped).reduce(0, +) == 0)
        nine.cancel()
        await stack.stop()
    }

    @Test func aUserCannotReceiveAnotherUsersEvents() async throws {
        // Mallory holds a valid token for herself but points her client at Alice's channels.
        let stack = try await Stack.start(user: "alice", authorization: { emulator in
            .token { try await emulator.token(forUser: "mallory") }
        })
        let nine = Nine(stack.notifier)
        await stack.connection.start()
        try await waitFor("nine rejected subscribes") { stack.connection.metrics.snapshot().subscribeErrors == 9 }
        #expect(await stack.connection.acknowledgedChannels.isEmpty)
        #expect(await stack.emulator.subscriptionCount == 0)

        try await publishAll(stack, user: "alice", tag: "secret")
        // Prove delivery works on this connection: a channel Mallory may read gets its event…
        let raw = try await stack.connection.subscribe(to: "vortex-app/user/mallory/roleChanged")
        let own = Collected { raw.events }
        try await untilPublished(by: stack.connection, "mallory's own subscription") { await stack.connection.acknowledgedChannels == ["vortex-app/user/mallory/roleChanged"] }
        _ = try await stack.publisher.publish([#"{"eventType":"user/roleChanged","timestamp":"2025-01-26T12:00:00Z"}"#], to: "vortex-app/user/mallory/roleChanged")
        try await own.wait("mallory's own event") { $0.count == 1 }
        // …and nothing of Alice's arrived.
        for collector in nine.all { #expect(collector.elements.isEmpty) }
        own.cancel()
        nine.cancel()
        await stack.stop()
    }

    @Test func abnormalDropReconnectsResubscribesAndResumes() async throws {
        let stack = try await Stack.start()
        let states = Collected { await stack.connection.stateUpdates() }
        let nine = Nine(stack.notifier)
        await stack.connection.start()
        try await untilPublished(by: stack.connection, "nine subscriptions") { await stack.connection.acknowledgedChannels.count == 9 }

        await stack.emulator.dropConnections()
        try await stack.emulator.untilActivity("the reconnect") { $0.connectionsAccepted == 2 }
        try await untilPublished(by: stack.connection, "nine resubscriptions") { await stack.connection.acknowledgedChannels.count == 9 }
        #expect(await stack.emulator.subscriptionCount == 9)
        #expect(states.elements.contains(.reconnecting(after: .milliseconds(100), because: .dropped)))
        #expect(stack.connection.metrics.snapshot().reconnects == 1)

        try await publishAll(stack, user: "alice", tag: "after-drop")
        try await nine.untilEachReceived("nine events after the drop")
        for collector in nine.all { #expect(collector.elements == ["after-drop"]) }
        nine.cancel()
        states.cancel()
        await stack.stop()
    }

    @Test func appDisconnectDoesNotReconnect() async throws {
        let stack = try await Stack.start()
        await stack.connection.start()
        try await untilPublished(by: stack.connection, "connected") { await stack.connection.state == .connected }
        await stack.connection.disconnect()
        try await stack.emulator.untilActivity("the server sees the close") { $0.connections == 0 }
        // Ten times the reconnect delay passes: still one connection ever.
        try await Task.sleep(for: .seconds(1))
        #expect(await stack.emulator.connectionsAccepted == 1)
        #expect(await stack.connection.state == .disconnected)
        await stack.emulator.stop()
    }

    @Test func silenceBeyondConnectionTimeoutTriggersAReconnect() async throws {
        let stack = try await Stack.start(emulatorConfiguration: {
            $0.keepAliveInterval = .milliseconds(100)
            $0.connectionTimeoutMs = 600
        })
        let nine = Nine(stack.notifier)
        await stack.connection.start()
        try await untilPublished(by: stack.connection, "nine subscriptions") { await stack.connection.acknowledgedChannels.count == 9 }
        await stack.emulator.setKeepAliveEnabled(false)
        try await waitFor("the watchdog reconnects") { stack.connection.metrics.snapshot().keepAliveTimeouts >= 1 }
        await stack.emulator.setKeepAliveEnabled(true)
        try await stack.emulator.untilActivity("a new connection") { $0.connectionsAccepted >= 2 }
        // The 1 s watchdog may fire once more on a starved machine, and what is published while the
        // client reconnects is gone (AppSync keeps no history): publish again until the events flow.
        for attempt in 1...6 {
            try await untilPublished(by: stack.connection, "nine resubscriptions") { await stack.connection.acknowledgedChannels.count == 9 }
            try await publishAll(stack, user: "alice", tag: "after-silence")
            do {
                try await nine.untilEachReceived("nine events", within: attempt == 6 ? 120 : 5)
                break
            } catch where attempt < 6 {
                continue
            }
        }
        #expect(nine.all.allSatisfy { $0.elements.allSatisfy { $0 == "after-silence" } })
        nine.cancel()
        await stack.stop()
    }

    @Test func tenThousandEventsOnOneConnectionArriveCompleteAndInOrder() async throws {
        let stack = try await Stack.start()
        let presence = Collected { await stack.notifier.devicePresenceValues().tags { $0.thingName } }
        let recording = Collected { await stack.notifier.deviceRecordingValues().tags { $0.thingName } }
        await stack.connection.start()
        try await untilPublished(by: stack.connection, "two subscriptions") { await stack.connection.acknowledgedChannels.count == 2 }

        // A second connection publishes over the WebSocket, five events per publish.
        var publishing = AppSyncConfiguration(endpoint: stack.endpoint, authorization: .apiKey(Stack.publisherKey))
        publishing.allowForLoadedMachines()
        let publisher = AppSyncConnection(configuration: publishing)
        await publisher.start()
        try await untilPublished(by: publisher, "the publisher's connection") { await publisher.state == .connected }
        let presenceChannel = try DevicePresenceSubscription(userId: "alice").channel
        let recordingChannel = try DeviceRecordingSubscription(userId: "alice").channel
        for batch in stride(from: 0, to: 5_000, by: 5) {
            let presenceEvents = try (batch..<batch + 5).map { try json(DevicePresenceOutput(eventType: "device/presenceChanged", timestamp: now, thingName: "\($0)")) }
            let recordingEvents = try (batch..<batch + 5).map { try json(DeviceRecordingOutput(eventType: "device/recordingStateChanged", timestamp: now, thingName: "\($0)")) }
            #expect(try await publisher.publish(presenceEvents, to: presenceChannel).successful.count == 5)
            #expect(try await publisher.publish(recordingEvents, to: recordingChannel).successful.count == 5)
        }
        try await presence.wait("5 000 presence events") { $0.count >= 5_000 }
        try await recording.wait("5 000 recording events") { $0.count >= 5_000 }
        let expected = (0..<5_000).map(String.init)
        #expect(presence.elements == expected)
        #expect(recording.elements == expected)
        #expect(stack.connection.metrics.snapshot().channels[presenceChannel]?.dropped == 0)
        presence.cancel()
        recording.cancel()
        await publisher.disconnect()
        await stack.stop()
    }

    @Test func aReconnectUsesTheRotatedToken() async throws {
        let generation = TokenGeneration()
        let stack = try await Stack.start(authorization: { emulator in
            .token {
                // Each call mints a token; distinct lifetimes make each one distinguishable.
                try await emulator.token(forUser: "alice", lifetime: 3600 + Double(generation.next()))
            }
        })
        await stack.connection.start()
        try await untilPublished(by: stack.connection, "connected") { await stack.connection.state == .connected }
        let first = try #require(await stack.emulator.connectAuthorizations.first)
        await stack.emulator.dropConnections()
        try await stack.emulator.untilActivity("the reconnect") { $0.connectAuthorizations == 2 }
        let second = await stack.emulator.connectAuthorizations[1]
        #expect(second != first)
        try await untilPublished(by: stack.connection, "connected again") { await stack.connection.state == .connected }
        await stack.stop()
    }

    @Test func rejectedConnectsAreRetried() async throws {
        let stack = try await Stack.start()
        await stack.emulator.rejectNextConnects(2)
        await stack.connection.start()
        try await untilPublished(by: stack.connection, "connected after two refusals") { await stack.connection.state == .connected }
        #expect(await stack.emulator.connectionsAccepted == 1)
        await stack.stop()
    }

    /// Issue 62: with a wrong API key the connection failed, but every subscription's status stayed
    /// `.subscribing` for ever. Each now ends `.failed` with the service's Unauthorized error,
    /// awaited on its own status stream.
    @Test func badCredentialsEndInTheFailedStateForTheConnectionAndEverySubscription() async throws {
        let stack = try await Stack.start(authorization: { _ in .apiKey("da2-wrong") })
        let hub = try #require(stack.notifier.source as? ChannelEventHub)
        let presence = await stack.notifier.devicePresenceValues()
        let licenses = await stack.notifier.licenseValues()
        let statuses = [await hub.statusUpdates(for: DevicePresenceSubscription.self), await hub.statusUpdates(for: LicensePhaseSubscription.self)]
        await stack.connection.start()
        for updates in statuses {
            let failure = try await awaiting("the subscription's failure") { () -> [ServiceError]? in
                for await status in updates { if case .failed(let errors) = status { return errors } }
                return nil
            }
            #expect(failure?.first?.errorType == "UnauthorizedException", "\(String(describing: failure))")
        }
        guard case .failed(.unauthorized) = await stack.connection.state else {
            Issue.record("connection: \(await stack.connection.state)")
            return
        }
        withExtendedLifetime((presence, licenses)) {}
        await stack.stop()
    }
}

final class TokenGeneration: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func next() -> Int { lock.withLock { value += 1; return value } }
}

extension AsyncStream where Element: Sendable {
    /// The stream mapped to a tag string per event (events without a tag are skipped).
    func tags(_ tag: @escaping @Sendable (Element) -> String?) -> AsyncStream<String> {
        AsyncStream<String> { continuation in
            let task = Task {
                for await element in self { if let value = tag(element) { continuation.yield(value) } }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
