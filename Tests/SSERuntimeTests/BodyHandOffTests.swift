@testable import NIOChannelTransports
import Testing

/// The hand-off between the socket reader and the body's consumer: everything arrives in order,
/// the reader waits while it is full, and either side ending releases the other.
@Suite("Body hand-off")
struct BodyHandOffTests {
    @Test func everyChunkArrivesInOrderAndTheReaderWaitsWhileFull() async {
        let handOff = BodyHandOff(capacity: 10, maximumChunks: 100)
        let pushed = Tally()
        let producer = Task {
            for value in 0..<200 {
                guard await handOff.push([UInt8(value % 256), 0, 0, 0]) else { return }
                await pushed.add()
            }
            handOff.finish()
        }
        // Nobody reads yet: the third chunk takes the hand-off past 10 bytes, and its push waits.
        while await pushed.count < 2 { await Task.yield() }
        for _ in 0..<100 { await Task.yield() }
        #expect(await pushed.count == 2)

        var received: [UInt8] = []
        while let chunk = await handOff.next() { received.append(chunk[0]) }
        #expect(received == (0..<200).map { UInt8($0 % 256) })
        await producer.value
    }

    @Test func cancellingReleasesAWaitingReaderAndDropsWhatIsHeld() async {
        let handOff = BodyHandOff(capacity: 8)
        #expect(await handOff.push([1, 2, 3, 4]) == true)
        let blocked = Task { await handOff.push([5, 6, 7, 8]) }  // reaches the capacity: waits
        for _ in 0..<50 { await Task.yield() }
        handOff.cancel()
        #expect(await blocked.value == false)
        #expect(await handOff.next() == nil)
        #expect(await handOff.push([6]) == false)
    }

    @Test func aConsumerWaitingForTheFirstChunkGetsItOrTheEnd() async {
        let handOff = BodyHandOff(capacity: 1024)
        let first = Task { await handOff.next() }
        for _ in 0..<50 { await Task.yield() }
        #expect(await handOff.push([7]) == true)
        #expect(await first.value == [7])
        let end = Task { await handOff.next() }
        for _ in 0..<50 { await Task.yield() }
        handOff.finish()
        #expect(await end.value == nil)
    }
}

private actor Tally {
    var count = 0
    func add() { count += 1 }
}
