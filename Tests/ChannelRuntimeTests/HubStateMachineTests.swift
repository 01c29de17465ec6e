@testable import ChannelRuntime
import Testing

/// The hub's decisions, one value, no tasks and no connection: routing, the user switch, stale
/// answers, resubscribes and `.resumed`, statuses and delivery problems, the final event.
@Suite("Hub state machine")
struct HubStateMachineTests {
    typealias Machine = HubStateMachine

    /// `user/{userId}/ping`, as the parameters name it.
    static let ping = Machine.Address(
        channel: { try ChannelTemplate("user/{userId}/ping").channel($0) }, request: ChannelRequest(channel: ""))
    static func fixed(_ channel: String) -> Machine.Address {
        Machine.Address(channel: { _ in channel }, request: ChannelRequest(channel: ""))
    }

    static func user(_ id: String) throws -> [String: ChannelSegment] { ["userId": try ChannelSegment(id)] }

    /// The ticket and channel of each `subscribe` call, in order.
    static func subscribes(_ effects: Machine.Effects) -> [(ticket: Int, channel: String)] {
        effects.calls.compactMap { if case .subscribe(_, _, let ticket, let request) = $0 { (ticket, request.channel) } else { nil } }
    }

    static func unsubscribes(_ effects: Machine.Effects) -> [String] {
        effects.calls.compactMap { if case .unsubscribe(let id) = $0 { id } else { nil } }
    }

    /// A machine with one entry for `ping`, subscribed as `sub-1`.
    static func subscribed() throws -> (Machine, Machine.EntryID, ticket: Int) {
        var machine = Machine(parameters: try user("u1"))
        let (entry, _, effects) = machine.join(key: "ping", address: ping)
        let ticket = try #require(subscribes(effects).first).ticket
        let wanted = machine.subscribed(key: "ping", ticket: ticket, subscriptionID: "sub-1")
        #expect(wanted)
        return (machine, entry, ticket)
    }

    // MARK: Routing

    @Test func theFirstConsumerSubscribesAndLaterOnesShareIt() throws {
        var machine = Machine(parameters: try Self.user("u1"))
        let first = machine.join(key: "ping", address: Self.ping)
        #expect(first.isNew)
        #expect(Self.subscribes(first.effects).map(\.channel) == ["user/u1/ping"])
        let second = machine.join(key: "ping", address: Self.ping)
        #expect(!second.isNew && second.entry == first.entry && second.effects == .none)
    }

    @Test func aMissingParameterWaitsAndItsValueSubscribes() throws {
        var machine = Machine(parameters: [:])
        let (entry, _, effects) = machine.join(key: "ping", address: Self.ping)
        #expect(effects.calls.isEmpty)
        #expect(effects.onConsumers == [.status(entry, key: "ping", .waitingForParameter)])
        #expect(machine.status(ofKey: "ping") == .waitingForParameter)
        let set = machine.setParameter("userId", to: try ChannelSegment("u1"))
        #expect(Self.subscribes(set).map(\.channel) == ["user/u1/ping"])
    }

    @Test func theLastConsumerLeavingUnsubscribesAndForgetsTheEntry() throws {
        var (machine, entry, _) = try Self.subscribed()
        let effects = machine.lastConsumerLeft(key: "ping", entry: entry)
        #expect(effects.calls == [.unsubscribe(subscriptionID: "sub-1")])
        #expect(effects.onConsumers == [.stopDelivery(entry, discarding: false), .forget(entry)])
        #expect(machine.entries.isEmpty && machine.status(ofKey: "ping") == nil)
    }

    @Test func aSubscribeFailureFailsTheStatus() throws {
        var machine = Machine(parameters: try Self.user("u1"))
        let (entry, _, effects) = machine.join(key: "ping", address: Self.ping)
        let ticket = try #require(Self.subscribes(effects).first).ticket
        let failed = machine.subscribeFailed(key: "ping", ticket: ticket, error: "offline")
        let status = SubscriptionStatus.failed([ServiceError(errorType: "SubscribeFailed", message: "offline")])
        #expect(failed.onConsumers == [.status(entry, key: "ping", status)])
        // A later answer for that request is not wanted.
        let wanted = machine.subscribed(key: "ping", ticket: ticket, subscriptionID: "late")
        #expect(!wanted)
    }

    // MARK: The user switch

    @Test func aUserSwitchLeavesEveryOldChannelBeforeJoiningAnyNewOne() throws {
        var machine = Machine(parameters: try Self.user("u1"))
        for key in ["a", "b"] {
            let address = Machine.Address(
                channel: { try ChannelTemplate("user/{userId}/\(key)").channel($0) }, request: ChannelRequest(channel: ""))
            let ticket = try #require(Self.subscribes(machine.join(key: key, address: address).effects).first).ticket
            let wanted = machine.subscribed(key: key, ticket: ticket, subscriptionID: "old-\(key)")
            #expect(wanted)
            _ = machine.serviceStatus(.active, key: key, subscriptionID: "old-\(key)", now: .zero)
        }
        let effects = machine.setParameter("userId", to: try ChannelSegment("u2"))
        #expect(effects.calls.count == 4)
        #expect(Self.unsubscribes(Machine.Effects(calls: Array(effects.calls.prefix(2)))) == ["old-a", "old-b"])
        #expect(Self.subscribes(effects).map(\.channel) == ["user/u2/a", "user/u2/b"])
        // What consumers had not read of the old user's channels is dropped.
        let a = try #require(machine.entries["a"]).id, b = try #require(machine.entries["b"]).id
        #expect(effects.onConsumers == [
            .stopDelivery(a, discarding: true), .stopDelivery(b, discarding: true),
            .status(a, key: "a", .subscribing), .status(b, key: "b", .subscribing),
        ])
    }

    // MARK: The transport switch

    /// A switch (`SwitchableConnection`) leaves every subscription before any joins again, keeps
    /// what consumers hold (the same channels), and the new subscription's `.active` is a
    /// resumption of the time between; a pending answer from before is stale.
    @Test func aTransportSwitchLeavesEverySubscriptionThenAsksAgainAsAResumption() throws {
        var machine = Machine(parameters: try Self.user("u1"))
        var tickets: [String: Int] = [:]
        for key in ["a", "b", "c"] {
            tickets[key] = try #require(Self.subscribes(machine.join(key: key, address: Self.fixed("app/\(key)")).effects).first).ticket
        }
        for key in ["a", "b"] {
            let wanted = machine.subscribed(key: key, ticket: try #require(tickets[key]), subscriptionID: "old-\(key)")
            #expect(wanted)
            _ = machine.serviceStatus(.active, key: key, subscriptionID: "old-\(key)", now: .seconds(1))
        }
        // "c" is still being asked for on the old transport.
        let effects = machine.connectionChanged(now: .seconds(5))
        #expect(Self.unsubscribes(Machine.Effects(calls: Array(effects.calls.prefix(2)))) == ["old-a", "old-b"])
        #expect(Self.subscribes(effects).map(\.channel) == ["app/a", "app/b", "app/c"])
        let (a, b) = (try #require(machine.entries["a"]).id, try #require(machine.entries["b"]).id)
        #expect(effects.onConsumers == [
            .status(a, key: "a", .subscribing), .stopDelivery(a, discarding: false),
            .status(b, key: "b", .subscribing), .stopDelivery(b, discarding: false),
        ])
        let staleC = machine.subscribed(key: "c", ticket: try #require(tickets["c"]), subscriptionID: "old-c")
        #expect(!staleC)
        let newA = try #require(Self.subscribes(effects).first).ticket
        let wanted = machine.subscribed(key: "a", ticket: newA, subscriptionID: "new-a")
        #expect(wanted)
        let back = machine.serviceStatus(.active, key: "a", subscriptionID: "new-a", now: .seconds(7))
        #expect(back.onConsumers == [.status(a, key: "a", .active), .resumed(a, after: .seconds(2))])
        // The old subscription's word comes too late.
        #expect(machine.serviceStatus(.failed([]), key: "a", subscriptionID: "old-a", now: .seconds(8)) == .none)
    }

    @Test func aSwitchLeavesAFinishedStreamAndAMissingParameterAlone() throws {
        var machine = Machine(parameters: [:])
        _ = machine.join(key: "ping", address: Self.ping)  // waits for userId
        let job = try #require(Self.subscribes(machine.join(key: "job", address: Self.fixed("jobs/1")).effects).first).ticket
        let jobEntry = try #require(machine.entries["job"]).id
        _ = machine.subscribed(key: "job", ticket: job, subscriptionID: "j")
        _ = machine.finalEventArrived(key: "job", entry: jobEntry, ticket: job)
        #expect(machine.connectionChanged(now: .seconds(1)) == .none)
    }

    @Test func theSameValueAgainChangesNothing() throws {
        var (machine, _, _) = try Self.subscribed()
        let unchanged = machine.setParameter("userId", to: try ChannelSegment("u1"))
        #expect(unchanged == .none)
    }

    @Test func onlyTheLastAskedChannelIsKeptWhenSwitchesOvertakeAnswers() throws {
        var machine = Machine(parameters: try Self.user("u1"))
        let first = try #require(Self.subscribes(machine.join(key: "ping", address: Self.ping).effects).first)
        let second = try #require(Self.subscribes(machine.setParameter("userId", to: try ChannelSegment("u2"))).first)
        let third = try #require(Self.subscribes(machine.setParameter("userId", to: try ChannelSegment("u3"))).first)
        #expect(third.channel == "user/u3/ping")
        // Answers arrive in any order; only the one for u3 is delivered, the others unsubscribed.
        let secondWanted = machine.subscribed(key: "ping", ticket: second.ticket, subscriptionID: "s2")
        #expect(!secondWanted)
        let thirdWanted = machine.subscribed(key: "ping", ticket: third.ticket, subscriptionID: "s3")
        #expect(thirdWanted)
        let firstWanted = machine.subscribed(key: "ping", ticket: first.ticket, subscriptionID: "s1")
        #expect(!firstWanted)
    }

    @Test func instancesKeepTheirChannelWhateverTheParameters() throws {
        var machine = Machine(parameters: try Self.user("u1"))
        let ticket = try #require(Self.subscribes(machine.join(key: "job-7", address: Self.fixed("jobs/7")).effects).first).ticket
        let wanted = machine.subscribed(key: "job-7", ticket: ticket, subscriptionID: "s")
        #expect(wanted)
        let unchanged = machine.setParameter("userId", to: try ChannelSegment("u2"))
        #expect(unchanged == .none)
    }

    // MARK: Statuses

    @Test func aResubscribeAfterADropIsAResumptionWithItsDuration() throws {
        var (machine, entry, _) = try Self.subscribed()
        _ = machine.serviceStatus(.subscribing, key: "ping", subscriptionID: "sub-1", now: .seconds(1))
        #expect(machine.serviceStatus(.active, key: "ping", subscriptionID: "sub-1", now: .seconds(2)).onConsumers == [
            .status(entry, key: "ping", .active),
        ])
        // Down from 10 s to 13 s: consumers are told after the status.
        _ = machine.serviceStatus(.subscribing, key: "ping", subscriptionID: "sub-1", now: .seconds(10))
        let back = machine.serviceStatus(.active, key: "ping", subscriptionID: "sub-1", now: .seconds(13))
        #expect(back.onConsumers == [.status(entry, key: "ping", .active), .resumed(entry, after: .seconds(3))])
    }

    @Test func anotherUsersChannelIsNotAResumption() throws {
        var (machine, entry, _) = try Self.subscribed()
        _ = machine.serviceStatus(.active, key: "ping", subscriptionID: "sub-1", now: .seconds(1))
        _ = machine.serviceStatus(.subscribing, key: "ping", subscriptionID: "sub-1", now: .seconds(2))
        let ticket = try #require(Self.subscribes(machine.setParameter("userId", to: try ChannelSegment("u2"))).first).ticket
        let wanted = machine.subscribed(key: "ping", ticket: ticket, subscriptionID: "sub-2")
        #expect(wanted)
        let active = machine.serviceStatus(.active, key: "ping", subscriptionID: "sub-2", now: .seconds(9))
        #expect(active.onConsumers == [.status(entry, key: "ping", .active)])
    }

    @Test func theWordOnASubscriptionLeftIsIgnored() throws {
        var (machine, _, _) = try Self.subscribed()
        _ = machine.setParameter("userId", to: try ChannelSegment("u2"))
        let stale = machine.serviceStatus(.active, key: "ping", subscriptionID: "sub-1", now: .zero)
        #expect(stale == .none)
    }

    @Test func problemsShowAsDegradedOnlyWhileActiveAndOnlyTheFirstOfEachIsNews() throws {
        var (machine, entry, ticket) = try Self.subscribed()
        let undecodable = machine.note(.undecodablePayload, key: "ping", entry: entry, ticket: ticket)
        // Not active yet: counted, told nothing.
        #expect(undecodable.news == .new && undecodable.effects == .none)
        let active = machine.serviceStatus(.active, key: "ping", subscriptionID: "sub-1", now: .zero)
        let degraded = SubscriptionStatus.degraded(DeliveryProblems(undecodablePayloads: true))
        #expect(active.onConsumers == [.status(entry, key: "ping", degraded)])
        let again = machine.note(.undecodablePayload, key: "ping", entry: entry, ticket: ticket)
        #expect(again.news == .none)
        let undeclared = machine.note(.undeclaredEventType("ping/v2"), key: "ping", entry: entry, ticket: ticket)
        let both = SubscriptionStatus.degraded(DeliveryProblems(undeclaredEventTypes: ["ping/v2"], undecodablePayloads: true))
        #expect(undeclared.news == .new && undeclared.effects.onConsumers == [.status(entry, key: "ping", both)])
        let sameValue = machine.note(.undeclaredEventType("ping/v2"), key: "ping", entry: entry, ticket: ticket)
        #expect(sameValue.news == .none)
    }

    @Test func undeclaredEventTypesBeyondTheLimitAreSaidOnce() throws {
        var (machine, entry, ticket) = try Self.subscribed()
        for n in 0..<DeliveryProblems.undeclaredEventTypesLimit {
            let first = machine.note(.undeclaredEventType("t\(n)"), key: "ping", entry: entry, ticket: ticket)
            #expect(first.news == .new)
        }
        let beyond = machine.note(.undeclaredEventType("more"), key: "ping", entry: entry, ticket: ticket)
        #expect(beyond.news == .beyondLimit)
        let afterLimit = machine.note(.undeclaredEventType("even more"), key: "ping", entry: entry, ticket: ticket)
        #expect(afterLimit.news == .none)
    }

    @Test func aChannelLeftTakesItsProblemsWithIt() throws {
        var (machine, entry, ticket) = try Self.subscribed()
        _ = machine.serviceStatus(.active, key: "ping", subscriptionID: "sub-1", now: .zero)
        _ = machine.note(.undecodablePayload, key: "ping", entry: entry, ticket: ticket)
        let next = try #require(Self.subscribes(machine.setParameter("userId", to: try ChannelSegment("u2"))).first).ticket
        let wanted = machine.subscribed(key: "ping", ticket: next, subscriptionID: "sub-2")
        #expect(wanted)
        // The old subscription's late findings do not count against the new one.
        let late = machine.note(.undecodablePayload, key: "ping", entry: entry, ticket: ticket)
        #expect(late.news == .none)
        #expect(machine.entries["ping"]?.problems.isEmpty == true)
        // Shown as subscribing until the connection's word on the new channel, which is the new word.
        #expect(machine.status(ofKey: "ping") == .subscribing)
        let active = machine.serviceStatus(.active, key: "ping", subscriptionID: "sub-2", now: .zero)
        #expect(active.onConsumers == [.status(entry, key: "ping", .active)])
    }

    // MARK: Finite streams

    @Test func theFinalEventFinishesConsumersAndANewConsumerStartsANewStream() throws {
        var (machine, entry, ticket) = try Self.subscribed()
        let final = machine.finalEventArrived(key: "ping", entry: entry, ticket: ticket)
        #expect(final.onConsumers == [.finish(entry)])
        let twice = machine.finalEventArrived(key: "ping", entry: entry, ticket: ticket)
        #expect(twice == .none)
        // The consumers keep what they hold: leaving a finished stream discards nothing.
        let next = machine.join(key: "ping", address: Self.ping)
        #expect(next.isNew && next.entry != entry)
        #expect(next.effects.onConsumers == [
            .stopDelivery(entry, discarding: false), .forget(entry), .status(next.entry, key: "ping", .subscribing),
        ])
        #expect(Self.unsubscribes(next.effects) == ["sub-1"])
        #expect(Self.subscribes(next.effects).map(\.channel) == ["user/u1/ping"])
        // The old entry's last consumer leaving later changes nothing for the new one.
        let oldLeaving = machine.lastConsumerLeft(key: "ping", entry: entry)
        #expect(oldLeaving == .none)
    }

    /// Issue 59: a final event that did not decode ended the consumers' streams with no word:
    /// `updates(for:)` got neither the event nor a failure. Now they are told `.failed` (naming the
    /// event) before their streams end, and a later word from the connection cannot replace it.
    @Test func anUndecodableFinalEventFailsTheEntryBeforeItsStreamsEnd() throws {
        var (machine, entry, ticket) = try Self.subscribed()
        _ = machine.serviceStatus(.active, key: "ping", subscriptionID: "sub-1", now: .zero)
        let why = ServiceError(errorType: "UndecodableFinalEvent", message: "the final event 'completed' did not decode as Ping")
        let final = machine.finalEventArrived(key: "ping", entry: entry, ticket: ticket, undecodable: why)
        #expect(final.onConsumers == [.status(entry, key: "ping", .failed([why])), .finish(entry)])
        #expect(machine.status(ofKey: "ping") == .failed([why]))
        // The connection unsubscribing afterwards says `.subscribing`: not shown, the failure stays.
        #expect(machine.serviceStatus(.subscribing, key: "ping", subscriptionID: "sub-1", now: .seconds(1)) == .none)
        #expect(machine.status(ofKey: "ping") == .failed([why]))
    }
    /// Issue 62: a job's stream that failed (an in-band `NOT_FOUND`) left the documented
    /// `for await` loop running for ever, and a late `.subscribing` could replace `.failed`. An own
    /// stream's failure now finishes its consumers, and nothing said later replaces it.
    @Test func aFailedOwnStreamFinishesItsConsumersAndStaysFailed() throws {
        let job = Machine.Address(channel: { _ in "jobs/j1" }, request: ChannelRequest(channel: "", isOwnStream: true))
        var machine = Machine(parameters: [:])
        let (entry, _, joined) = machine.join(key: "job", address: job)
        let ticket = try #require(Self.subscribes(joined).first).ticket
        let wanted = machine.subscribed(key: "job", ticket: ticket, subscriptionID: "stream1")
        #expect(wanted)
        _ = machine.serviceStatus(.active, key: "job", subscriptionID: "stream1", now: .zero)
        let notFound = [ServiceError(errorType: "NOT_FOUND", message: "no such job")]
        let failed = machine.serviceStatus(.failed(notFound), key: "job", subscriptionID: "stream1", now: .seconds(1))
        #expect(failed.onConsumers == [.status(entry, key: "job", .failed(notFound)), .finish(entry)])
        let late = machine.serviceStatus(.subscribing, key: "job", subscriptionID: "stream1", now: .seconds(2))
        #expect(late == .none)
        #expect(machine.status(ofKey: "job") == .failed(notFound))
    }

    /// The shared stream's subscriptions fail with their connection (a final close, say) and come
    /// back with `start()`: their consumers' loops go on.
    @Test func aFailedSharedSubscriptionKeepsItsConsumers() throws {
        var (machine, entry, _) = try Self.subscribed()
        let closed = [ServiceError(errorType: "ConnectionClosed", message: "closed")]
        let failed = machine.serviceStatus(.failed(closed), key: "ping", subscriptionID: "sub-1", now: .zero)
        #expect(failed.onConsumers == [.status(entry, key: "ping", .failed(closed))])
        let back = machine.serviceStatus(.active, key: "ping", subscriptionID: "sub-1", now: .seconds(1))
        #expect(back.onConsumers.contains(.status(entry, key: "ping", .active)))
    }
}
