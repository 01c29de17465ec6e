import Dispatch
import Foundation

/// The demo's signals: SIGUSR1 is a network path change (what a path monitor would report), SIGINT
/// ends `--stay`.
enum Signals {
    /// Until cancelled, each SIGUSR1 tells `connection` that the network path changed.
    static func networkPathChanges(to connection: any DemoConnection) -> Task<Void, Never> {
        Task {
            for await _ in arrivals(of: SIGUSR1) {
                say("SIGUSR1: the network path changed")
                await connection.networkPathChanged(available: true)
            }
        }
    }

    /// Returns at the first SIGINT (Ctrl-C).
    static func interrupt() async {
        for await _ in arrivals(of: SIGINT) { return }
    }

    /// Each arrival of `number`, whose default action is off while the stream is read.
    private static func arrivals(of number: Int32) -> AsyncStream<Void> {
        AsyncStream { continuation in
            signal(number, SIG_IGN)
            let watch = SignalWatch(DispatchSource.makeSignalSource(signal: number, queue: .global()))
            watch.source.setEventHandler { continuation.yield() }
            watch.source.resume()
            continuation.onTermination = { _ in
                watch.source.cancel()
                signal(number, SIG_DFL)
            }
        }
    }
}

/// A signal source handed to the stream's termination handler.
private final class SignalWatch: @unchecked Sendable {
    // @unchecked: a dispatch source is thread-safe; `source` is a `let`.
    let source: any DispatchSourceSignal
    init(_ source: any DispatchSourceSignal) { self.source = source }
}
