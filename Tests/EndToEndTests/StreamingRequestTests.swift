import ChannelRuntime
import ChannelRuntimeTesting
import ChannelTransports
import Foundation
import Testing
@testable import URLSessionChannelTransports
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("URLSession tasks cancelled before they start")
struct StreamingRequestTests {
    /// A publish whose deadline fired before its URLSession task existed failed with the time-out,
    /// but the task was then started anyway: a request nobody waited for, its socket open until
    /// URLSession's own time-out. Now the cancel holds and the task never runs.
    @Test func aRequestCancelledBeforeItStartsNeverRuns() async throws {
        // Accepts and never answers: a request that went out would stay running.
        let server = try await ScriptedServer.start(closing: false) { _ in [] }
        let request = StreamingRequest(URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)/event")!), bodyCapacity: 1024)
        request.cancel(HTTPPostError.timedOut(.zero))
        await #expect(throws: HTTPPostError.timedOut(.zero)) { try await request.start() }
        #expect(request.taskState != .running)
        await server.stop()
    }

    /// The same race in the WebSocket adapter: a connect cancelled before its task existed threw,
    /// and the task was started anyway, its session never invalidated. Apple platforms only:
    /// FoundationNetworking's WebSocket task fails at once on Linux, so there it ends either way
    /// (`URLSessionWebSocketSessionTests` runs the same with a scripted task everywhere).
    @Test(.enabled(if: ServerInputBoundsTests.isApplePlatform, "FoundationNetworking's WebSocket task fails at once"))
    func aWebSocketAbortedBeforeItOpensNeverRuns() async throws {
        let server = try await ScriptedServer.start(closing: false) { _ in [] }
        let socket = URLSessionWebSocketSession(requiredSubprotocol: nil)
        socket.abort()
        let url = URL(string: "ws://127.0.0.1:\(server.port)/event")!
        await #expect(throws: CancellationError.self) { try await socket.open(url, subprotocols: [], maximumMessageSize: 1024, makeTask: URLSessionWebSocketTransport.urlSessionTask, tasks: .standalone) }
        #expect(socket.taskState != .running)
        await server.stop()
    }
}
