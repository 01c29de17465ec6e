import Logging

/// What every transport's driver does with the machine's `publishState` and `count` actions: the
/// same state log lines and the same counters, whichever wire the connection speaks.
extension ConnectionStatusBoard {
    /// Publishes `newState` and logs the change (a final failure as an error). An own stream's
    /// driver (`ownStream`: its channel) logs it as that stream's: the connection carries on.
    package func publish(_ newState: ConnectionState, log: DiagnosticLog, ownStream: String? = nil) {
        guard setConnectionState(newState) else { return }
        if let ownStream {
            log.debug("stream state", metadata: ["channel": "\(ownStream)", "state": "\(newState)"])
            if case .failed(let failure) = newState {
                log.error("the stream failed for good; the connection carries on", metadata: ["channel": "\(ownStream)", "reason": "\(failure)"])
            }
            return
        }
        log.debug("connection state", metadata: ["state": "\(newState)"])
        switch newState {
        case .failed(let failure):
            log.error("connection failed for good", metadata: ["reason": "\(failure)"])
        case .closed(let end):
            log.info("the service closed the connection; no reconnect until start()", metadata: ["reason": "\(end)"])
        case .waitingForNetwork:
            log.info("no network path; waiting for one before connecting")
        case .idle, .connecting, .connected, .reconnecting, .suspended, .disconnected:
            break
        }
    }
}

extension RuntimeMetrics {
    /// Counts one of the machine's metrics; `silence` names what the keep-alive watchdog waited for.
    package func count(_ metric: ConnectionStateMachine.Metric, log: DiagnosticLog, silence: String) {
        switch metric {
        case .reconnect: update { $0.reconnects += 1 }
        case .keepAliveTimeout:
            update { $0.keepAliveTimeouts += 1 }
            log.error("no \(silence) in time; reconnecting")
        case .duplicateAcknowledgement:
            update { $0.duplicateAcknowledgements += 1 }
            log.debug("ignoring a second acknowledgement of the session")
        case .subscribeError: update { $0.subscribeErrors += 1 }
        case .connectSucceeded: update { $0.connectSuccesses += 1 }
        case .connectFailed(let failureClass): update { $0.connectFailures[failureClass, default: 0] += 1 }
        }
    }
}
