@testable import ChannelRuntime
import Foundation
import Testing

@Suite("Event relay: the connection hands events to the hub's handler")
struct EventRelayTests {
    func event(_ n: Int) -> RawChannelEvent { RawChannelEvent(text: "\(n)", sequence: n, receivedAt: Date(timeIntervalSince1970: 0)) }

    @Test func eventsBeforeTheHandlerReachItFirstAndInOrder() {
        let relay = EventRelay(pendingLimit: 10)
        let seen = LockedBox<[Int]>([])
        for n in 1...3 { relay.send(event(n)) }
        let lost = relay.attach { raw in seen.mutate { $0.append(raw.sequence) } }
        #expect(lost == 0)
        for n in 4...5 { relay.send(event(n)) }
        #expect(seen.value == [1, 2, 3, 4, 5])
    }

    @Test func waitingEventsAreBoundedAndTheOldestDroppedAreCounted() {
        let relay = EventRelay(pendingLimit: 3)
        let seen = LockedBox<[Int]>([])
        for n in 1...7 { relay.send(event(n)) }
        let lost = relay.attach { raw in seen.mutate { $0.append(raw.sequence) } }
        #expect(lost == 4)
        #expect(seen.value == [5, 6, 7])
        // Counted once: a later attach (a replaced handler) does not report them again.
        #expect(relay.attach { raw in seen.mutate { $0.append(-raw.sequence) } } == 0)
    }

    @Test func nothingReachesTheHandlerAfterClose() {
        let relay = EventRelay()
        let seen = LockedBox<[Int]>([])
        relay.attach { raw in seen.mutate { $0.append(raw.sequence) } }
        relay.send(event(1))
        relay.close()
        relay.send(event(2))
        #expect(seen.value == [1])
    }

    @Test func aClosedRelayKeepsNeitherEventsNorAHandler() {
        let relay = EventRelay()
        relay.send(event(1))
        relay.close()
        relay.send(event(2))
        let seen = LockedBox<[Int]>([])
        // The handler holds `witness`; a relay that kept the handler would keep it alive.
        final class Witness: Sendable {}
        weak var released: Witness?
        do {
            let witness = Witness()
            released = witness
            #expect(relay.attach { raw in withExtendedLifetime(witness) { seen.mutate { $0.append(raw.sequence) } } } == 0)
        }
        relay.send(event(3))
        #expect(seen.value == [])
        #expect(released == nil)
    }

    @Test func closingReleasesTheHandlerAndWhatItHolds() {
        final class Witness: Sendable {}
        weak var released: Witness?
        let relay = EventRelay()
        do {
            let witness = Witness()
            released = witness
            relay.attach { _ in withExtendedLifetime(witness) {} }
        }
        #expect(released != nil)
        relay.close()
        #expect(released == nil)
    }
}
