@testable import ChannelRuntime
import Testing

/// What `NetworkPathMonitor.run()` does with `NWPathMonitor`'s reports (the monitor itself only
/// builds on Apple platforms): the first report is the current path, the later ones are changes.
@Suite("Network path reports")
struct PathChangeTests {
    @Test func theFirstReportIsThePathAsItIsAndEveryLaterOneIsAChange() async {
        let (reports, continuation) = AsyncStream.makeStream(of: Bool.self)
        for available in [true, false, true, true] { continuation.yield(available) }
        continuation.finish()
        var changes: [Bool] = []
        await PathChanges.forward(reports) { changes.append($0) }
        #expect(changes == [false, true, true])
    }

    @Test func cancellingTheRunningTaskEndsIt() async {
        let (reports, continuation) = AsyncStream.makeStream(of: Bool.self)
        let running = Task { await PathChanges.forward(reports) { _ in } }
        continuation.yield(true)
        running.cancel()
        await running.value  // returns: the reports never finished, the task's cancel ended it
    }
}
