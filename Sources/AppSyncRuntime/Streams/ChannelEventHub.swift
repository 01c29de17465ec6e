import ChannelRuntime
import Foundation
import Logging
import NIOConcurrencyHelpers

/// Typed streams over one `AppSyncConnection`: the `ChannelEventSource` generated notifiers use.
///
/// Consumers of one subscription type share one channel subscription: it is subscribed when the
/// first consumer arrives and unsubscribed when the last one stops. Each event is decoded once and
/// delivered to every consumer. A payload that does not decode, or that names another `eventType`,
/// is logged, counted and dropped. Changing a parameter (the user id) moves every open stream to
/// the new channels without ending it.
public actor ChannelEventHub: ChannelEventSource {
    /// The connection the subscriptions run on.
    public nonisolated let connection: AppSyncConnection
    private var parameters: [String: ChannelSegment]
    private var entries: [String: any HubEntry] = [:]
    private let logger: Logger

    /// A hub serving typed streams from `connection`.
    public init(
        connection: AppSyncConnection,
        parameters: [String: ChannelSegment] = [:],
        logger: Logger = Logger(label: "AppSyncRuntime.ChannelEventHub")
    ) {
        self.connection = connection
        self.parameters = parameters
        self.logger = logger
    }

    /// The typed events of `subscription` for the current parameters; consumers of one channel share one AppSync subscription, and the stream stays open across reconnects and parameter changes.
    public func events<Subscription: ChannelSubscription>(_ subscription: Subscription.Type) async -> AsyncStream<Subscription.Event> {
        let key = Subscription.template.address
        let entry: Entry<Subscription>
        var isNew = false
        if let existing = entries[key] as? Entry<Subscription> {
            entry = existing
        } else {
            entry = Entry<Subscription>(metrics: connection.metrics, logger: logger)
            entries[key] = entry
            isNew = true
        }
        let (stream, continuation) = AsyncStream.makeStream(of: Subscription.Event.self, bufferingPolicy: .unbounded)
        let consumer = entry.add(continuation)
        continuation.onTermination = { _ in Task { await self.removeConsumer(consumer, from: key) } }
        if isNew { await route(entry) }
        return stream
    }

    /// Sets a channel parameter; every open stream moves to the channels the new value names.
    public func setParameter(_ name: String, to value: ChannelSegment) async {
        guard parameters[name] != value else { return }
        parameters[name] = value
        for key in entries.keys.sorted() {
            if let entry = entries[key] { await route(entry) }
        }
    }

    /// The current value of a parameter.
    public func parameter(_ name: String) -> ChannelSegment? { parameters[name] }

    /// Points `entry` at the channel its parameters name now (subscribing anew when it changed).
    private func route(_ entry: any HubEntry) async {
        let channel: String
        do {
            channel = try entry.channel(for: parameters)
        } catch {
            logger.debug("stream waits for its channel parameters", metadata: ["reason": "\(error)"])
            if let old = entry.stopPump() { await connection.unsubscribe(old) }
            return
        }
        guard entry.currentChannel != channel else { return }
        if let old = entry.stopPump() { await connection.unsubscribe(old) }
        let raw: AppSyncConnection.RawSubscription
        do {
            raw = try await connection.subscribe(to: channel)
        } catch {
            logger.error("cannot subscribe", metadata: ["channel": "\(channel)", "error": "\(error)"])
            return
        }
        // Parameters may have changed, or the last consumer left, while subscribing.
        guard entries.values.contains(where: { $0 === entry }), (try? entry.channel(for: parameters)) == channel else {
            await connection.unsubscribe(raw.id)
            return
        }
        if let replaced = entry.startPump(raw) { await connection.unsubscribe(replaced) }
    }

    private func removeConsumer(_ consumer: Int, from key: String) async {
        guard let entry = entries[key], entry.remove(consumer) else { return }
        // The last consumer stopped.
        entries[key] = nil
        if let old = entry.stopPump() { await connection.unsubscribe(old) }
    }
}

/// The shared state of one subscription type, touched by the hub (routing) and by the pump task
/// (decoding and delivery); a lock keeps the consumer list and pump consistent.
protocol HubEntry: AnyObject, Sendable {
    var currentChannel: String? { get }
    func channel(for parameters: [String: ChannelSegment]) throws -> String
    /// Starts delivering `raw`; returns the id of a subscription it replaced, if any.
    func startPump(_ raw: AppSyncConnection.RawSubscription) -> String?
    /// Stops delivering; returns the id of the subscription to unsubscribe, if any.
    func stopPump() -> String?
    /// Removes a consumer; true when it was the last one.
    func remove(_ consumer: Int) -> Bool
}

final class Entry<Subscription: ChannelSubscription>: HubEntry {
    private struct State {
        var consumers: [Int: AsyncStream<Subscription.Event>.Continuation] = [:]
        var nextConsumer = 0
        var channel: String?
        var subscriptionID: String?
        var pump: Task<Void, Never>?
    }

    private let state = NIOLockedValueBox(State())
    private let metrics: RuntimeMetrics
    private let logger: Logger

    init(metrics: RuntimeMetrics, logger: Logger) {
        self.metrics = metrics
        self.logger = logger
    }

    var currentChannel: String? { state.withLockedValue { $0.channel } }

    func channel(for parameters: [String: ChannelSegment]) throws -> String {
        try Subscription(parameters: parameters).channel
    }

    func add(_ continuation: AsyncStream<Subscription.Event>.Continuation) -> Int {
        state.withLockedValue { state in
            state.nextConsumer += 1
            state.consumers[state.nextConsumer] = continuation
            return state.nextConsumer
        }
    }

    func remove(_ consumer: Int) -> Bool {
        state.withLockedValue { state in
            state.consumers[consumer] = nil
            return state.consumers.isEmpty
        }
    }

    func startPump(_ raw: AppSyncConnection.RawSubscription) -> String? {
        let channel = raw.channel
        let pump = Task.detached { [self] in
            let decoder = JSONDecoder()
            for await text in raw.events {
                guard let event = decode(text, channel: channel, decoder: decoder) else { continue }
                let consumers = state.withLockedValue { Array($0.consumers.values) }
                for consumer in consumers { consumer.yield(event) }
            }
        }
        let replaced = state.withLockedValue { state -> (Task<Void, Never>?, String?) in
            defer {
                state.channel = channel
                state.subscriptionID = raw.id
                state.pump = pump
            }
            return (state.pump, state.subscriptionID)
        }
        replaced.0?.cancel()
        return replaced.1
    }

    func stopPump() -> String? {
        let stopped = state.withLockedValue { state -> (Task<Void, Never>?, String?) in
            defer {
                state.pump = nil
                state.channel = nil
                state.subscriptionID = nil
            }
            return (state.pump, state.subscriptionID)
        }
        stopped.0?.cancel()
        return stopped.1
    }

    private func decode(_ text: String, channel: String, decoder: JSONDecoder) -> Subscription.Event? {
        let event: Subscription.Event
        do {
            event = try decoder.decode(Subscription.Event.self, from: Data(text.utf8))
        } catch {
            metrics.channel(channel) { $0.dropped += 1 }
            logger.error("dropping an event that does not decode", metadata: [
                "channel": "\(channel)", "type": "\(Subscription.Event.self)", "error": "\(error)",
            ])
            return nil
        }
        if let expected = Subscription.eventType, let reported = (event as? any EventTypeReporting)?.eventType, reported != expected {
            metrics.channel(channel) { $0.dropped += 1 }
            logger.error("dropping an event with another eventType", metadata: [
                "channel": "\(channel)", "expected": "\(expected)", "eventType": "\(reported)",
            ])
            return nil
        }
        metrics.channel(channel) { $0.decoded += 1 }
        return event
    }
}
