import ChannelRuntime
import Testing

/// How each attempt to connect ends, as the machine counts it for the rollout metrics: one success
/// or one failure of one class, decided where the machine learns it; synchronous, no clock.
@Suite("Connect outcomes")
struct ConnectOutcomeTests {
    typealias Machine = ConnectionStateMachine
    typealias Metric = ConnectionStateMachine.Metric

    static func session(_ value: Int) -> Machine.SessionID { Machine.SessionID(value: value) }

    /// The connect outcomes among `actions`.
    static func outcomes(_ actions: [Machine.Action]) -> [Metric] {
        actions.compactMap { action in
            switch action {
            case .count(let metric) where metric == .connectSucceeded: metric
            case .count(let metric):
                if case .connectFailed = metric { metric } else { nil }
            default: nil
            }
        }
    }

    @Test func eachAttemptEndsAsOneSuccessOrOneFailureOfItsClass() {
        var machine = Machine(settings: ConnectionStateMachineTests.settings)
        _ = machine.start()
        // Session 1: the transport does not open.
        #expect(Self.outcomes(machine.transportFailed(Self.session(1), "connection refused")) == [.connectFailed(.network)])
        // Session 2: the open takes longer than the connect timeout.
        _ = machine.timerFired(.reconnect)
        #expect(Self.outcomes(machine.timerFired(.connect)) == [.connectFailed(.timedOut)])
        // Session 3: open, but no acceptance in time; the close that follows is not a second failure.
        _ = machine.timerFired(.reconnect)
        _ = machine.transportOpened(Self.session(3))
        #expect(Self.outcomes(machine.timerFired(.connect)) == [.connectFailed(.timedOut)])
        #expect(Self.outcomes(machine.transportClosed(Self.session(3), .dropped)) == [])
        // Session 4: the peer closes before accepting.
        _ = machine.timerFired(.reconnect)
        _ = machine.transportOpened(Self.session(4))
        #expect(Self.outcomes(machine.transportClosed(Self.session(4), .closed(code: 1011, reason: ""))) == [.connectFailed(.network)])
        // Session 5: the service refuses for now (HTTP 503).
        _ = machine.timerFired(.reconnect)
        _ = machine.transportOpened(Self.session(5))
        let unavailable = [ServiceError(errorType: "HTTPStatus", message: "HTTP 503", code: "503")]
        #expect(Self.outcomes(machine.sessionRefused(Self.session(5), .retryable(unavailable))) == [.connectFailed(.serverError)])
        #expect(Self.outcomes(machine.transportClosed(Self.session(5), .dropped)) == [])
        // Session 6: accepted, once; what ends it later is no connect failure.
        _ = machine.timerFired(.reconnect)
        _ = machine.transportOpened(Self.session(6))
        #expect(Self.outcomes(machine.sessionAccepted(Self.session(6), keepAliveTimeout: nil)) == [.connectSucceeded])
        #expect(Self.outcomes(machine.sessionAccepted(Self.session(6), keepAliveTimeout: nil)) == [])
        #expect(Self.outcomes(machine.sessionRefused(Self.session(6), .retryable([]))) == [])
        #expect(Self.outcomes(machine.transportClosed(Self.session(6), .dropped)) == [])
        // Session 7: the transport's own connect limit ran out before the connect timer.
        _ = machine.timerFired(.reconnect)
        let timedOut = machine.transportTimedOut(Self.session(7))
        #expect(Self.outcomes(timedOut) == [.connectFailed(.timedOut)])
        #expect(timedOut.contains(.cancelTimer(.connect)))
        guard case .reconnecting(_, let reason) = machine.state else {
            Issue.record("not reconnecting: \(machine.state)")
            return
        }
        #expect(reason == .timedOut)
    }

    /// A wrong key: refused, tried once more with fresh credentials, refused again: two failures.
    @Test func aRefusedCredentialIsTwoUnauthorizedFailures() {
        var machine = Machine(settings: ConnectionStateMachineTests.settings)
        _ = machine.start()
        var outcomes: [Metric] = []
        for session in 1...2 {
            _ = machine.transportOpened(Self.session(session))
            outcomes += Self.outcomes(machine.sessionRefused(Self.session(session), .unauthorized(ConnectionStateMachineTests.refusal)))
            outcomes += Self.outcomes(machine.transportClosed(Self.session(session), .dropped))
        }
        #expect(outcomes == [.connectFailed(.unauthorized), .connectFailed(.unauthorized)])
        #expect(machine.state == .failed(.unauthorized(ConnectionStateMachineTests.refusal)))
    }

    @Test(arguments: [
        (Machine.Refusal.unauthorized([ServiceError(errorType: "UnauthorizedException", message: "no", code: "401")]), ConnectFailureClass.unauthorized),
        (.unauthorized([ServiceError(errorType: "HTTPStatus", message: "HTTP 403", code: "403")]), .forbidden),
        (.unauthorized([]), .unauthorized),
        (.unauthorized([ServiceError(errorType: "UnauthorizedException", message: nil)]), .unauthorized),
        (.rejected([ServiceError(errorType: "HTTPStatus", message: "HTTP 404", code: "404")]), .notFound),
        (.rejected([ServiceError(errorType: "NOT_FOUND", message: "no such job")]), .notFound),
        (.retryable([ServiceError(errorType: "HTTPStatus", message: nil, code: "429")], retryAfter: .seconds(5)), .rateLimited),
        (.retryable([ServiceError(errorType: "ThrottlingException", message: "Rate exceeded")]), .rateLimited),
        (.retryable([ServiceError(errorType: "HTTPStatus", message: nil, code: "502")]), .serverError),
        (.retryable([ServiceError(errorType: "InternalFailure", message: nil)]), .serverError),
        (.rejected([ServiceError(errorType: "BadRequestException", message: nil, code: "400")]), .refused),
        (.retryable([]), .refused),
        // The status code wins over the type; a code that is no number leaves the type to say.
        (.retryable([ServiceError(errorType: "UnauthorizedException", message: nil, code: "429")]), .rateLimited),
        (.unauthorized([ServiceError(errorType: "ForbiddenException", message: nil, code: "E_DENIED")]), .forbidden),
        // The first error that names a class names it.
        (.rejected([ServiceError(errorType: "Other", message: nil), ServiceError(errorType: "HTTPStatus", message: nil, code: "404")]), .notFound),
    ])
    func aRefusalIsClassedByItsCodeThenItsType(refusal: Machine.Refusal, expected: ConnectFailureClass) {
        #expect(ConnectFailureClass(refusal) == expected)
    }

    @Test func theClassesAreTheDimensionValuesADashboardFilters() {
        #expect(ConnectFailureClass.allCases.map(\.rawValue) == [
            "unauthorized", "forbidden", "not_found", "rate_limited", "server_error", "refused", "network", "timed_out",
        ])
    }
}
