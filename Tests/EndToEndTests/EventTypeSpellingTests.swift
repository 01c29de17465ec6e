import AppSyncRuntime
import ChannelRuntime
import Foundation
import Testing
import VortexEvents
import ChannelRuntimeTesting

/// Seeds 000 and 001 spell three event types differently (`organization/licensePhaseChanged` against
/// `license/phaseChanged`, …). The Vortex spec declares both; either backend fills all nine streams,
/// and a spelling nobody declared still delivers and shows in the status (issue 45).
@Suite("Event type spellings over loopback", .serialized)
struct EventTypeSpellingTests {
    static let seed001Spelling = [
        "organization/licensePhaseChanged": "license/phaseChanged",
        "organization/planChanged": "plan/typeChanged",
        "organization/aiSettingsChanged": "ai/settingsChanged",
    ]

    /// `json` with its `eventType` replaced by `spell`'s answer.
    func respelled(_ json: String, _ spell: (String) -> String) throws -> String {
        var object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let type = try #require(object["eventType"] as? String)
        object["eventType"] = spell(type)
        return String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    /// Publishes the nine samples spelled by `spell` and returns the stack once each stream has its event.
    func deliverNine(spelledBy spell: @escaping (String) -> String) async throws -> (Stack, EndToEndTests.Nine) {
        let stack = try await Stack.start()
        let nine = EndToEndTests.Nine(stack.notifier)
        await stack.connection.start()
        try await untilPublished(by: stack.connection, "nine subscriptions") { await stack.connection.acknowledgedChannels.count == 9 }
        for (channel, event) in try EndToEndTests().samples(user: "alice", tag: "t") {
            let result = try await stack.publisher.publish([try respelled(event, spell)], to: channel)
            #expect(result.failed.isEmpty)
        }
        try await nine.untilEachReceived("nine events")
        for collector in nine.all { #expect(collector.elements == ["t"]) }
        return (stack, nine)
    }

    @Test(arguments: ["seed 000", "seed 001"])
    func eitherSeedsSpellingFillsAllNineStreams(seed: String) async throws {
        let (stack, nine) = try await deliverNine { type in seed == "seed 001" ? Self.seed001Spelling[type] ?? type : type }
        let counts = stack.connection.metrics.snapshot().channels.values
        #expect(counts.map(\.decoded).reduce(0, +) == 9)
        #expect(counts.map(\.undeclaredEventTypes).reduce(0, +) == 0)
        #expect(await stack.notifier.source.status(of: LicensePhaseSubscription.self) == .active)
        #expect(await stack.notifier.source.status(of: AISettingsSubscription.self) == .active)
        nine.cancel()
        await stack.stop()
    }

    @Test func aSpellingNobodyDeclaredIsDeliveredAndShown() async throws {
        let (stack, nine) = try await deliverNine { type in type == "organization/planChanged" ? "billing/planUpdated" : type }
        let plan = try #require(stack.connection.metrics.snapshot().channels[PlanTypeSubscription(userId: "alice").channel])
        #expect(plan.undeclaredEventTypes == 1)
        #expect(plan.dropped == 0)
        try await untilStatus(
            .degraded(DeliveryProblems(undeclaredEventTypes: ["billing/planUpdated"])), of: PlanTypeSubscription.self, on: stack.notifier.source
        )
        #expect(await stack.notifier.source.status(of: LicensePhaseSubscription.self) == .active)
        nine.cancel()
        await stack.stop()
    }
}
