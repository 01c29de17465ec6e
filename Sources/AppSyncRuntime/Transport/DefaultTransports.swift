import ChannelRuntime
import ChannelTransports
#if os(Linux) || os(Android) || os(Windows) || os(OpenBSD)
import NIOChannelTransports
#else
import URLSessionChannelTransports
#endif

// The clients a connection and a publisher use unless given others. On Apple platforms URLSession's,
// the system's own networking (proxies, cellular, TLS settings); elsewhere SwiftNIO's, because
// Foundation there has no working WebSocket. The platform lists match `nioDefaultPlatforms` in
// Package.swift, which links NIO only where it is the default.

@usableFromInline
func defaultWebSocketTransport() -> any WebSocketTransport {
    #if os(Linux) || os(Android) || os(Windows) || os(OpenBSD)
    WSClientTransport()
    #else
    URLSessionWebSocketTransport()
    #endif
}

@usableFromInline
func defaultHTTPPostClient() -> any HTTPPostClient {
    #if os(Linux) || os(Android) || os(Windows) || os(OpenBSD)
    NIOHTTPPostClient()
    #else
    URLSessionPostClient()
    #endif
}
