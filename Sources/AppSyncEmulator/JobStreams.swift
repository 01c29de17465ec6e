#if Emulator
import Foundation
import NIOConcurrencyHelpers

/// Enrichment jobs, each with its own event stream: a job started over HTTP emits `progress` events, then `completed`
/// (or `failed`), each with an id; its stream replays what came after `Last-Event-ID` and ends
/// after the final event. Jobs belong to who started them.
final class JobStreams: Sendable {
    /// One event of a job, as the stream writes it.
    struct Event: Sendable {
        let id: Int
        let name: String
        let data: String
        /// When the job emitted it (for latency measurements).
        let emittedAt: ContinuousClock.Instant
        var isFinal: Bool { name == "completed" || name == "failed" }
    }

    /// How a job ends.
    enum Outcome: String, Sendable {
        case completed, failed
    }

    private struct Job {
        let owner: Identity
        var events: [Event] = []
        var followers: [UUID: AsyncStream<Event>.Continuation] = [:]
        var isFinished: Bool { events.last?.isFinal == true }
    }

    private struct State {
        var jobs: [String: Job] = [:]
        var started = 0
        /// In-band errors the next stream opens answer with, one each (`failNextJobStreams`).
        var injectedErrors: [String] = []
        var streamsOpened = 0
    }

    private let state = NIOLockedValueBox(State())
    /// Jobs kept at most; the oldest finished ones go first.
    static let retainedJobs = 1000
    /// Books a job may be asked to process at most (each is one `progress` event).
    static let maximumTotal = 10_000

    /// Starts a job of `total` books for `owner`, one `progress` event per `step`, ending in `outcome`.
    func start(total: Int, outcome: Outcome, step: Duration, owner: Identity) -> String {
        let id = state.withLockedValue { state -> String in
            state.started += 1
            let id = "job-\(state.started)"
            state.jobs[id] = Job(owner: owner)
            if state.jobs.count > Self.retainedJobs, let oldest = state.jobs.filter(\.value.isFinished).keys.min(by: Self.startOrder) {
                state.jobs[oldest] = nil
            }
            return id
        }
        Task {
            for processed in 1...max(total, 1) where total > 0 {
                try? await Task.sleep(for: step)
                append(to: id, name: "progress", data: #"{"jobId":"\#(id)","processed":\#(processed),"total":\#(total)}"#)
            }
            try? await Task.sleep(for: step)
            switch outcome {
            case .completed: append(to: id, name: "completed", data: #"{"jobId":"\#(id)","resultsUrl":"/api/v2/enrichments/\#(id)/results"}"#)
            case .failed: append(to: id, name: "failed", data: #"{"jobId":"\#(id)","reason":"the emulator was asked to fail this job"}"#)
            }
        }
        return id
    }

    private static func startOrder(_ a: String, _ b: String) -> Bool {
        (Int(a.dropFirst(4)) ?? 0) < (Int(b.dropFirst(4)) ?? 0)
    }

    private func append(to job: String, name: String, data: String) {
        let appended = state.withLockedValue { state -> (event: Event, followers: [AsyncStream<Event>.Continuation])? in
            guard var entry = state.jobs[job] else { return nil }
            let event = Event(id: entry.events.count + 1, name: name, data: data, emittedAt: .now)
            entry.events.append(event)
            state.jobs[job] = entry
            return (event, Array(entry.followers.values))
        }
        guard let (event, followers) = appended else { return }
        for follower in followers {
            follower.yield(event)
            if event.isFinal { follower.finish() }
        }
    }

    /// What opening `job`'s stream gets: its events after `lastEventID`, then the live ones (a
    /// stream that ends after the final event); `nil` when there is no such job.
    enum Opening {
        case unknownJob
        case notOwner
        case injectedError(String)
        case stream(replay: [Event], live: AsyncStream<Event>?, close: @Sendable () -> Void)
    }

    func open(_ job: String, identity: Identity, lastEventID: String?) -> Opening {
        let after = lastEventID.flatMap { Int($0) } ?? 0
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(Self.maximumTotal + 1))
        let follower = UUID()
        return state.withLockedValue { state in
            state.streamsOpened += 1
            if !state.injectedErrors.isEmpty { return .injectedError(state.injectedErrors.removeFirst()) }
            guard var entry = state.jobs[job] else { return .unknownJob }
            guard identity == .apiKey || identity == entry.owner else { return .notOwner }
            let replay = entry.events.filter { $0.id > after }
            if entry.isFinished { return .stream(replay: replay, live: nil, close: {}) }
            entry.followers[follower] = continuation
            state.jobs[job] = entry
            return .stream(replay: replay, live: stream, close: { [weak self] in self?.stopFollowing(job, follower) })
        }
    }

    private func stopFollowing(_ job: String, _ follower: UUID) {
        let continuation = state.withLockedValue { $0.jobs[job]?.followers.removeValue(forKey: follower) }
        continuation?.finish()
    }

    // MARK: Faults and observation

    /// The next `count` stream opens get an in-band `error` event with `code`, and end.
    func failNext(_ count: Int, code: String) {
        state.withLockedValue { $0.injectedErrors += Array(repeating: code, count: count) }
    }

    var streamsOpened: Int { state.withLockedValue { $0.streamsOpened } }

    /// When each event of `job` was emitted, by event id.
    func emissionTimes(of job: String) -> [Int: ContinuousClock.Instant] {
        state.withLockedValue { state in
            Dictionary(uniqueKeysWithValues: (state.jobs[job]?.events ?? []).map { ($0.id, $0.emittedAt) })
        }
    }

    var openStreams: Int { state.withLockedValue { $0.jobs.values.reduce(0) { $0 + $1.followers.count } } }

    /// Every open job stream ends abnormally.
    func dropAll() {
        let followers = state.withLockedValue { state -> [AsyncStream<Event>.Continuation] in
            var all: [AsyncStream<Event>.Continuation] = []
            for id in state.jobs.keys {
                all += state.jobs[id]!.followers.values
                state.jobs[id]!.followers.removeAll()
            }
            return all
        }
        for follower in followers { follower.finish() }
    }

    static func wireText(_ event: Event) -> String {
        "id: \(event.id)\nevent: \(event.name)\ndata: \(event.data)\n\n"
    }
}
#endif
