/// Forwards a device's network path reports: the first report is the path as it is (not a
/// change) and is skipped; each later one is passed to `changed` (a connection's
/// `networkPathChanged(available:)`), in order, until the reports end or the calling task is
/// cancelled. What `NetworkPathMonitor.run()` does with `NWPathMonitor`'s reports, apart so it runs
/// on every platform (`PathChangeTests`).
package enum PathChanges {
    package static func forward(_ reports: AsyncStream<Bool>, to changed: (Bool) async -> Void) async {
        var isFirst = true
        for await available in reports {
            defer { isFirst = false }
            guard !isFirst else { continue }
            await changed(available)
        }
    }
}

#if canImport(Network)
import Dispatch
import Network

/// Tells a connection of the device's network path changes, from `NWPathMonitor` (Apple platforms;
/// never built by this project's Linux CI). Run it beside the connection, in a task the app owns
/// (a task group child, a ServiceLifecycle service); it stops when that task is cancelled.
///
/// ```swift
/// try await withThrowingDiscardingTaskGroup { group in
///     group.addTask { await NetworkPathMonitor(connection: connection).run() }
///     // …
/// }
/// ```
public struct NetworkPathMonitor: Sendable {
    private let connection: any ManagedConnection

    /// A monitor for `connection`; nothing is watched until `run()`.
    public init(connection: any ManagedConnection) {
        self.connection = connection
    }

    /// Watches the path until the calling task is cancelled; each change after the first report
    /// calls `connection.networkPathChanged(available:)`.
    public func run() async {
        let (reports, continuation) = AsyncStream.makeStream(of: Bool.self, bufferingPolicy: .bufferingNewest(8))
        let monitor = NWPathMonitor()
        monitor.pathUpdateHandler = { path in continuation.yield(path.status == .satisfied) }
        monitor.start(queue: DispatchQueue(label: "ChannelRuntime.NetworkPathMonitor"))
        defer { monitor.cancel() }
        await PathChanges.forward(reports) { await connection.networkPathChanged(available: $0) }
    }
}
#endif
