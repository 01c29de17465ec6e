import AppSyncRuntime
import ChannelTransports
import Logging
import NIOChannelTransports
import Testing
import URLSessionChannelTransports

/// The wire adapters the transport conformance cases run against (the tests taking an adapter as
/// their argument): every adapter that works on this platform. `URLSessionWebSocketTransport` runs on
/// Apple platforms only: FoundationNetworking's WebSocket does not connect on Linux (libcurl has no
/// WebSocket support there), which `TransportTests.urlSessionWebSocketFailsCleanlyOnLinux` pins down.
struct Adapter<Transport: Sendable>: Sendable, CustomTestStringConvertible {
    let name: String
    let make: @Sendable () -> Transport
    var testDescription: String { name }
}

/// An HTTP POST client adapter, made with the bounds a test asks for.
struct PostAdapter: Sendable, CustomTestStringConvertible {
    let name: String
    let make: @Sendable (_ maximumResponseBytes: Int, _ timeout: Duration) -> any HTTPPostClient
    var testDescription: String { name }

    func callAsFunction(maximumResponseBytes: Int = 64 * 1024, timeout: Duration = .seconds(300)) -> any HTTPPostClient {
        make(maximumResponseBytes, timeout)
    }
}

enum Adapters {
    static let quiet = Logger(label: "transport") { _ in SwiftLogNoOpLogHandler() }

    static let webSocket: [Adapter<any WebSocketTransport>] = {
        var adapters: [Adapter<any WebSocketTransport>] = [Adapter(name: "WSClientTransport") { WSClientTransport(logger: quiet) }]
        #if canImport(Darwin)
        adapters.append(Adapter(name: "URLSessionWebSocketTransport") { URLSessionWebSocketTransport(evenOnLinux: 1 << 21) })
        #endif
        return adapters
    }()

    /// The NIO adapter's socket connect is bounded by `bounded`'s 120 s, not its own 10 s: at the
    /// start of a CI run, every suite starting at once on two cores, a loopback connect once took
    /// longer (these tests check behaviour; a connection's `connectTimeout` bounds what times out).
    static let eventStream: [Adapter<any EventStreamTransport>] = [
        Adapter(name: "NIOEventStreamTransport") { NIOEventStreamTransport(socketConnectTimeout: .seconds(120)) },
        Adapter(name: "URLSessionEventStreamTransport") { URLSessionEventStreamTransport(evenOnLinux: 256 * 1024) },
    ]

    static let httpPost: [PostAdapter] = [
        PostAdapter(name: "NIOHTTPPostClient") { NIOHTTPPostClient(maximumResponseBytes: $0, timeout: $1) },
        PostAdapter(name: "URLSessionPostClient") { URLSessionPostClient(evenOnLinux: $0, timeout: $1) },
    ]
}
