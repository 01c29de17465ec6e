import ChannelRuntime
import ChannelTransports
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `HTTPPostClient` on URLSession, the default on Apple platforms. Not offered on Linux, where
/// FoundationNetworking reads an answer ahead without a bound and a 401 with a challenge waits out
/// the deadline: `NIOHTTPPostClient` is the client there.
///
/// - Redirects are not followed: the 3xx answer comes back as it is (and `AppSyncHTTPPublisher`
///   reports it as an error), because following one would send the `x-api-key` or `Authorization`
///   header to whatever host the `Location` names.
/// - At most `maximumResponseBytes` of the answer's body are kept; the request ends there.
/// - `timeout` bounds the whole exchange, so a server trickling its answer cannot hold a publish.
/// - Cancelling the calling task ends the request.
public struct URLSessionPostClient: HTTPPostClient {
    /// The longest answer body kept (64 KiB); a longer one comes back cut at this size.
    public var maximumResponseBytes: Int
    /// Upper bound for the whole request, from connecting to the end of the answer (30 s).
    public var timeout: Duration

    #if canImport(FoundationNetworking)
    @available(*, unavailable, message: "URLSession on Linux (FoundationNetworking) reads answers ahead without a bound; use NIOHTTPPostClient from NIOChannelTransports")
    public init(maximumResponseBytes: Int = 64 * 1024, timeout: Duration = .seconds(30)) {
        self.init(evenOnLinux: maximumResponseBytes, timeout: timeout)
    }
    #else
    /// A client; every request has its own ephemeral session.
    public init(maximumResponseBytes: Int = 64 * 1024, timeout: Duration = .seconds(30)) {
        self.init(evenOnLinux: maximumResponseBytes, timeout: timeout)
    }
    #endif

    /// A client on any platform, Linux included: for this package's tests of the adapter.
    package init(evenOnLinux maximumResponseBytes: Int = 64 * 1024, timeout: Duration = .seconds(30)) {
        self.maximumResponseBytes = maximumResponseBytes
        self.timeout = timeout
    }

    /// Posts `body` to `url` and returns the status and body of the answer, a redirect included.
    public func post(_ url: URL, headers: [String: String], body: Data) async throws -> (status: Int, body: Data) {
        guard ["http", "https"].contains(url.scheme?.lowercased()), url.host?.isEmpty == false else {
            throw HTTPPostError.invalidURL(url.absoluteString)
        }
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.httpBody = body
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        // `timeout` below decides; URLSession's own (idle on Apple platforms, whole request on Linux)
        // only backs it up.
        request.timeoutInterval = Double(timeout.components.seconds) + 5
        let streaming = StreamingRequest(request, bodyCapacity: maximumResponseBytes)
        let timeout = self.timeout
        return try await withThrowingTaskGroup(of: Void.self) { deadline in
            // The deadline is a child: it ends the request (whose delegate callbacks run outside
            // this task) when `timeout` passed, and is cancelled once the exchange is over.
            deadline.addTask {
                do { try await Task.sleep(for: timeout) } catch { return }
                streaming.cancel(HTTPPostError.timedOut(timeout))
            }
            defer { deadline.cancelAll() }
            return try await exchange(streaming)
        }
    }

    /// Starts `streaming` and reads its answer, at most `maximumResponseBytes` of it.
    private func exchange(_ streaming: StreamingRequest) async throws -> (status: Int, body: Data) {
        let response: HTTPURLResponse
        do {
            response = try await streaming.start()
        } catch {
            throw postError(error)
        }
        var answer = Data()
        while let chunk = await withTaskCancellationHandler(
            operation: { await streaming.nextChunk() }, onCancel: { streaming.cancel(CancellationError()) }
        ) {
            answer.append(contentsOf: chunk.prefix(maximumResponseBytes - answer.count))
            if answer.count >= maximumResponseBytes {
                streaming.cancel(CancellationError())
                break
            }
        }
        if answer.count < maximumResponseBytes, let failure = streaming.failure {
            throw postError(failure)
        }
        return (response.statusCode, answer)
    }

    /// What a failed request throws: the client's own errors as they are, cancellation as
    /// cancellation, URLSession's time-out as `timedOut`, anything else as an ended connection.
    private func postError(_ error: any Error) -> any Error {
        if Task.isCancelled || error is CancellationError { return CancellationError() }
        if let error = error as? HTTPPostError { return error }
        if (error as? URLError)?.code == .timedOut { return HTTPPostError.timedOut(timeout) }
        return HTTPPostError.closedBeforeResponse
    }
}
