import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// Where an `http`/`https` URL points, as an HTTP/1.1 client connects to it and addresses it: the
/// one reading of a URL that both transports' HTTP clients (AppSync's publish, SSE's stream) use.
package struct HTTPClientTarget: Sendable, Equatable {
    package let host: String
    package let port: Int
    package let isSecure: Bool
    /// The `Host` header's value: an IPv6 literal in brackets, the port when the URL names one.
    package let hostHeader: String
    /// The request target: the path (`/` when empty) and the query.
    package let pathAndQuery: String

    /// `nil` unless `url` is `http` or `https` with a host.
    package init?(_ url: URL) {
        guard let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), let host = url.host, !host.isEmpty else {
            return nil
        }
        self.host = host
        isSecure = scheme == "https"
        port = url.port ?? (isSecure ? 443 : 80)
        let hostText = host.contains(":") ? "[\(host)]" : host
        hostHeader = url.port.map { "\(hostText):\($0)" } ?? hostText
        pathAndQuery = url.requestTarget
    }

    /// A request head: `Host` first, then `headers` in their order (a `Host` among them is ignored).
    package func requestHead(_ method: HTTPMethod, headers: [(name: String, value: String)]) -> HTTPRequestHead {
        var fields = HTTPHeaders()
        fields.add(name: "Host", value: hostHeader)
        for (name, value) in headers where name.lowercased() != "host" { fields.add(name: name, value: value) }
        return HTTPRequestHead(version: .http1_1, method: method, uri: pathAndQuery, headers: fields)
    }

    /// Connects over TCP (TLS for `https`, verified by `tlsConfiguration`) with HTTP/1.1 client
    /// handlers in place; `connectTimeout` bounds the TCP connect. Cancelling the calling task ends a
    /// connect in flight at once (NIO's connect does not watch cancellation: a host that never
    /// answers would hold the caller, and a connection's `disconnect()`, for `connectTimeout`).
    package func connect(
        tlsConfiguration: TLSConfiguration, connectTimeout: Duration
    ) async throws -> NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart> {
        let sslContext = isSecure ? try NIOSSLContext(configuration: tlsConfiguration.withTLS12Floor) : nil
        let verification = tlsConfiguration.certificateVerification
        let host = host
        let connecting = NIOLockedValueBox(Connecting())
        return try await withTaskCancellationHandler {
            try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(TimeAmount(connectTimeout))
                .connect(host: host, port: port) { channel in
                    guard connecting.withLockedValue({ $0.created(channel) }) else { return channel.eventLoop.makeFailedFuture(CancellationError()) }
                    return channel.eventLoop.makeCompletedFuture {
                        if let sslContext {
                            // SNI carries host names only; certificate checks still apply to IP addresses.
                            let serverName = (try? SocketAddress(ipAddress: host, port: 0)) == nil ? host : nil
                            try channel.pipeline.syncOperations.addHandler(TLSClientPolicy.handler(context: sslContext, serverHostname: serverName, verification: verification))
                        }
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
                    }
                }
        } onCancel: {
            connecting.withLockedValue { $0.cancel() }?.close(promise: nil)
        }
    }
}

/// A connect's channel and whether its caller gave it up, whichever comes first.
struct Connecting {
    private var channel: (any Channel)?
    private var cancelled = false

    /// Keeps the new channel; false when the connect was given up already (the channel is not set up).
    mutating func created(_ channel: any Channel) -> Bool {
        self.channel = channel
        return !cancelled
    }

    /// The connect was given up: its channel, if it exists, is to be closed.
    mutating func cancel() -> (any Channel)? {
        cancelled = true
        return channel
    }
}

extension URL {
    /// The path and query as a request line sends them: percent-encoded as in the URL (`url.path`
    /// is decoded, so a `%3F` in a path segment would become a `?` that starts a query).
    package var requestTarget: String {
        let components = URLComponents(url: self, resolvingAgainstBaseURL: false)
        let path = components?.percentEncodedPath ?? ""
        return (path.isEmpty ? "/" : path) + (components?.percentEncodedQuery.map { "?\($0)" } ?? "")
    }
}
