import ChannelRuntime
import ChannelTransports
#if os(Linux) || os(Android) || os(Windows) || os(OpenBSD)
import NIOChannelTransports
#else
import URLSessionChannelTransports
#endif

// The event stream client a connection uses unless given another: URLSession's on Apple platforms,
// SwiftNIO's elsewhere (the platform lists match `nioDefaultPlatforms` in Package.swift).
@usableFromInline
func defaultEventStreamTransport() -> any EventStreamTransport {
    #if os(Linux) || os(Android) || os(Windows) || os(OpenBSD)
    NIOEventStreamTransport()
    #else
    URLSessionEventStreamTransport()
    #endif
}
