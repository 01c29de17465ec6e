import AppSyncRuntime
import ArgumentParser
import ChannelRuntime
import Dispatch
import Foundation
import SSERuntime
import VortexEvents

/// How often an idle client wakes: a connected client with the nine Vortex subscriptions and no
/// events, the emulator in a child process (its keep-alives and heartbeats are the only traffic).
/// Counted as voluntary context switches of every thread of this process, from `/proc`.
struct Idle: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Voluntary context switches per idle minute of a connected client (Linux; the emulator in a child process).")

    enum Transport: String, ExpressibleByArgument, CaseIterable {
        /// No connection: the process after one work item on a libdispatch worker (the floor).
        case none, websocket, sse
    }

    @Option(help: "none (the process floor), websocket or sse.")
    var transport: Transport = .websocket

    @Option(help: "Seconds measured.")
    var seconds = 60

    func run() async throws {
        let (child, endpoint) = try startEmulatorProcess()
        defer { child.terminate() }
        let authorization = ChannelAuthorization.apiKey(Loopback.publisherKey)

        var consumers: [Task<Void, Never>] = []
        var connection: (any BenchConnection)?
        switch transport {
        case .none:
            await withCheckedContinuation { done in DispatchQueue.global().async { done.resume() } }
        case .websocket, .sse:
            let opened: any BenchConnection = transport == .sse
                ? SSEConnection(configuration: SSEConfiguration(endpoint: endpoint, authorization: authorization), logger: quiet)
                : AppSyncConnection(configuration: AppSyncConfiguration(endpoint: endpoint, authorization: authorization), logger: quiet)
            let notifier = BackendNotifier(source: ChannelEventHub(connection: opened, parameters: ["userId": try ChannelSegment("bench")], logger: quiet))
            func consume<E: Sendable>(_ stream: AsyncStream<E>) { consumers.append(Task { for await _ in stream {} }) }
            consume(await notifier.devicePresenceValues()); consume(await notifier.deviceRecordingValues())
            consume(await notifier.deviceFirmwareValues()); consume(await notifier.archiveValues())
            consume(await notifier.licenseValues()); consume(await notifier.planValues())
            consume(await notifier.aiSettingsValues()); consume(await notifier.roleValues()); consume(await notifier.revokeValues())
            await opened.start()
            try await waitUntil { await opened.acknowledgedChannels.count == 9 }
            connection = opened
        }
        try await Task.sleep(for: .seconds(2))  // settled
        let before = Self.switches()
        try await Task.sleep(for: .seconds(seconds))
        let after = Self.switches()
        // Per thread alive at the end (a worker that exited meanwhile took its count with it).
        let deltas = after.map { thread, count in (thread, count - (before[thread] ?? 0)) }.filter { $0.1 > 0 }
        let perMinute = { (count: Int) in Double(count) * 60 / Double(seconds) }
        // libdispatch's thread-pool monitor on Linux: a 1 Hz timer on its manager queue in every
        // process that ran work on a dispatch worker, whatever the runtime does.
        let monitor = deltas.filter { $0.0.hasSuffix("-qos.overcommit") }.map(\.1).reduce(0, +)
        let total = deltas.map(\.1).reduce(0, +)
        print(String(format: "transport=%@ wakeups_per_minute=%.1f without_dispatch_monitor=%.1f", transport.rawValue, perMinute(total), perMinute(total - monitor)))
        for (thread, count) in deltas.sorted(by: { $0.0 < $1.0 }) { print("  \(thread): \(count)") }
        consumers.forEach { $0.cancel() }
        await connection?.disconnect()
    }

    /// Voluntary context switches so far, by thread (`tid name`).
    static func switches() -> [String: Int] {
        var result: [String: Int] = [:]
        for task in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? [] {
            let name = ((try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? "?").trimmingCharacters(in: .whitespacesAndNewlines)
            let status = (try? String(contentsOfFile: "/proc/self/task/\(task)/status", encoding: .utf8)) ?? ""
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("voluntary_ctxt_switches") }),
                  let count = Int(line.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") else { continue }
            result["\(task) \(name)"] = count
        }
        return result
    }
}
