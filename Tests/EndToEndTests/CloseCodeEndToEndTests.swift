import AppSyncEmulator
import AppSyncRuntime
import ChannelRuntime
import Foundation
import Testing
import VortexEvents
import ChannelRuntimeTesting

/// The server's close frame read by the NIO WebSocket adapter over real sockets: a normal close
/// ends the connection, another code reconnects and resubscribes, and the state says which.
@Suite("Close codes over loopback", .serialized)
struct CloseCodeEndToEndTests {
    @Test func aNormalCloseFromTheServerIsFinalAndNamesItsReason() async throws {
        let stack = try await Stack.start()
        let nine = EndToEndTests.Nine(stack.notifier)
        let states = Collected { await stack.connection.stateUpdates() }
        await stack.connection.start()
        try await Self.untilNineSubscribedOnBothSides(stack)
        #expect(await stack.emulator.closeConnections(code: 1000, reason: "maintenance") == 1)
        try await states.wait("closed") { $0.contains(.closed(.closed(code: 1000, reason: "maintenance"))) }
        #expect(await stack.emulator.connectionsAccepted == 1)  // not reconnected (the manual-clock test waits it out)
        await stack.connection.start()
        try await untilPublished(by: stack.connection, "nine subscriptions again") { await stack.connection.acknowledgedChannels.count == 9 }
        nine.cancel()
        states.cancel()
        await stack.stop()
    }

    @Test func goingAwayReconnectsAndResubscribes() async throws {
        let stack = try await Stack.start()
        let nine = EndToEndTests.Nine(stack.notifier)
        let states = Collected { await stack.connection.stateUpdates() }
        await stack.connection.start()
        try await Self.untilNineSubscribedOnBothSides(stack)
        #expect(await stack.emulator.closeConnections(code: 1001, reason: "going away") == 1)
        try await stack.emulator.untilActivity("the reconnect") { $0.connectionsAccepted == 2 }
        try await untilPublished(by: stack.connection, "nine resubscriptions") { await stack.connection.acknowledgedChannels.count == 9 }
        #expect(states.elements.contains(.reconnecting(after: .milliseconds(100), because: .closed(code: 1001, reason: "going away"))))
        nine.cancel()
        states.cancel()
        await stack.stop()
    }

    /// The client says its nine subscriptions are acknowledged and the emulator holds them on its one
    /// connection: the close that follows reaches the session the client has.
    private static func untilNineSubscribedOnBothSides(_ stack: Stack) async throws {
        try await untilPublished(by: stack.connection, "nine subscriptions") { await stack.connection.acknowledgedChannels.count == 9 }
        try await stack.emulator.untilActivity("nine subscriptions on the emulator") { $0.connections == 1 && $0.subscriptions == 9 }
    }
}
