import ChannelRuntime
import ChannelTransports
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP request read through URLSession's delegate: the response head once, then the body chunk
/// by chunk as its reader asks. Delegate-based, so it runs where `bytes(for:)` is missing; its own
/// session, so a redirect is refused (the 3xx comes back as the answer and credentials stay with
/// the host they were meant for) and nothing outlives the request.
///
/// The body held for the reader is bounded: past `bodyCapacity` bytes the task is suspended (URLSession
/// stops reading the socket where it honours that; not on Linux, where FoundationNetworking traps when
/// a suspend races its own reading, `NativeProtocol.swift:69`), and past twice that the request is
/// cancelled and the body ends after what was held. A server sending faster than its reader costs this bound here;
/// FoundationNetworking on Linux also reads ahead of the delegate without a bound of its own (a
/// flooding server got ~140 MB out before a cancel took effect), one reason NIO is the default there.
final class StreamingRequest: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked: the mutable state is in `state`, behind its lock. URLSession is never called with
    // the lock held (its delegate callbacks take the lock).
    private struct State {
        var head: CheckedContinuation<HTTPURLResponse, any Error>?
        var headOutcome: Result<HTTPURLResponse, any Error>?
        var chunks: [[UInt8]] = []
        var bufferedBytes = 0
        var suspended = false
        var ended = false
        /// Why the request ended early (cancelled, timed out, the body over its bound); `nil` when it
        /// ended as the server ended it.
        var failure: (any Error)?
        var reader: CheckedContinuation<[UInt8]?, Never>?
        /// The answer was a challenge's 401 (or 407): the task's error for the declined challenge
        /// is not a failure of the exchange.
        var answeredByChallenge = false
    }

    private let state = LockedValue(State())
    private let bodyCapacity: Int
    #if canImport(Darwin)
    private static let suspendsWhenFull = true
    #else
    private static let suspendsWhenFull = false
    #endif
    private let request: URLRequest
    private let configuration: URLSessionConfiguration
    private let task = LockedValue<(session: URLSession, task: URLSessionDataTask)?>(nil)

    init(_ request: URLRequest, configuration: URLSessionConfiguration = .ephemeral, bodyCapacity: Int) {
        self.request = request
        self.configuration = configuration
        self.bodyCapacity = max(1, bodyCapacity)
    }

    /// Sends the request and returns the response head. Cancelling the calling task cancels the request.
    func start() async throws -> HTTPURLResponse {
        let session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
        let dataTask = session.dataTask(with: request)
        task.withLock { $0 = (session, dataTask) }
        // A `cancel` that came before the task existed found nothing to cancel: this one keeps the
        // request from going out.
        if state.withLock({ $0.ended }) { cancelTask() } else { dataTask.resume() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let outcome: Result<HTTPURLResponse, any Error>? = state.withLock { state in
                    if let outcome = state.headOutcome { return outcome }
                    state.head = continuation
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            cancel(CancellationError())
        }
    }

    /// The next body chunk; `nil` once the body ended, normally or not (`failure` tells which).
    func nextChunk() async -> [UInt8]? {
        await withCheckedContinuation { continuation in
            let (ready, resume) = state.withLock { state -> ([UInt8]??, Bool) in
                guard !state.chunks.isEmpty else {
                    if state.ended { return (.some(nil), false) }
                    state.reader = continuation
                    return (nil, false)
                }
                let chunk = state.chunks.removeFirst()
                state.bufferedBytes -= chunk.count
                let resume = state.suspended && state.bufferedBytes <= bodyCapacity / 2
                if resume { state.suspended = false }
                return (.some(chunk), resume)
            }
            if resume { task.withLock { $0?.task }?.resume() }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Why the body ended early, if it did.
    var failure: (any Error)? { state.withLock { $0.failure } }

    /// The URLSession task's state, once `start()` made it.
    var taskState: URLSessionTask.State? { task.withLock { $0?.task.state } }

    /// Ends the request now: the socket closes, a waiting `start()` throws `error`, the body ends
    /// (with `keepingBuffered`, after the chunks already received).
    func cancel(_ error: any Error, keepingBuffered: Bool = false) {
        end(failure: error, keepingBuffered: keepingBuffered)
        cancelTask()
    }

    private func cancelTask() {
        guard let (session, task) = task.withLock({ $0 }) else { return }
        task.cancel()
        // The session's one task is cancelled: invalidating after it is all that is left.
        // (`invalidateAndCancel` reads FoundationNetworking's task registry off its queue and can
        // trap while the cancelled task leaves it.)
        session.finishTasksAndInvalidate()
    }

    private func end(failure: (any Error)?, keepingBuffered: Bool = false) {
        let (head, reader) = state.withLock { state -> (CheckedContinuation<HTTPURLResponse, any Error>?, CheckedContinuation<[UInt8]?, Never>?) in
            guard !state.ended else { return (nil, nil) }
            state.ended = true
            state.failure = failure
            if failure != nil, !keepingBuffered {
                state.chunks = []
                state.bufferedBytes = 0
            }
            if state.headOutcome == nil {
                state.headOutcome = .failure(failure ?? EventStreamTransportError.closedBeforeResponse)
            }
            defer { state.head = nil; state.reader = nil }
            return (state.head, state.reader)
        }
        head?.resume(throwing: failure ?? EventStreamTransportError.closedBeforeResponse)
        reader?.resume(returning: nil)
    }

    // MARK: URLSession's delegate

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        guard let response = response as? HTTPURLResponse else {
            completionHandler(.cancel)
            return
        }
        // FoundationNetworking hands over informational heads (100, 103) as responses; the answer follows.
        guard response.statusCode >= 200 else {
            completionHandler(.allow)
            return
        }
        deliverHead(response)
        completionHandler(.allow)
    }

    private func deliverHead(_ response: HTTPURLResponse) {
        let head = state.withLock { state -> CheckedContinuation<HTTPURLResponse, any Error>? in
            guard state.headOutcome == nil else { return nil }
            state.headOutcome = .success(response)
            defer { state.head = nil }
            return state.head
        }
        head?.resume(returning: response)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        enum Next { case none, suspend, overflow }
        let (reader, next) = state.withLock { state -> (CheckedContinuation<[UInt8]?, Never>?, Next) in
            guard !state.ended else { return (nil, .none) }
            if let reader = state.reader {
                state.reader = nil
                return (reader, .none)
            }
            state.chunks.append([UInt8](data))
            state.bufferedBytes += data.count
            if state.bufferedBytes > 2 * bodyCapacity { return (nil, .overflow) }
            if state.bufferedBytes > bodyCapacity, !state.suspended, Self.suspendsWhenFull {
                state.suspended = true
                return (nil, .suspend)
            }
            return (nil, .none)
        }
        reader?.resume(returning: [UInt8](data))
        switch next {
        case .none: break
        case .suspend: dataTask.suspend()
        case .overflow: cancel(StreamingRequestError.bodyOverBound(2 * bodyCapacity), keepingBuffered: true)
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        end(failure: state.withLock { $0.answeredByChallenge } ? nil : error)
        session.finishTasksAndInvalidate()
    }

    /// A server's `WWW-Authenticate` challenge gets no credential: its 401 is the answer, at once
    /// (FoundationNetworking otherwise waited out the deadline, and ends the task without the answer
    /// when the challenge is declined). Server trust is left to the system.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        #if canImport(Darwin)
        if challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodServerTrust {
            return completionHandler(.performDefaultHandling, nil)
        }
        #endif
        // FoundationNetworking makes these challenges only from a 401 (a 407 for a proxy) and may
        // not keep the response itself.
        let status = challenge.protectionSpace.isProxy() ? 407 : 401
        if let response = (challenge.failureResponse as? HTTPURLResponse)
            ?? task.originalRequest?.url.flatMap({ HTTPURLResponse(url: $0, statusCode: status, httpVersion: "HTTP/1.1", headerFields: [:]) }) {
            state.withLock { $0.answeredByChallenge = true }
            deliverHead(response)
        }
        completionHandler(.cancelAuthenticationChallenge, nil)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}

/// Why a URLSession request ended before its body did.
enum StreamingRequestError: Error, CustomStringConvertible {
    /// More than this many body bytes waited for a reader that did not take them.
    case bodyOverBound(Int)

    var description: String {
        switch self {
        case .bodyOverBound(let bytes): return "more than \(bytes) bytes of the body waited unread; the request was ended"
        }
    }
}

extension HTTPURLResponse {
    /// Header fields with lowercased names, as `EventStreamResponse` carries them.
    var lowercasedHeaderFields: [String: String] {
        var fields: [String: String] = [:]
        for (name, value) in allHeaderFields {
            guard let name = name as? String, let value = value as? String else { continue }
            let key = name.lowercased()
            fields[key] = fields[key].map { "\($0), \(value)" } ?? value
        }
        return fields
    }
}
