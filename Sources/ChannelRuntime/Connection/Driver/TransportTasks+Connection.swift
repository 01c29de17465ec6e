import ChannelTransports

extension TransportTasks {
    /// Children of a connection's root (`ConnectionTasks`), each stopped on its own by its handle.
    package init(_ children: ConnectionTasks) {
        self.init(start: { work in
            let stop = ChildStop()
            guard children.add(stoppedBy: stop, work) else { return nil }
            let cancel: @Sendable () -> Void = { stop.stop() }
            return cancel
        })
    }
}
