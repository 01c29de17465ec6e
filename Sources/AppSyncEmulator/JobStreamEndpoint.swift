#if Emulator
import Foundation
import Logging
import NIOHTTP1

/// The job endpoints: `POST /api/v2/enrichments` starts a job (`{"total": 3, "outcome":
/// "completed" | "failed"}`, both optional) and answers `202 {"jobId": …}`; `GET
/// /api/v2/enrichments/{jobId}/stream` is the job's own event stream: `progress` events, then
/// `completed` or `failed`, each with an id, after which the response ends. Credentials as for the
/// other endpoints, or a token in the `token` query parameter; `Last-Event-ID` replays what came
/// after it. A job of another user gets an in-band `error` event (`AUTH_FAILURE`), as do the
/// opens `failNextJobStreams` asks for; `refuseNextEventStreams` refuses these opens too.
struct JobStreamEndpoint: Sendable {
    static let prefix = "/api/v2/enrichments"

    let configuration: EmulatorConfiguration
    let jobs: JobStreams
    let refusals: EventStreams
    let authorizer: EmulatorAuthorizer

    /// The answer when `request` is one of the job endpoints; `nil` otherwise.
    func response(to request: EmulatorRequest) async -> EmulatorResponse? {
        guard request.path == Self.prefix || request.path.hasPrefix(Self.prefix + "/") else { return nil }
        if request.method == .POST, request.path == Self.prefix { return await start(request) }
        let parts = request.path.dropFirst(Self.prefix.count + 1).split(separator: "/", omittingEmptySubsequences: false)
        guard request.method == .GET, parts.count == 2, parts[1] == "stream", !parts[0].isEmpty else { return .plain(.notFound, "not found") }
        return await stream(String(parts[0]), request)
    }

    private func identity(of request: EmulatorRequest) async -> Identity? {
        var headers = request.headerFields
        if headers["authorization"] == nil, let token = request.queryValues("token").first { headers["authorization"] = token }
        return await authorizer.identity(headers)
    }

    private func start(_ request: EmulatorRequest) async -> EmulatorResponse {
        guard let identity = await identity(of: request) else { return .plain(.unauthorized, "missing or invalid credentials") }
        let body = (try? JSONSerialization.jsonObject(with: Data(request.body.readableBytesView))) as? [String: Any] ?? [:]
        let total = (body["total"] as? Int) ?? 3
        guard (0...JobStreams.maximumTotal).contains(total) else { return .plain(.badRequest, "total must be 0…\(JobStreams.maximumTotal)") }
        guard let outcome = JobStreams.Outcome(rawValue: (body["outcome"] as? String) ?? "completed") else {
            return .plain(.badRequest, "outcome must be completed or failed")
        }
        let id = jobs.start(total: total, outcome: outcome, step: configuration.jobStepInterval, owner: identity)
        return .complete(.accepted, headers: [("Content-Type", "application/json")], body: ProtocolMessages.json(["jobId": id]))
    }

    private func stream(_ job: String, _ request: EmulatorRequest) async -> EmulatorResponse {
        if let refusal = refusals.takeRefusal() {
            let headers = refusal.retryAfter.map { [("Retry-After", String($0))] } ?? []
            return .complete(HTTPResponseStatus(statusCode: refusal.status), headers: headers, body: "")
        }
        guard let identity = await identity(of: request) else { return .plain(.unauthorized, "missing or invalid credentials") }
        let headers = [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")]
        switch jobs.open(job, identity: identity, lastEventID: request.headerFields["last-event-id"]) {
        case .unknownJob:
            return .plain(.notFound, "no job '\(job)'")
        case .notOwner:
            return Self.inBandError("AUTH_FAILURE", "this job belongs to another user", headers: headers)
        case .injectedError(let code):
            return Self.inBandError(code, "injected by the emulator", headers: headers)
        case .stream(let replay, let live, let close):
            let retry = configuration.eventStreamRetry
            return .stream(headers: headers, body: { writer in
                writer.closed.whenComplete { _ in close() }
                defer { close() }
                let (seconds, attoseconds) = retry.components
                try await writer.write("retry: \(seconds * 1000 + attoseconds / 1_000_000_000_000_000)\n\n")
                for event in replay { try await writer.write(JobStreams.wireText(event)) }
                if replay.last?.isFinal == true { return }
                guard let live else { return }
                for await event in live {
                    try await writer.write(JobStreams.wireText(event))
                    if event.isFinal { return }
                }
                // Followers end without a final event only when dropped (`dropConnections`).
                throw EventStreamDropped()
            })
        }
    }

    private static func inBandError(_ code: String, _ message: String, headers: [(String, String)]) -> EmulatorResponse {
        let data = ProtocolMessages.json(["code": code, "message": message])
        return .stream(headers: headers, body: { writer in try await writer.write("event: error\ndata: \(data)\n\n") })
    }
}
#endif
