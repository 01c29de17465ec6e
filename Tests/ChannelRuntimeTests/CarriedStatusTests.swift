@testable import ChannelRuntime
import Foundation
import Testing

/// A subscription's statuses travel in its stream of raw events, in order with them; the stream's
/// bound may drop the oldest elements, statuses among them, but never a status's word.
@Suite("Statuses in the event stream")
struct CarriedStatusTests {
    static func event(_ sequence: Int) -> RawChannelEvent { RawChannelEvent(text: "{}", sequence: sequence, receivedAt: Date()) }

    @Test func aStatusDroppedFromAFullBufferRidesOnTheNextEventAndIsNotCountedAsAnEvent() {
        var next = Self.event(9)
        let dropped = [Self.event(1), RawChannelEvent(status: .active, sequence: 0), Self.event(2), RawChannelEvent(status: .failed([]), sequence: 0)]
        RawChannelEvent.markGap(&next, dropped)
        #expect(next.droppedBefore == 2)
        #expect(next.status == CarriedStatus(.failed([]), alone: false))
    }

    @Test func aStatusOfItsOwnKeepsItsWordOverOlderDroppedOnes() {
        var next = RawChannelEvent(status: .subscribing, sequence: 0)
        RawChannelEvent.markGap(&next, [RawChannelEvent(status: .active, sequence: 0), Self.event(1)])
        #expect(next.status == CarriedStatus(.subscribing, alone: true))
        #expect(next.droppedBefore == 1)
    }

    /// An app reading a subscription's `events` sees events only; the hub's reader gets the statuses.
    @Test func theStreamAnAppReadsSkipsStatuses() async {
        let (stream, continuation, reader) = BatchedStream<RawChannelEvent>.makeStreamAndReader(streamSkips: { $0.status?.alone == true })
        _ = reader
        continuation.yield(RawChannelEvent(status: .subscribing, sequence: 0))
        continuation.yield(Self.event(1))
        continuation.yield(RawChannelEvent(status: .active, sequence: 0))
        continuation.yield(Self.event(2))
        continuation.finish()
        var sequences: [Int] = []
        for await event in stream { sequences.append(event.sequence) }
        #expect(sequences == [1, 2])
    }
}
