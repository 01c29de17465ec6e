import Foundation

/// Where an event API lives, for every transport: its HTTP URL (publish, Server-Sent Events) and
/// the WebSocket URL derived from it the way AppSync Events names it:
/// `https://<id>.appsync-api.<region>.amazonaws.com/event` →
/// `wss://<id>.appsync-realtime-api.<region>.amazonaws.com/event/realtime`. Custom domains (and a
/// local emulator) keep their host: `https://api.example.com/event` → `wss://api.example.com/event/realtime`.
public struct ChannelEndpoint: Sendable, Hashable {
    /// `POST` target for HTTP publish.
    public let http: URL
    /// The WebSocket URL.
    public let realtime: URL
    /// The HTTP host (with its port, when the URL has one): the `host` of every auth object.
    public let host: String

    /// Why a URL cannot be an event API endpoint.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// The text is not an `http`/`https` URL with a host.
        case invalidURL(String)
        /// Plain `http`/`ws` is allowed for loopback hosts only.
        case insecureScheme(String)

        /// What is wrong with the URL.
        public var description: String {
            switch self {
            case .invalidURL(let url): return "'\(url)' is not an http(s) URL with a host"
            case .insecureScheme(let url): return "'\(url)' is not https; plain http is allowed for loopback hosts only"
            }
        }
    }

    /// The endpoint whose HTTP URL is `url`; the WebSocket URL is derived from it.
    public init(http url: URL) throws(Failure) {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              let scheme = components.scheme?.lowercased(), let hostName = components.host, !hostName.isEmpty
        else { throw .invalidURL(url.absoluteString) }
        let secure: Bool
        switch scheme {
        case "https": secure = true
        case "http":
            guard Self.isLoopback(hostName) else { throw .insecureScheme(url.absoluteString) }
            secure = false
        default:
            throw .invalidURL(url.absoluteString)
        }
        let port = components.port.map { ":\($0)" } ?? ""
        // An IPv6 literal comes with its brackets from some Foundations and without from others.
        let bareHost = hostName.hasPrefix("[") && hostName.hasSuffix("]") ? String(hostName.dropFirst().dropLast()) : hostName
        let realtimeHost = Self.isStandardAWSHost(bareHost)
            ? bareHost.replacingOccurrences(of: ".appsync-api.", with: ".appsync-realtime-api.")
            : bareHost
        let urlHost = bareHost.contains(":") ? "[\(bareHost)]" : bareHost
        let realtimeURLHost = realtimeHost.contains(":") ? "[\(realtimeHost)]" : realtimeHost
        guard let http = URL(string: "\(secure ? "https" : "http")://\(urlHost)\(port)/event"),
              let realtime = URL(string: "\(secure ? "wss" : "ws")://\(realtimeURLHost)\(port)/event/realtime")
        else { throw .invalidURL(url.absoluteString) }
        self.host = urlHost + port
        self.http = http
        self.realtime = realtime
    }

    /// The endpoint whose HTTP URL is `string`, such as `https://abc123.appsync-api.eu-west-1.amazonaws.com/event`.
    public init(http string: String) throws(Failure) {
        guard let url = URL(string: string) else { throw .invalidURL(string) }
        try self.init(http: url)
    }

    static func isStandardAWSHost(_ host: String) -> Bool {
        host.contains(".appsync-api.") && (host.hasSuffix(".amazonaws.com") || host.hasSuffix(".amazonaws.com.cn"))
    }

    /// Whether plain http/ws may go to `host`: `localhost`, `::1`, or an IPv4 literal in
    /// 127.0.0.0/8. Only literals: `127.attacker.example` is a name anyone can point anywhere.
    package static func isLoopback(_ host: String) -> Bool {
        let host = host.lowercased()
        if host == "localhost" || host == "::1" || host == "[::1]" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4, octets[0] == "127" else { return false }
        return octets.allSatisfy { octet in
            (1...3).contains(octet.count) && octet.allSatisfy(\.isASCII) && octet.allSatisfy(\.isNumber) && Int(octet).map { $0 <= 255 } == true
        }
    }
}
