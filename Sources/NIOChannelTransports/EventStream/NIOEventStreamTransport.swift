import ChannelTransports
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import ChannelRuntime
import NIOSSL

/// The `EventStreamTransport` on SwiftNIO, the default off Apple platforms: HTTP/1.1 (TLS for `https`), one connection per
/// stream, no redirects, no proxy.
///
/// The body is read no faster than it is consumed: at most `maximumBufferedBodyBytes` wait between
/// the socket and the body's reader (plus NIO's few read buffers and the kernel's socket buffer);
/// past that the socket is not read and TCP stops the server.
public struct NIOEventStreamTransport: EventStreamTransport {
    /// TLS for `https` URLs; the default verifies the server against the system's trust roots.
    public var tlsConfiguration: TLSConfiguration
    /// Upper bound for the TCP connect alone (the connection's `connectTimeout` bounds the whole open);
    /// when it runs out the attempt counts as timed out, as the connection's own limit does.
    public var socketConnectTimeout: Duration
    /// Body bytes read from the socket and not yet taken by the body's reader, at most (256 KiB).
    public var maximumBufferedBodyBytes: Int

    /// A transport; `tlsConfiguration` replaces the system trust roots for `https` servers.
    public init(
        tlsConfiguration: TLSConfiguration = .makeClientConfiguration(), socketConnectTimeout: Duration = .seconds(10),
        maximumBufferedBodyBytes: Int = 256 * 1024
    ) {
        self.tlsConfiguration = tlsConfiguration
        self.socketConnectTimeout = socketConnectTimeout
        self.maximumBufferedBodyBytes = maximumBufferedBodyBytes
    }

    public func open(_ url: URL, headers: [(name: String, value: String)], tasks: TransportTasks) async throws -> EventStreamResponse {
        guard let target = HTTPClientTarget(url) else { throw EventStreamTransportError.invalidURL(url.absoluteString) }
        let channel: NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>
        do {
            channel = try await target.connect(tlsConfiguration: tlsConfiguration, connectTimeout: socketConnectTimeout)
        } catch ChannelError.connectTimeout {
            throw TransportConnectTimedOut(limit: socketConnectTimeout)
        }
        // A connect the caller gave up on while it ran (its timeout fired) leaves no socket behind.
        if Task.isCancelled {
            try? await channel.channel.close()
            throw CancellationError()
        }

        let head = target.requestHead(.GET, headers: [("Accept", "text/event-stream"), ("Cache-Control", "no-cache")] + headers)

        let responseHead = channel.channel.eventLoop.makePromise(of: HTTPResponseHead.self)
        let handOff = BodyHandOff(capacity: maximumBufferedBodyBytes)
        let nioChannel = channel.channel
        // A child of the connection's root: the response outlives `open` (its body is read by the
        // connection's session reader); closing the response closes the socket, which ends it.
        let readerEnded = OneShot()
        do {
            _ = try tasks.run {
                await Self.read(channel, head: head, responseHead: responseHead, into: handOff)
                readerEnded.resolve(nil)
            }
        } catch {
            // The connection is ending: nothing reads the response (a promise left open traps).
            responseHead.fail(error)
            handOff.finish()
            try? await channel.channel.close()
            throw error
        }
        // The body's consumer going away (cancelled, or the stream dropped unread) closes the socket.
        let consumer = BodyConsumer(handOff: handOff, channel: nioChannel)
        let body = AsyncStream(unfolding: { await consumer.next() }, onCancel: { consumer.end() })
        let received: HTTPResponseHead
        do {
            received = try await withTaskCancellationHandler {
                try await responseHead.futureResult.get()
            } onCancel: {
                nioChannel.close(promise: nil)
            }
        } catch {
            nioChannel.close(promise: nil)
            try? await readerEnded.wait()
            throw Task.isCancelled ? CancellationError() : error
        }
        var fields: [String: String] = [:]
        for (name, value) in received.headers {
            let key = name.lowercased()
            fields[key] = fields[key].map { "\($0), \(value)" } ?? value
        }
        return EventStreamResponse(status: Int(received.status.code), headers: fields, body: body) {
            consumer.end()
        }
    }

    /// Sends the request and reads the response: its head into `responseHead`, its body into
    /// `handOff` no faster than the consumer takes it.
    private static func read(
        _ channel: NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>, head: HTTPRequestHead,
        responseHead: EventLoopPromise<HTTPResponseHead>, into handOff: BodyHandOff
    ) async {
        // A promise completed twice traps: a server sending several heads (1xx first) must not.
        var headReceived = false
        do {
            try await channel.executeThenClose { inbound, outbound in
                do {
                    try await outbound.write(contentsOf: [.head(head), .end(nil)])
                } catch {
                    // The server answered and closed before taking all of the request; its answer is
                    // already read in and decides.
                }
                for try await part in inbound {
                    switch part {
                    case .head(let received):
                        guard !headReceived, received.status.code >= 200 else { continue }
                        headReceived = true
                        responseHead.succeed(received)
                    case .body(let buffer):
                        // Waits while the consumer is behind: the channel is not read meanwhile.
                        if headReceived, await !handOff.push(Array(buffer.readableBytesView)) { return }
                    case .end:
                        if headReceived { return }
                    }
                }
            }
        } catch {
            // The peer or the network ended the response; `body` finishing says so.
        }
        if !headReceived { responseHead.fail(EventStreamTransportError.closedBeforeResponse) }
        handOff.finish()
    }
}

/// The consumer's side of a response body: ending it (or dropping the body) stops the reader and
/// closes the socket.
private final class BodyConsumer: Sendable {
    let handOff: BodyHandOff
    let channel: any Channel

    init(handOff: BodyHandOff, channel: any Channel) {
        self.handOff = handOff
        self.channel = channel
    }

    func next() async -> [UInt8]? { await handOff.next() }

    func end() {
        handOff.cancel()
        channel.close(promise: nil)
    }

    deinit { end() }
}
