import AppSyncRuntime
import ChannelRuntime
import ChannelRuntimeTesting
import ChannelTransports
import Foundation
import Testing
@testable import URLSessionChannelTransports
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The URLSession WebSocket adapter's logic — the default on Apple platforms, whose task cannot
/// connect on Linux — against a scripted task (issue 45): connect and the subprotocol check, the
/// receive loop, close codes, close, abort and cancel, pings, the message size limit.
@Suite("URLSession WebSocket adapter, scripted task")
struct URLSessionWebSocketSessionTests {
    static let url = URL(string: "wss://abc.appsync-realtime-api.eu-west-1.amazonaws.com/event/realtime")!

    /// A transport whose tasks are `tasks`' fakes, in order.
    static func transport(_ tasks: FakeTasks, maximumMessageSize: Int = 1 << 21) -> URLSessionWebSocketTransport {
        var transport = URLSessionWebSocketTransport(evenOnLinux: maximumMessageSize)
        transport.makeTask = { _, _, delegate in tasks.make(delegate) }
        return transport
    }

    /// Connects, answering the upgrade with `chosen`.
    static func connect(_ tasks: FakeTasks, chosen: String? = "aws-appsync-event-ws") async throws -> (any WebSocketSession, FakeWebSocketTask) {
        let connecting = Task { try await transport(tasks).connect(to: url, subprotocols: ["aws-appsync-event-ws", "header-abc"]) }
        let task = try await tasks.next()
        try await task.untilResumed()
        task.delegate?.opened(withProtocol: chosen)
        return (try await connecting.value, task)
    }

    @Test func connectsWhenTheUpgradeChoosesTheSubprotocolAndPassesTheSizeLimit() async throws {
        let tasks = FakeTasks()
        let connecting = Task { try await Self.transport(tasks, maximumMessageSize: 4096).connect(to: Self.url, subprotocols: ["aws-appsync-event-ws"]) }
        let task = try await tasks.next()
        try await task.untilResumed()
        #expect(task.maximumMessageSize == 4096)
        task.delegate?.opened(withProtocol: "aws-appsync-event-ws")
        _ = try await connecting.value
    }

    @Test func anUpgradeChoosingAnotherSubprotocolIsRefusedAndTheTaskCancelled() async throws {
        let tasks = FakeTasks()
        let connecting = Task { try await Self.transport(tasks).connect(to: Self.url, subprotocols: ["aws-appsync-event-ws", "header-abc"]) }
        let task = try await tasks.next()
        try await task.untilResumed()
        task.delegate?.opened(withProtocol: "graphql-ws")
        await #expect(throws: WebSocketSubprotocolMismatch.self) { try await connecting.value }
        #expect(task.wasCancelled)
        #expect(task.invalidated)
    }

    @Test func aTaskThatFailsBeforeOpeningFailsTheConnect() async throws {
        let tasks = FakeTasks()
        let connecting = Task { try await Self.transport(tasks).connect(to: Self.url, subprotocols: ["aws-appsync-event-ws"]) }
        let task = try await tasks.next()
        task.delegate?.completed(error: URLError(.cannotConnectToHost))
        await #expect(throws: URLError.self) { try await connecting.value }
    }

    /// A cancelled connect cancels its task; one cancelled before its task existed never starts it.
    @Test func anAbortBeforeTheTaskExistsKeepsItFromRunning() async throws {
        let socket = URLSessionWebSocketSession(requiredSubprotocol: nil)
        socket.abort()
        let tasks = FakeTasks()
        await #expect(throws: CancellationError.self) {
            try await socket.open(Self.url, subprotocols: [], maximumMessageSize: 1024, makeTask: { _, _, delegate in tasks.make(delegate) }, tasks: .standalone)
        }
        let task = try await tasks.next()
        #expect(!task.wasResumed)
        #expect(task.wasCancelled)
        #expect(task.invalidated)
    }

    /// Also a regression test: the delegate's close callback ended `inbound` at once, so messages the
    /// server sent just before its close frame, still on their way to the receive loop, were lost.
    @Test func textFramesArriveBinaryOnesAreSkippedAndTheServersCloseIsKept() async throws {
        let tasks = FakeTasks()
        let (session, task) = try await Self.connect(tasks)
        task.serverSends(.string("one"))
        task.serverSends(.data(Data([1, 2, 3])))
        task.serverSends(.string("two"))
        task.serverCloses(code: .goingAway, reason: "maintenance")
        var received: [String] = []
        for await text in session.inbound { received.append(text) }
        #expect(received == ["one", "two"])
        #expect(session.peerClose == WebSocketClose(code: 1001, reason: "maintenance"))
        #expect(task.invalidated)
    }

    /// Issue 44: the receive loop took messages from the task as fast as URLSession handed them
    /// over, whatever the connection had not read yet. It stops past 4 MiB waiting and goes on as
    /// the connection reads; nothing is lost.
    @Test func theReceiveLoopStopsTakingMessagesWhileMoreThan4MiBWait() async throws {
        let tasks = FakeTasks()
        let (session, task) = try await Self.connect(tasks)
        let rest = String(repeating: "x", count: (1 << 20) - 1)
        for index in 0..<10 { task.serverSends(.string("\(index)" + rest)) }  // 1 MiB each
        let reader = try #require((session as? any BatchedInboundSession)?.inboundReader)
        try await waitFor("the receive loop to wait for room") { reader.buffered.writerWaits }
        #expect(task.receivedCount == 5)  // 5 MiB wait: no sixth is taken
        var received: [String] = []
        var messages = session.inbound.makeAsyncIterator()
        while received.count < 10, let text = await messages.next() { received.append(String(text.prefix(1))) }
        #expect(received == (0..<10).map { "\($0)" })
        session.abort()
    }

    @Test func aDropWithoutACloseFrameReportsNone() async throws {
        let tasks = FakeTasks()
        let (session, task) = try await Self.connect(tasks)
        task.serverDrops()
        for await _ in session.inbound {}
        #expect(session.peerClose == nil)
    }

    @Test func closeSendsANormalCloseAndAbortCancels() async throws {
        let tasks = FakeTasks()
        let (session, task) = try await Self.connect(tasks)
        try await session.send("hello")
        #expect(task.sentTexts == ["hello"])
        await session.close()
        #expect(task.closedWith == .normalClosure)
        await #expect(throws: (any Error).self) { try await session.send("late") }

        let (other, otherTask) = try await Self.connect(tasks)
        other.abort()
        #expect(otherTask.wasCancelled)
        for await _ in other.inbound {}  // finished
    }

    @Test func aPingReturnsWithThePongAndFailsWithoutOne() async throws {
        let tasks = FakeTasks()
        let (session, task) = try await Self.connect(tasks)
        try await session.ping()
        task.pongs = false
        await #expect(throws: URLError.self) { try await session.ping() }
        #expect(task.pingCount == 2)
    }

    /// The whole AppSync protocol through the adapter: the handshake, a subscription, an event, the
    /// server's normal close ending the connection (issue 45's close codes on this adapter too).
    @Test func anAppSyncConnectionRunsOverTheAdapter() async throws {
        let tasks = FakeTasks()
        let endpoint = try ChannelEndpoint(http: "https://abc.appsync-api.eu-west-1.amazonaws.com/event")
        var configuration = AppSyncConfiguration(endpoint: endpoint, authorization: .apiKey("da2-key"))
        configuration.allowForLoadedMachines()  // a connect timeout would make a new task the test never takes
        let connection = AppSyncConnection(configuration: configuration, transport: Self.transport(tasks))
        let subscription = try await connection.subscribe(to: "default/channel")
        await connection.start()
        let task = try await tasks.next()
        try await task.untilResumed()
        task.delegate?.opened(withProtocol: "aws-appsync-event-ws")
        try await task.untilSent(containing: #""connection_init""#)
        task.serverSends(.string(#"{"type":"connection_ack","connectionTimeoutMs":300000}"#))
        try await task.untilSent(containing: #""subscribe""#)
        let subscribe = try #require(task.sentTexts.first { $0.contains(#""subscribe""#) })
        let id = try #require((try JSONSerialization.jsonObject(with: Data(subscribe.utf8)) as? [String: Any])?["id"] as? String)
        task.serverSends(.string(#"{"type":"subscribe_success","id":"\#(id)"}"#))
        task.serverSends(.string(#"{"type":"data","id":"\#(id)","event":"{\"n\":1}"}"#))
        var events = subscription.events.makeAsyncIterator()
        #expect(await events.next()?.text == #"{"n":1}"#)
        task.serverCloses(code: .normalClosure, reason: "bye")
        try await untilPublished(by: connection, "closed") { await connection.state == .closed(.closed(code: 1000, reason: "bye")) }
        await connection.disconnect()
    }
}

/// Hands out fake tasks and lets the test take each as it is made.
final class FakeTasks: Sendable {
    private let made = Watched<(tasks: [FakeWebSocketTask], taken: Int)>(([], 0))

    func make(_ delegate: URLSessionWebSocketSession) -> (task: any WebSocketTask, invalidate: @Sendable () -> Void) {
        let task = FakeWebSocketTask(delegate: delegate)
        made.update { $0.tasks.append(task) }
        return (task, { task.invalidate() })
    }

    /// The next task the adapter makes, awaited.
    func next() async throws -> FakeWebSocketTask {
        try await made.take("a task") { made in
            guard made.tasks.count > made.taken else { return nil }
            defer { made.taken += 1 }
            return made.tasks[made.taken]
        }
    }
}

/// A `URLSessionWebSocketTask` as the test scripts it: what the server sends, how it closes,
/// whether it answers pings; what the adapter did to it.
final class FakeWebSocketTask: WebSocketTask, @unchecked Sendable {
    // @unchecked: every mutable property is guarded by `lock`.
    private let lock = NSLock()
    private(set) weak var delegate: URLSessionWebSocketSession?
    private let messages: AsyncStream<URLSessionWebSocketTask.Message>
    private let server: AsyncStream<URLSessionWebSocketTask.Message>.Continuation
    private var _maximumMessageSize = 0
    private var _closeCode = URLSessionWebSocketTask.CloseCode.invalid
    private var _closeReason: Data?
    private var _state = URLSessionTask.State.suspended
    /// Whether the adapter resumed the task, and the texts it sent: for a test to read or await.
    private let progress = Watched<(resumed: Bool, sent: [String])>((false, []))
    private var _closedWith: URLSessionWebSocketTask.CloseCode?
    private var _cancelled = false
    private var _invalidated = false
    private var _pings = 0
    private var _pongs = true
    private var _received = 0

    init(delegate: URLSessionWebSocketSession) {
        self.delegate = delegate
        (messages, server) = AsyncStream.makeStream()
    }

    var maximumMessageSize: Int {
        get { lock.withLock { _maximumMessageSize } }
        set { lock.withLock { _maximumMessageSize = newValue } }
    }
    var closeCode: URLSessionWebSocketTask.CloseCode { lock.withLock { _closeCode } }
    var closeReason: Data? { lock.withLock { _closeReason } }
    var state: URLSessionTask.State { lock.withLock { _state } }
    var wasResumed: Bool { progress.value.resumed }
    var wasCancelled: Bool { lock.withLock { _cancelled } }
    var invalidated: Bool { lock.withLock { _invalidated } }
    var sentTexts: [String] { progress.value.sent }

    /// Returns once the adapter has resumed the task.
    func untilResumed() async throws { try await progress.wait("the task resumed") { $0.resumed } }

    /// Returns once the adapter has sent a text containing `fragment`.
    func untilSent(containing fragment: String) async throws {
        try await progress.wait("a text containing \(fragment)") { $0.sent.contains { $0.contains(fragment) } }
    }
    var closedWith: URLSessionWebSocketTask.CloseCode? { lock.withLock { _closedWith } }
    var pingCount: Int { lock.withLock { _pings } }
    /// Messages the adapter took from the task.
    var receivedCount: Int { lock.withLock { _received } }
    var pongs: Bool {
        get { lock.withLock { _pongs } }
        set { lock.withLock { _pongs = newValue } }
    }

    func resume() {
        lock.withLock { _state = .running }
        progress.update { $0.resumed = true }
    }

    func cancel() {
        lock.withLock {
            _cancelled = true
            _state = .canceling
        }
        server.finish()
    }

    func cancel(with closeCode: URLSessionWebSocketTask.CloseCode, reason: Data?) {
        lock.withLock { _closedWith = closeCode }
        cancel()
    }

    func send(_ message: URLSessionWebSocketTask.Message) async throws {
        try lock.withLock {
            guard !_cancelled else { throw URLError(.cancelled) }
        }
        if case .string(let text) = message { progress.update { $0.sent.append(text) } }
    }

    func receive() async throws -> URLSessionWebSocketTask.Message {
        for await message in messages {
            lock.withLock { _received += 1 }
            return message
        }
        throw URLError(.networkConnectionLost)
    }

    func ping() async throws {
        try lock.withLock {
            _pings += 1
            guard _pongs else { throw URLError(.timedOut) }
        }
    }

    func invalidate() { lock.withLock { _invalidated = true } }

    // MARK: The server

    func serverSends(_ message: URLSessionWebSocketTask.Message) { server.yield(message) }

    /// A close frame: the task's code and reason are set, reading fails, the delegate is told.
    func serverCloses(code: URLSessionWebSocketTask.CloseCode, reason: String) {
        lock.withLock {
            _closeCode = code
            _closeReason = Data(reason.utf8)
        }
        server.finish()
        delegate?.closed(code: code, reason: Data(reason.utf8))
    }

    /// The connection ends without a close frame.
    func serverDrops() {
        server.finish()
        delegate?.completed(error: URLError(.networkConnectionLost))
    }
}
