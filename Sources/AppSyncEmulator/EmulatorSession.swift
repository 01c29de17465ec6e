#if Emulator
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOWebSocket

/// One client WebSocket: the AppSync Events protocol from the server side.
struct EmulatorSession: Sendable {
    let configuration: EmulatorConfiguration
    let broker: EmulatorBroker
    let authorizer: EmulatorAuthorizer
    let publishing: PublishHandling
    let host: String
    let logger: Logger

    /// Runs until the client goes away. `identity` is nil when the connect credentials were rejected:
    /// like AppSync, the upgrade succeeds, a `connection_error` follows and the server closes.
    func run(identity: Identity?, socket: NIOAsyncChannel<WebSocketFrame, WebSocketFrame>) async {
        let channel = socket.channel
        // Set once a close frame is sent (the server's, or its answer to the client's): one per connection.
        let closing = NIOLockedValueBox(false)
        // The close frame the server sends when its outbox ends: normal, unless a fault says otherwise.
        let closeWith = NIOLockedValueBox((code: WebSocketErrorCode.normalClosure, reason: ""))
        // A frozen connection reads and answers nothing, writes nothing: a dead path to the client.
        let frozen = NIOLockedValueBox(false)
        try? await socket.executeThenClose { inbound, outbound in
            let (outbox, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .unbounded)
            // One writer per connection keeps messages in order; when the outbox ends (the
            // credentials were rejected), the server closes.
            let writer = Task {
                for await text in outbox {
                    if frozen.withLockedValue({ $0 }) { continue }
                    do { try await outbound.write(WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: text))) } catch { return }
                }
                guard Self.takeClose(closing) else { return }
                let (code, reason) = closeWith.withLockedValue { $0 }
                try? await outbound.write(Self.closeFrame(code, reason: reason))
                Self.closeLater(channel)
            }
            var keepAlive: Task<Void, Never>?
            var id: Int?
            if let identity {
                let registered = await broker.register(
                    outbox: continuation, channel: channel, identity: identity,
                    close: { code, reason in
                        closeWith.withLockedValue { $0 = (WebSocketErrorCode(codeNumber: code), reason) }
                        continuation.finish()
                    },
                    freeze: { frozen.withLockedValue { $0 = true } })
                id = registered
                keepAlive = Task {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: configuration.keepAliveInterval)
                        if !Task.isCancelled, await broker.keepAliveEnabled { continuation.yield(ProtocolMessages.keepAlive) }
                    }
                }
            } else {
                continuation.yield(ProtocolMessages.connectionError([
                    ProtocolMessages.error("UnauthorizedException", "You are not authorized to make this call.", code: 401)
                ]))
                continuation.finish()
            }
            do {
                reading: for try await frame in inbound {
                    if frozen.withLockedValue({ $0 }) { continue }
                    switch frame.opcode {
                    case .text:
                        if let id { await handle(String(buffer: frame.unmaskedData), connection: id) }
                    case .ping:
                        await broker.countPing()
                        try await outbound.write(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData))
                    case .connectionClose:
                        // The client closes (or answers the server's close): answer with its code and end.
                        var data = frame.unmaskedData
                        let code = data.readWebSocketErrorCode() ?? .normalClosure
                        if Self.takeClose(closing) { try? await outbound.write(Self.closeFrame(code)) }
                        break reading
                    default:
                        continue
                    }
                }
            } catch {
                logger.debug("connection ended", metadata: ["error": "\(error)"])
            }
            keepAlive?.cancel()
            if let id { await broker.unregister(id) }
            writer.cancel()
        }
    }

    /// Whether this side may send the connection's one close frame (and now has).
    private static func takeClose(_ closing: NIOLockedValueBox<Bool>) -> Bool {
        closing.withLockedValue { sent in
            defer { sent = true }
            return !sent
        }
    }

    private static func closeFrame(_ code: WebSocketErrorCode, reason: String = "") -> WebSocketFrame {
        var data = ByteBuffer()
        data.write(webSocketErrorCode: code)
        data.writeString(reason)
        return WebSocketFrame(fin: true, opcode: .connectionClose, data: data)
    }

    /// After the server's close frame the client has a moment to answer before the socket closes.
    private static func closeLater(_ channel: any Channel) {
        channel.eventLoop.scheduleTask(in: .seconds(5)) { channel.close(promise: nil) }
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
