import ChannelRuntime
import ChannelTransports
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `EventStreamTransport` on URLSession, the default on Apple platforms: the system's proxies,
/// TLS settings and network policies apply. It streams the body through URLSession's delegate, so it
/// needs no `bytes(for:)`, and runs on Linux too (FoundationNetworking).
///
/// Redirects are answers, not followed. At most `maximumBufferedBodyBytes` wait unread for the body's
/// reader before the task is suspended; a server that keeps sending past twice that has its response
/// ended (the connection reopens it with `Last-Event-ID`).
///
/// Not offered on Linux: FoundationNetworking traps when a server sends faster than the stream is
/// read (its suspend and resume race), busy-waits while a stream is idle and reads ahead without a
/// bound; `NIOEventStreamTransport` is the transport there.
public struct URLSessionEventStreamTransport: EventStreamTransport {
    /// Body bytes received and not yet taken by the body's reader, before the task is suspended (256 KiB).
    public var maximumBufferedBodyBytes: Int

    #if canImport(FoundationNetworking)
    @available(*, unavailable, message: "URLSession on Linux (FoundationNetworking) can trap when a server sends faster than it is read, and busy-waits while a stream is idle; use NIOEventStreamTransport from NIOChannelTransports")
    public init(maximumBufferedBodyBytes: Int = 256 * 1024) { self.init(evenOnLinux: maximumBufferedBodyBytes) }
    #else
    /// A transport.
    public init(maximumBufferedBodyBytes: Int = 256 * 1024) { self.init(evenOnLinux: maximumBufferedBodyBytes) }
    #endif

    /// A transport on any platform, Linux included: for this package's tests of the adapter.
    package init(evenOnLinux maximumBufferedBodyBytes: Int = 256 * 1024) {
        self.maximumBufferedBodyBytes = maximumBufferedBodyBytes
    }

    public func open(_ url: URL, headers: [(name: String, value: String)], tasks: TransportTasks) async throws -> EventStreamResponse {
        guard ["http", "https"].contains(url.scheme?.lowercased()), url.host?.isEmpty == false else {
            throw EventStreamTransportError.invalidURL(url.absoluteString)
        }
        var request = URLRequest(url: url)
        request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
        request.setValue("no-cache", forHTTPHeaderField: "Cache-Control")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        // The connection's keep-alive watchdog decides when a quiet stream is dead, not URLSession's
        // 60-second idle timeout.
        request.timeoutInterval = 24 * 3600
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForResource = 7 * 24 * 3600
        let streaming = StreamingRequest(request, configuration: configuration, bodyCapacity: maximumBufferedBodyBytes)
        let response = try await streaming.start()
        let reader = BodyReader(streaming)
        let body = AsyncStream(unfolding: { await reader.next() }, onCancel: { reader.end() })
        return EventStreamResponse(status: response.statusCode, headers: response.lowercasedHeaderFields, body: body) {
            reader.end()
        }
    }
}

/// The consumer's side of a response body: ending it, or dropping the body unread, ends the request.
private final class BodyReader: Sendable {
    let streaming: StreamingRequest

    init(_ streaming: StreamingRequest) { self.streaming = streaming }

    func next() async -> [UInt8]? { await streaming.nextChunk() }

    func end() { streaming.cancel(CancellationError()) }

    deinit { end() }
}
