import AppSyncRuntime
import ChannelRuntimeTesting
import ChannelTransports
import Foundation
import Logging
import NIOChannelTransports

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

/// The emulator in a child process (`runtime-bench serve`), so its threads and memory are not
/// counted as the client's; terminate the process when done.
func startEmulatorProcess() throws -> (process: Process, endpoint: ChannelEndpoint) {
    let child = Process()
    child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    child.arguments = ["serve"]
    let pipe = Pipe()
    child.standardOutput = pipe
    try child.run()
    guard let line = String(data: pipe.fileHandleForReading.availableData, encoding: .utf8)?.split(separator: "\n").first else {
        child.terminate()
        throw BenchFailure("the emulator printed nothing")
    }
    do {
        return (child, try ChannelEndpoint(http: String(line)))
    } catch {
        child.terminate()
        throw error
    }
}

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
/// inject `data` frames: the runtime's decode path with no network in the way. It serves
/// `ChannelRuntimeTesting`'s in-memory transport, whose sessions hand frames over as
/// `WSClientTransport`'s do (a batched reader).
final class AutoServerTransport: WebSocketTransport, @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private let inner = InMemoryTransport()
    private var server: FakeServer?
    private var ids: [String: String] = [:]

    func connect(to url: URL, subprotocols: [String], tasks: TransportTasks) async throws -> any WebSocketSession {
        let serving = Task { try await serve(inner.nextConnection()) }
        let session = try await inner.connect(to: url, subprotocols: subprotocols, tasks: tasks)
        _ = serving
        return session
    }

    func push(_ frame: String) { lock.withLock { server }?.push(frame) }

    func subscriptionID(for channel: String) -> String? { lock.withLock { ids[channel] } }

    private func serve(_ server: FakeServer) async throws {
        try await server.acceptConnection()
        lock.withLock { self.server = server }
        while let message = await server.nextMessage(within: 24 * 3600) {
            guard message["type"] as? String == "subscribe", let id = message["id"] as? String else { continue }
            lock.withLock { ids[message["channel"] as? String ?? ""] = id }
            server.push(#"{"type":"subscribe_success","id":"\#(id)"}"#)
        }
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
