import ChannelRuntime
import ChannelTransports
import Foundation

extension TransportTasks {
    /// Outside a connection (a test calling a transport directly): each piece of a socket's work
    /// runs in a task of its own, which ends with the work (its socket closing) or at `cancel()`.
    package static var standalone: TransportTasks {
        TransportTasks(start: { work in
            // Not a child: no connection's root is there to hold it; the work ends with its socket.
            let task = Task { await work() }
            let cancel: @Sendable () -> Void = { task.cancel() }
            return cancel
        })
    }
}

extension WebSocketTransport {
    /// `connect(to:subprotocols:tasks:)` outside a connection (see `TransportTasks.standalone`).
    package func connect(to url: URL, subprotocols: [String]) async throws -> any WebSocketSession {
        try await connect(to: url, subprotocols: subprotocols, tasks: .standalone)
    }
}

extension EventStreamTransport {
    /// `open(_:headers:tasks:)` outside a connection (see `TransportTasks.standalone`).
    package func open(_ url: URL, headers: [(name: String, value: String)]) async throws -> EventStreamResponse {
        try await open(url, headers: headers, tasks: .standalone)
    }
}
