// Compiled with the Emulator trait (on by default); without it this module is empty.
#if Emulator
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

extension HTTPRequestHead {
    /// The path without the query.
    var path: String { String(uri.prefix { $0 != "?" }) }
}

/// One HTTP request, its body read whole (up to `EmulatorListener.maximumBodyBytes`); its header
/// fields and query read once.
struct EmulatorRequest: Sendable {
    let head: HTTPRequestHead
    let body: ByteBuffer
    /// Header fields by lowercased name; of two with the same name, the first.
    let headerFields: [String: String]
    /// The query's parameters, percent-decoded, in order.
    private let query: [URLQueryItem]

    init(head: HTTPRequestHead, body: ByteBuffer) {
        self.head = head
        self.body = body
        headerFields = Dictionary(head.headers.map { ($0.name.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        query = URLComponents(string: head.uri)?.queryItems ?? []
    }

    var method: HTTPMethod { head.method }
    var path: String { head.path }

    /// The values of query parameter `name`, in order.
    func queryValues(_ name: String) -> [String] {
        query.filter { $0.name == name }.compactMap(\.value)
    }
}

/// What the emulator answers a request with.
enum EmulatorResponse: Sendable {
    /// A whole response.
    case complete(HTTPResponseStatus, headers: [(String, String)], body: String)
    /// A body streamed in chunks (Server-Sent Events): the response ends when `body` returns, and the
    /// connection drops without ending it when `body` throws.
    case stream(headers: [(String, String)], body: @Sendable (EventStreamWriter) async throws -> Void)

    static func plain(_ status: HTTPResponseStatus, _ message: String) -> Self {
        .complete(status, headers: [("Content-Type", "text/plain")], body: message)
    }
}

/// Writes the chunks of a streamed response; knows when the client has gone.
struct EventStreamWriter: Sendable {
    fileprivate let outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>
    /// Completes when the connection closes (the client went away, or a drop).
    let closed: EventLoopFuture<Void>

    func write(_ text: String) async throws {
        try await outbound.write(.body(.byteBuffer(ByteBuffer(string: text))))
    }
}

/// The emulator's listener on 127.0.0.1, on SwiftNIO alone (no server framework, so the package's
/// platform floor stays the runtime's): HTTP/1.1 with keep-alive, each request answered by
/// `respond`, and WebSocket upgrades that `upgrade` accepts, each connection run by the closure it
/// returns. Stopping closes the listening socket and every connection.
final class EmulatorListener: Sendable {
    typealias Responder = @Sendable (EmulatorRequest) async -> EmulatorResponse
    typealias WebSocketRun = @Sendable (NIOAsyncChannel<WebSocketFrame, WebSocketFrame>) async -> Void
    /// An upgrade's response headers and what runs the connection; `nil` refuses it (400).
    typealias Upgrade = @Sendable (HTTPRequestHead) async -> (headers: HTTPHeaders, run: WebSocketRun)?

    /// Request bodies larger than this get 413.
    static let maximumBodyBytes = 8 << 20
    /// The largest WebSocket message (fragments joined).
    static let maximumMessageBytes = 1 << 22

    private enum Negotiated: Sendable {
        case webSocket(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>, WebSocketRun)
        case http(NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>)
        /// `upgrade` said no; the request was read by the upgrade handler.
        case refusedUpgrade(NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>)
    }

    /// A connection as accepted: its channel, and what its first request makes of it.
    private struct Accepted: Sendable {
        let channel: any Channel
        let negotiated: EventLoopFuture<Negotiated>
    }

    private let server: NIOAsyncChannel<Accepted, Never>
    private let connections = NIOLockedValueBox<(next: Int, tasks: [Int: Task<Void, Never>])>((0, [:]))
    private let acceptor = NIOLockedValueBox<Task<Void, Never>?>(nil)

    var port: Int { server.channel.localAddress?.port ?? 0 }

    /// Binds 127.0.0.1:`port` (0: a free port chosen by the OS) and starts accepting. A request
    /// head that has not arrived `requestTimeout` after the connection opened, or after the answer
    /// before it, or a body that pauses longer than that, closes the connection.
    init(port: Int, requestTimeout: Duration, respond: @escaping Responder, upgrade: @escaping Upgrade) async throws {
        let timeout = TimeAmount(requestTimeout)
        server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let negotiated = try Self.configure(channel, upgrade: upgrade)
                    // The first request's head; `serveHTTP` then times each request whole.
                    let deadline = Self.closing(channel, after: timeout)
                    negotiated.whenComplete { _ in deadline.cancel() }
                    return Accepted(channel: channel, negotiated: negotiated)
                }
            }
        let task = Task { [server, connections] in
            _ = try? await server.executeThenClose { inbound in
                for try await accepted in inbound {
                    connections.withLockedValue { state in
                        state.next += 1
                        let id = state.next
                        state.tasks[id] = Task {
                            // Stopping closes the connection, whatever it waits for (also a first
                            // request that never comes, which no cancellation would end).
                            await withTaskCancellationHandler {
                                await Self.serve(accepted.negotiated, requestTimeout: timeout, respond: respond)
                            } onCancel: {
                                accepted.channel.close(promise: nil)
                            }
                            connections.withLockedValue { state in state.tasks[id] = nil }
                        }
                    }
                }
            }
        }
        acceptor.withLockedValue { $0 = task }
    }

    /// Closes the listening socket and every connection, and waits for them to end.
    func stop() async {
        let task = acceptor.withLockedValue { $0 }
        task?.cancel()
        await task?.value
        let open = connections.withLockedValue { Array($0.tasks.values) }
        for connection in open { connection.cancel() }
        for connection in open { await connection.value }
    }

    /// HTTP/1.1, upgraded to a WebSocket when the request asks and `upgrade` agrees.
    private static func configure(_ channel: any Channel, upgrade: @escaping Upgrade) throws -> EventLoopFuture<Negotiated> {
        // What `upgrade` decided, from the upgrade's check to the new pipeline (same connection),
        // and whether it was asked at all.
        let decided = NIOLockedValueBox<WebSocketRun?>(nil)
        let attempted = NIOLockedValueBox(false)
        let webSocket = NIOTypedWebSocketServerUpgrader<Negotiated>(
            maxFrameSize: maximumMessageBytes,
            shouldUpgrade: { channel, head in
                attempted.withLockedValue { $0 = true }
                return channel.eventLoop.makeFutureWithTask {
                    guard let accepted = await upgrade(head) else { return nil }
                    decided.withLockedValue { $0 = accepted.run }
                    return accepted.headers
                }
            },
            upgradePipelineHandler: { channel, _ in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        NIOWebSocketFrameAggregator(minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: .max, maxAccumulatedFrameSize: maximumMessageBytes))
                    let socket = try NIOAsyncChannel<WebSocketFrame, WebSocketFrame>(wrappingChannelSynchronously: channel)
                    let run: WebSocketRun = decided.withLockedValue { $0 } ?? { @Sendable _ in }
                    return .webSocket(socket, run)
                }
            }
        )
        let configuration = NIOTypedHTTPServerUpgradeConfiguration<Negotiated>(
            upgraders: [webSocket],
            notUpgradingCompletionHandler: { channel in
                channel.eventLoop.makeCompletedFuture {
                    let http = try NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>(wrappingChannelSynchronously: channel)
                    return attempted.withLockedValue { $0 } ? .refusedUpgrade(http) : .http(http)
                }
            }
        )
        return try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(
            configuration: .init(upgradeConfiguration: configuration))
    }

    private static func serve(_ negotiated: EventLoopFuture<Negotiated>, requestTimeout: TimeAmount, respond: Responder) async {
        switch try? await negotiated.get() {
        case .webSocket(let socket, let run): await run(socket)
        case .http(let http): try? await serveHTTP(http, requestTimeout: requestTimeout, respond: respond)
        case .refusedUpgrade(let http): try? await refuse(http)
        case nil: break
        }
    }

    /// A refused WebSocket upgrade: 400, and the connection closes.
    private static func refuse(_ http: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>) async throws {
        try await http.executeThenClose { _, outbound in
            try await writeWhole(.badRequest, headers: [], body: "", version: .http1_1, keepAlive: false, to: outbound)
        }
    }

    /// A whole response, its length given, and `Connection: close` when the connection ends after it.
    private static func writeWhole(
        _ status: HTTPResponseStatus, headers fields: [(String, String)], body text: String, version: HTTPVersion, keepAlive: Bool,
        to outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>
    ) async throws {
        var headers = HTTPHeaders(fields)
        headers.replaceOrAdd(name: "Content-Length", value: String(text.utf8.count))
        if !keepAlive { headers.replaceOrAdd(name: "Connection", value: "close") }
        try await outbound.write(.head(HTTPResponseHead(version: version, status: status, headers: headers)))
        if !text.isEmpty { try await outbound.write(.body(.byteBuffer(ByteBuffer(string: text)))) }
        try await outbound.write(.end(nil))
    }

    /// Closes `channel` after `timeout` unless cancelled first.
    private static func closing(_ channel: any Channel, after timeout: TimeAmount) -> Scheduled<Void> {
        channel.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
    }

    /// Requests one after another on one connection, until it closes or asks to. Each head must
    /// arrive within `requestTimeout` of the previous answer (an idle keep-alive connection closes
    /// after it), and a body may not pause longer than that.
    private static func serveHTTP(
        _ http: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, requestTimeout: TimeAmount, respond: Responder
    ) async throws {
        let closed = http.channel.closeFuture
        try await http.executeThenClose { inbound, outbound in
            var parts = inbound.makeAsyncIterator()
            while true {
                var deadline = closing(http.channel, after: requestTimeout)
                guard case .head(let head) = try await parts.next() else { return }
                var body = ByteBuffer()
                var tooLarge = false
                reading: while let part = try await parts.next() {
                    // The body may take as long as it keeps coming: each part restarts the time-out.
                    deadline.cancel()
                    deadline = closing(http.channel, after: requestTimeout)
                    switch part {
                    case .body(var chunk):
                        // Past the bound the answer is 413 at once and the connection closes: a
                        // body that never ends (chunked) is not read for ever.
                        guard body.readableBytes + chunk.readableBytes <= maximumBodyBytes else {
                            tooLarge = true
                            break reading
                        }
                        body.writeBuffer(&chunk)
                    case .end: break reading
                    case .head: return
                    }
                }
                deadline.cancel()
                let keepAlive = head.isKeepAlive && !tooLarge
                let response: EmulatorResponse =
                    if tooLarge { .plain(.payloadTooLarge, "request body too large") } else { await respond(EmulatorRequest(head: head, body: body)) }
                switch response {
                case .complete(let status, let fields, let text):
                    try await writeWhole(status, headers: fields, body: text, version: head.version, keepAlive: keepAlive, to: outbound)
                    if !keepAlive { return }
                case .stream(let fields, let write):
                    var headers = HTTPHeaders(fields)
                    headers.replaceOrAdd(name: "Connection", value: "close")
                    try await outbound.write(.head(HTTPResponseHead(version: head.version, status: .ok, headers: headers)))
                    try await write(EventStreamWriter(outbound: outbound, closed: closed))
                    try await outbound.write(.end(nil))
                    return
                }
            }
        }
    }
}
#endif
