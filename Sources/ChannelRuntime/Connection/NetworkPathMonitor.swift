#if canImport(Network)
import Dispatch
import Network

/// Tells a connection of the device's network path changes, from `NWPathMonitor` (Apple platforms;
/// never built by this project's Linux CI). Keep it as long as the connection; it stops on deinit.
public final class NetworkPathMonitor: @unchecked Sendable {
    // @unchecked: `monitor` is only touched in init and deinit; its handler runs on `queue`.
    private let monitor = NWPathMonitor()
    private let queue = DispatchQueue(label: "ChannelRuntime.NetworkPathMonitor")

    /// Starts watching; each change after the first report calls `connection.networkPathChanged`.
    public init(connection: any ManagedConnection) {
        let reported = LockedValue(false)  // the first report is the current path, not a change
        monitor.pathUpdateHandler = { path in
            let isFirst = reported.withLock { reported in
                defer { reported = true }
                return !reported
            }
            guard !isFirst else { return }
            let available = path.status == .satisfied
            // Not a child: `NWPathMonitor` reports on its dispatch queue, outside any task.
            Task { await connection.networkPathChanged(available: available) }
        }
        monitor.start(queue: queue)
    }

    deinit { monitor.cancel() }
}
#endif
