import ChannelTransports
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import ChannelRuntime
import NIOSSL

/// The default `HTTPPostClient`: one HTTP/1.1 `POST` on SwiftNIO (TLS for `https`) whose answer is
/// bounded in size and time, whatever the server does.
///
/// - At most `maximumResponseBytes` of the answer's body are kept; the rest is not read (the socket
///   is closed). A publish result or an error list is a few hundred bytes.
/// - `timeout` bounds the whole exchange (connect, send, answer), not just the silence between bytes,
///   so a server trickling its answer cannot hold a publish.
/// - Redirects are answers, not followed: credentials never go to another host.
/// - Cancelling the calling task closes the socket at once.
public struct NIOHTTPPostClient: HTTPPostClient {
    /// TLS for `https` URLs; the default verifies the server against the system's trust roots.
    public var tlsConfiguration: TLSConfiguration
    /// The longest answer body kept (64 KiB); a longer one comes back cut at this size.
    public var maximumResponseBytes: Int
    /// Upper bound for the whole request, from connecting to the end of the answer (30 s).
    public var timeout: Duration

    /// A client; `tlsConfiguration` replaces the system trust roots for `https` servers.
    public init(tlsConfiguration: TLSConfiguration = .makeClientConfiguration(), maximumResponseBytes: Int = 64 * 1024, timeout: Duration = .seconds(30)) {
        self.tlsConfiguration = tlsConfiguration
        self.maximumResponseBytes = maximumResponseBytes
        self.timeout = timeout
    }

    public func post(_ url: URL, headers: [String: String], body: Data) async throws -> (status: Int, body: Data) {
        guard let target = HTTPClientTarget(url) else { throw HTTPPostError.invalidURL(url.absoluteString) }
        let deadline = NIODeadline.now() + TimeAmount(timeout)
        let channel: NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>
        do {
            channel = try await target.connect(tlsConfiguration: tlsConfiguration, connectTimeout: timeout)
        } catch ChannelError.connectTimeout {
            // The deadline is the whole exchange's: running out while connecting is the same time-out.
            throw HTTPPostError.timedOut(timeout)
        }
        let nioChannel = channel.channel
        let timedOut = NIOLockedValueBox(false)
        let deadlineTask = nioChannel.eventLoop.scheduleTask(deadline: deadline) {
            timedOut.withLockedValue { $0 = true }
            nioChannel.close(promise: nil)
        }
        defer { deadlineTask.cancel() }

        var head = target.requestHead(.POST, headers: headers.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) })
        head.headers.replaceOrAdd(name: "Content-Length", value: String(body.count))
        head.headers.replaceOrAdd(name: "Connection", value: "close")
        let limit = maximumResponseBytes

        let answer: (status: Int, body: Data)?
        do {
            answer = try await withTaskCancellationHandler {
                try await channel.executeThenClose { inbound, outbound -> (status: Int, body: Data)? in
                    do {
                        try await outbound.write(contentsOf: [.head(head), .body(.byteBuffer(ByteBuffer(bytes: body))), .end(nil)])
                    } catch {
                        // The server answered and closed before taking the whole request; its answer decides.
                    }
                    var status: Int?
                    var received = Data()
                    for try await part in inbound {
                        switch part {
                        case .head(let responseHead):
                            if status == nil, responseHead.status.code >= 200 { status = Int(responseHead.status.code) }
                        case .body(var buffer):
                            guard status != nil else { continue }
                            let take = min(buffer.readableBytes, limit - received.count)
                            received.append(contentsOf: buffer.readBytes(length: take) ?? [])
                            // Enough is kept: the rest is not read, the socket closes on return.
                            if buffer.readableBytes > 0 { return (status!, received) }
                        case .end:
                            if let status { return (status, received) }
                        }
                    }
                    return status.map { ($0, received) }
                }
            } onCancel: {
                nioChannel.close(promise: nil)
            }
        } catch {
            if Task.isCancelled { throw CancellationError() }
            if timedOut.withLockedValue({ $0 }) { throw HTTPPostError.timedOut(timeout) }
            throw error
        }
        if Task.isCancelled { throw CancellationError() }
        if timedOut.withLockedValue({ $0 }) { throw HTTPPostError.timedOut(timeout) }
        guard let answer else { throw HTTPPostError.closedBeforeResponse }
        return answer
    }
}
