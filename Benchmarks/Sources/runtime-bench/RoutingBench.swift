@_spi(Generated) import ChannelRuntime
import Foundation
import RoutingEvents

/// `route`: a channel of 20 messages (`spec/routing.asyncapi.yaml`), its events decoded through the
/// generated union of its messages against each decoded straight into its own message's type, the
/// fastest an app could do knowing the type beforehand. `moves`: each message fixes `type`
/// (`const`), which the union reads once; `untagged`: each requires a key of its own, so the union
/// tries its variants in order and keeps the one that reads the most keys.
enum RoutingBench {
    /// One message of the channel: how to read it directly, and whether a union value is its case.
    struct Kind<Union>: Sendable {
        let readDirectly: @Sendable (ScannerDecoding, String) -> Bool
        let isOwnCase: @Sendable (Union) -> Bool
    }

    static func reader<Event: Decodable & Sendable, Union>(_ type: Event.Type, isOwnCase: @escaping @Sendable (Union) -> Bool) -> Kind<Union> {
        Kind(readDirectly: { reader, text in reader.read(Event.self, from: text) != nil }, isOwnCase: isOwnCase)
    }

    static let moves: [Kind<MovesMessage>] = [
        reader(Kind0.self) { if case .kind0 = $0 { true } else { false } },
        reader(Kind1.self) { if case .kind1 = $0 { true } else { false } },
        reader(Kind2.self) { if case .kind2 = $0 { true } else { false } },
        reader(Kind3.self) { if case .kind3 = $0 { true } else { false } },
        reader(Kind4.self) { if case .kind4 = $0 { true } else { false } },
        reader(Kind5.self) { if case .kind5 = $0 { true } else { false } },
        reader(Kind6.self) { if case .kind6 = $0 { true } else { false } },
        reader(Kind7.self) { if case .kind7 = $0 { true } else { false } },
        reader(Kind8.self) { if case .kind8 = $0 { true } else { false } },
        reader(Kind9.self) { if case .kind9 = $0 { true } else { false } },
        reader(Kind10.self) { if case .kind10 = $0 { true } else { false } },
        reader(Kind11.self) { if case .kind11 = $0 { true } else { false } },
        reader(Kind12.self) { if case .kind12 = $0 { true } else { false } },
        reader(Kind13.self) { if case .kind13 = $0 { true } else { false } },
        reader(Kind14.self) { if case .kind14 = $0 { true } else { false } },
        reader(Kind15.self) { if case .kind15 = $0 { true } else { false } },
        reader(Kind16.self) { if case .kind16 = $0 { true } else { false } },
        reader(Kind17.self) { if case .kind17 = $0 { true } else { false } },
        reader(Kind18.self) { if case .kind18 = $0 { true } else { false } },
        reader(Kind19.self) { if case .kind19 = $0 { true } else { false } },
    ]

    static let untagged: [Kind<UntaggedMessage>] = [
        reader(Shape0.self) { if case .shape0 = $0 { true } else { false } },
        reader(Shape1.self) { if case .shape1 = $0 { true } else { false } },
        reader(Shape2.self) { if case .shape2 = $0 { true } else { false } },
        reader(Shape3.self) { if case .shape3 = $0 { true } else { false } },
        reader(Shape4.self) { if case .shape4 = $0 { true } else { false } },
        reader(Shape5.self) { if case .shape5 = $0 { true } else { false } },
        reader(Shape6.self) { if case .shape6 = $0 { true } else { false } },
        reader(Shape7.self) { if case .shape7 = $0 { true } else { false } },
        reader(Shape8.self) { if case .shape8 = $0 { true } else { false } },
        reader(Shape9.self) { if case .shape9 = $0 { true } else { false } },
        reader(Shape10.self) { if case .shape10 = $0 { true } else { false } },
        reader(Shape11.self) { if case .shape11 = $0 { true } else { false } },
        reader(Shape12.self) { if case .shape12 = $0 { true } else { false } },
        reader(Shape13.self) { if case .shape13 = $0 { true } else { false } },
        reader(Shape14.self) { if case .shape14 = $0 { true } else { false } },
        reader(Shape15.self) { if case .shape15 = $0 { true } else { false } },
        reader(Shape16.self) { if case .shape16 = $0 { true } else { false } },
        reader(Shape17.self) { if case .shape17 = $0 { true } else { false } },
        reader(Shape18.self) { if case .shape18 = $0 { true } else { false } },
        reader(Shape19.self) { if case .shape19 = $0 { true } else { false } },
    ]

    static func movesEvent(_ n: Int) -> String {
        #"{"type":"kind\#(n % 20)","id":"e-\#(n)","seq":\#(n),"note":"moved","at":"2025-01-26T12:00:00.123Z"}"#
    }

    static func untaggedEvent(_ n: Int) -> String {
        #"{"id":"e-\#(n)","field\#(n % 20)":\#(n),"note":"moved"}"#
    }

    /// Seconds to decode `events` through the union; throws if one lands in another case.
    static func throughUnion<Union: Decodable & Sendable>(_ union: Union.Type, _ kinds: [Kind<Union>], _ events: [String]) throws -> Double {
        let reader = ScannerDecoding()
        var misrouted = 0
        let start = ContinuousClock.now
        for (index, text) in events.enumerated() {
            guard let value = reader.read(Union.self, from: text), kinds[index % kinds.count].isOwnCase(value) else {
                misrouted += 1
                continue
            }
        }
        let elapsed = seconds(ContinuousClock.now - start)
        guard misrouted == 0 else { throw BenchFailure("\(misrouted) of \(events.count) events did not decode into their own case") }
        return elapsed
    }

    /// Seconds to decode `events`, each straight into its own message's type.
    static func directly<Union>(_ kinds: [Kind<Union>], _ events: [String]) throws -> Double {
        let reader = ScannerDecoding()
        var failed = 0
        let start = ContinuousClock.now
        for (index, text) in events.enumerated() where !kinds[index % kinds.count].readDirectly(reader, text) { failed += 1 }
        let elapsed = seconds(ContinuousClock.now - start)
        guard failed == 0 else { throw BenchFailure("\(failed) of \(events.count) events did not decode directly") }
        return elapsed
    }
}
