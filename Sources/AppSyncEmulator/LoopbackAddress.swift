// Compiled with the Emulator trait (on by default); without it this module is empty.
#if Emulator

/// The emulator's own loopback address, as a browser names it: what a request from a page on this
/// machine must carry for the console and the WebSocket to answer. A web page elsewhere that
/// reaches 127.0.0.1 (DNS rebinding) names another `Host`; one that opens a WebSocket to it sends its
/// own `Origin` (browsers apply no CORS to WebSockets). Native clients send no `Origin`.
struct LoopbackAddress: Sendable {
    let port: Int

    func isOwnHost(_ host: String?) -> Bool {
        host == "127.0.0.1:\(port)" || host == "localhost:\(port)"
    }

    func isOwnOrigin(_ origin: String) -> Bool {
        origin == "http://127.0.0.1:\(port)" || origin == "http://localhost:\(port)"
    }

    /// A WebSocket upgrade from this machine's own pages or from a native client: its own `Host`,
    /// and no `Origin`, its own, or the `ws://`/`wss://` one some native clients send (the runtime's
    /// NIO transport among them), which a browser never does: it sends its page's `http(s)` origin.
    func admitsUpgrade(host: String?, origin: String?) -> Bool {
        guard isOwnHost(host) else { return false }
        guard let origin else { return true }
        if isOwnOrigin(origin) { return true }
        let native = ["ws://", "wss://"].flatMap { scheme in
            ["127.0.0.1", "localhost"].flatMap { name in [scheme + name, scheme + name + ":\(port)"] }
        }
        return native.contains(origin)
    }
}
#endif
