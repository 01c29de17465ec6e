import AppSyncRuntime
import Foundation
import Logging

let quiet = Logger(label: "bench") { _ in SwiftLogNoOpLogHandler() }

/// Median and percentiles of samples.
struct Stats {
    let sorted: [Double]
    init(_ samples: [Double]) { sorted = samples.sorted() }
    func percentile(_ p: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let index = min(sorted.count - 1, max(0, Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1))
        return sorted[index]
    }
    var median: Double { percentile(50) }
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// Polls `condition` (sub-millisecond) until it holds or `limit` passes.
func waitUntil(_ limit: Duration = .seconds(60), _ condition: @Sendable () async -> Bool) async throws {
    let deadline = ContinuousClock.now + limit
    while !(await condition()) {
        guard ContinuousClock.now < deadline else { throw BenchFailure("timed out") }
        try await Task.sleep(for: .microseconds(200))
    }
}

struct BenchFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Resident memory of this process, from /proc (Linux).
func residentMemoryKB() -> Int? { procStatusKB("VmRSS:") }

/// The highest resident memory of this process so far, from /proc (Linux).
func peakResidentMemoryKB() -> Int? { procStatusKB("VmHWM:") }

private func procStatusKB(_ field: String) -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
    for line in status.split(separator: "\n") where line.hasPrefix(field) {
        return Int(line.split(separator: " ").dropFirst().first ?? "")
    }
    return nil
}

/// A counter shared between a consumer task and the benchmark.
final class Counter: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var value = 0
    private var times: [ContinuousClock.Instant] = []
    private let recordTimes: Bool

    init(recordTimes: Bool = false) { self.recordTimes = recordTimes }

    func increment() {
        let now = recordTimes ? ContinuousClock.now : nil
        lock.withLock {
            value += 1
            if let now { times.append(now) }
        }
    }

    var count: Int { lock.withLock { value } }
    var arrivals: [ContinuousClock.Instant] { lock.withLock { times } }
}

/// A server that answers the handshake and every subscribe by itself, and lets the benchmark
/// inject `data` frames: the runtime's decode path with no network in the way.
final class AutoServerTransport: WebSocketTransport, @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var continuation: BatchedStream<String>.Continuation?
    private var ids: [String: String] = [:]

    func connect(to url: URL, subprotocols: [String]) async throws -> any WebSocketSession {
        let (stream, continuation, reader) = BatchedStream<String>.makeStreamAndReader()
        lock.withLock { self.continuation = continuation }
        return Session(inbound: stream, inboundReader: reader, server: self)
    }

    func push(_ frame: String) { lock.withLock { continuation }?.yield(frame) }

    func subscriptionID(for channel: String) -> String? { lock.withLock { ids[channel] } }

    fileprivate func received(_ text: String) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else { return }
        switch object["type"] as? String {
        case "connection_init":
            push(#"{"type":"connection_ack","connectionTimeoutMs":300000}"#)
        case "subscribe":
            let id = object["id"] as? String ?? ""
            lock.withLock { ids[object["channel"] as? String ?? ""] = id }
            push(#"{"type":"subscribe_success","id":"\#(id)"}"#)
        default:
            break
        }
    }

    private struct Session: WebSocketSession {
        let inbound: AsyncStream<String>
        /// As `WSClientTransport` does: the connection reads the frames from the reader.
        let inboundReader: BatchedStream<String>.Reader?
        let server: AutoServerTransport
        func send(_ text: String) async throws { server.received(text) }
        func close() async { server.lock.withLock { server.continuation }?.finish() }
        func abort() { server.lock.withLock { server.continuation }?.finish() }
    }
}

/// Heap allocations in the whole process so far, when `scripts/malloc_count.c` is preloaded
/// (`LD_PRELOAD`); `nil` otherwise.
func heapAllocations() -> UInt64? {
    // RTLD_DEFAULT (a null handle on glibc): the preloaded library's symbol, if there is one.
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "channelgen_malloc_count") else { return nil }
    return unsafeBitCast(symbol, to: (@convention(c) () -> UInt64).self)()
}

/// One timed run: events per second and, when counted, heap allocations per event.
struct Throughput {
    var perSecond: Double
    var allocationsPerEvent: Double?

    /// Times `body`, which handles `count` events.
    static func measure(count: Int, _ body: () async throws -> Void) async rethrows -> Throughput {
        let allocationsBefore = heapAllocations()
        let start = ContinuousClock.now
        try await body()
        let elapsed = seconds(ContinuousClock.now - start)
        var allocations: Double?
        if let before = allocationsBefore, let after = heapAllocations() { allocations = Double(after - before) / Double(count) }
        return Throughput(perSecond: Double(count) / elapsed, allocationsPerEvent: allocations)
    }
}
