@testable import ChannelRuntime
import Logging
import Testing

/// Delivery order among the consumers of one event: priority first, FIFO within a priority.
@Suite("Consumer priority")
struct PriorityTests {
    @Test func higherPrioritiesFirstThenInTheOrderConsumersCame() {
        let entry = Entry<PingSubscription>(instance: nil, metrics: RuntimeMetrics(), log: DiagnosticLog(logger: Logger(label: "test"), clock: RuntimeClock(ContinuousClock())))
        var ids: [Int: String] = [:]
        for (name, priority) in [("a", 0), ("b", 5), ("c", 5), ("d", -1), ("e", 0)] {
            let (_, continuation) = BatchedStream<Ping>.makeStream()
            ids[entry.add(.events(continuation), status: nil, priority: priority)] = name
        }
        #expect(entry.deliveryOrder.map { ids[$0]! } == ["b", "c", "a", "e", "d"])
        _ = entry.remove(entry.deliveryOrder[0])
        #expect(entry.deliveryOrder.map { ids[$0]! } == ["c", "a", "e", "d"])
    }
}
