#if Emulator
import Foundation
import HummingbirdWebSocket
import Logging
import NIOCore

/// One client WebSocket: the AppSync Events protocol from the server side.
struct EmulatorSession: Sendable {
    let configuration: EmulatorConfiguration
    let broker: EmulatorBroker
    let authorizer: EmulatorAuthorizer
    let publishing: PublishHandling
    let host: String
    let logger: Logger

    /// Runs until the client goes away. `identity` is nil when the connect credentials were rejected:
    /// like AppSync, the upgrade succeeds and a `connection_error` follows.
    func run(identity: Identity?, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, channel: any Channel) async {
        let (outbox, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .unbounded)
        // One writer per connection keeps messages in order.
        let writer = Task {
            for await text in outbox {
                do { try await outbound.write(.text(text)) } catch { break }
            }
        }
        guard identity != nil else {
            continuation.yield(ProtocolMessages.connectionError([
                ProtocolMessages.error("UnauthorizedException", "You are not authorized to make this call.", code: 401)
            ]))
            continuation.finish()
            await writer.value
            return
        }
        let id = await broker.register(outbox: continuation, channel: channel)
        let keepAlive = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: configuration.keepAliveInterval)
                if !Task.isCancelled, await broker.keepAliveEnabled { continuation.yield(ProtocolMessages.keepAlive) }
            }
        }
        do {
            for try await message in inbound.messages(maxSize: 1 << 22) {
                guard case .text(let text) = message else { continue }
                await handle(text, connection: id)
            }
        } catch {
            logger.debug("connection ended", metadata: ["error": "\(error)"])
        }
        keepAlive.cancel()
        await broker.unregister(id)
        writer.cancel()
    }

    private func handle(_ text: String, connection: Int) async {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any], let type = object["type"] as? String else {
            await broker.send(ProtocolMessages.error(id: nil, [ProtocolMessages.error("InvalidInputError", "Invalid input")]), to: connection)
            return
        }
        let id = object["id"] as? String
        switch type {
        case "connection_init":
            await delayAcknowledgement()
            await broker.send(ProtocolMessages.connectionAck(timeoutMs: configuration.connectionTimeoutMs), to: connection)
        case "subscribe":
            await subscribe(object, id: id, connection: connection)
        case "unsubscribe":
            guard let id else { return }
            if await broker.unsubscribe(connection, id: id) {
                await broker.send(ProtocolMessages.unsubscribeSuccess(id: id), to: connection)
            } else {
                await broker.send(ProtocolMessages.unsubscribeError(id: id, [ProtocolMessages.error("UnknownOperationError", "Unknown operation id \(id)")]), to: connection)
            }
        case "publish":
            guard let id, Self.isValidID(id) else {
                await broker.send(ProtocolMessages.error(id: id, [ProtocolMessages.error("InvalidInputError", "Invalid operation id")]), to: connection)
                return
            }
            let identity = await authorizer.identity(authorization(object))
            switch await publishing.publish(channelText: object["channel"] as? String, events: object["events"], identity: identity) {
            case .success(let result): await broker.send(ProtocolMessages.publishSuccess(id: id, result), to: connection)
            case .failure(let rejection): await broker.send(ProtocolMessages.publishError(id: id, rejection.errors), to: connection)
            }
        default:
            await broker.send(ProtocolMessages.error(id: id, [ProtocolMessages.error("UnsupportedOperation", "WebSocket did not understand the operation")]), to: connection)
        }
    }

    private func subscribe(_ object: [String: Any], id: String?, connection: Int) async {
        guard let id, Self.isValidID(id) else {
            await broker.send(ProtocolMessages.error(id: id, [ProtocolMessages.error("InvalidInputError", "Invalid subscription id")]), to: connection)
            return
        }
        func reject(_ type: String, _ message: String) async {
            await broker.send(ProtocolMessages.subscribeError(id: id, [ProtocolMessages.error(type, message)]), to: connection)
        }
        let headers = authorization(object)
        guard headers["host"] == nil || headers["host"] == host, let identity = await authorizer.identity(headers) else {
            await reject("UnauthorizedException", "You are not authorized to make this call.")
            return
        }
        let path: ChannelPath
        do {
            path = try ChannelPath(object["channel"] as? String ?? "", allowWildcard: true, namespaces: configuration.namespaces)
        } catch .unknownNamespace(let namespace) {
            await reject("ResourceNotFound", "Namespace not found: \(namespace)")
            return
        } catch {
            await reject("InvalidInputError", "Invalid channel")
            return
        }
        guard identity.mayUse(path) else {
            await reject("Unauthorized", "You are not authorized to subscribe to this channel.")
            return
        }
        switch await broker.subscribe(connection, id: id, to: path, limit: configuration.maximumSubscriptionsPerConnection) {
        case .subscribed:
            await delayAcknowledgement()
            await broker.send(ProtocolMessages.subscribeSuccess(id: id), to: connection)
        case .duplicateID:
            await reject("DuplicatedOperationError", "Duplicated operation id \(id)")
        case .limitReached:
            await reject("MaxSubscriptionsReachedError", "Max number of \(configuration.maximumSubscriptionsPerConnection) subscriptions reached")
        }
    }

    private func authorization(_ object: [String: Any]) -> [String: String] {
        object["authorization"] as? [String: String] ?? [:]
    }

    private func delayAcknowledgement() async {
        let delay = await broker.acknowledgementDelay
        if delay > .zero { try? await Task.sleep(for: delay) }
    }

    /// Operation ids: 1–128 characters of `[a-zA-Z0-9-_+]`.
    static func isValidID(_ id: String) -> Bool {
        (1...128).contains(id.utf8.count) && id.unicodeScalars.allSatisfy { scalar in
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", "-", "_", "+": return true
            default: return false
            }
        }
    }
}
#endif
