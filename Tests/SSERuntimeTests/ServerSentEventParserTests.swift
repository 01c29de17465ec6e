import SeededRandom
@testable import SSERuntime
import Testing

/// The event stream rules of the HTML standard (§ 9.2.6), including how the network may split bytes.
@Suite("Server-sent event parser")
struct ServerSentEventParserTests {
    func parse(_ text: String, maximumEventBytes: Int = 1 << 20) -> [ServerSentEventParser.Output] {
        var parser = ServerSentEventParser(maximumEventBytes: maximumEventBytes)
        return parser.parse(Array(text.utf8))
    }

    func events(_ outputs: [ServerSentEventParser.Output]) -> [ServerSentEvent] {
        outputs.compactMap { if case .event(let event) = $0 { event } else { nil } }
    }

    @Test(arguments: ["\n", "\r", "\r\n"])
    func everyLineEndWorks(_ end: String) {
        let stream = ["event: update", "data: a", "data: b", "id: 7", "", "data: c", ""].joined(separator: end) + end
        #expect(events(parse(stream)) == [
            ServerSentEvent(type: "update", data: "a\nb", lastEventID: "7"),
            ServerSentEvent(type: "message", data: "c", lastEventID: "7"),  // the id carries over
        ])
    }

    @Test func fieldsAndValuesFollowTheStandard() {
        let stream = """
            data:no space
            data:  two spaces keep one
            data
            :a comment
            event
            id: x\u{0}y
            unknown: field

            """
        let outputs = parse(stream + "\n")
        #expect(outputs.first == .comment)
        // `data` alone appends an empty line; an id with NUL is ignored; `event` alone resets the type.
        #expect(events(outputs) == [ServerSentEvent(type: "message", data: "no space\n two spaces keep one\n", lastEventID: nil)])
    }

    @Test func aByteOrderMarkAtTheStartIsSkippedOnlyThere() {
        #expect(events(parse("\u{FEFF}data: a\n\n\u{FEFF}data: b\n\n")) == [
            ServerSentEvent(data: "a"),  // the second BOM is part of a field name, so that line is ignored
        ])
    }

    @Test func retryTakesDigitsOnly() {
        #expect(parse("retry: 2500\nretry: 1.5\nretry: -1\nretry:\nretry: 30s\n") == [.retry(milliseconds: 2500)])
    }

    @Test func eventsWithoutDataAndUnfinishedEventsAreNotDispatched() {
        #expect(events(parse("event: ping\n\nid: 3\n\n")).isEmpty)
        #expect(events(parse("data: cut off")).isEmpty)
        #expect(events(parse("id: 3\n\ndata: after\n\n")) == [ServerSentEvent(data: "after", lastEventID: "3")])
    }

    @Test func anOversizedEventIsDroppedAndTheStreamGoesOn() {
        let big = String(repeating: "x", count: 200)
        #expect(parse("data: \(big)\n\ndata: small\n\n", maximumEventBytes: 100) == [
            .oversizedEventDropped, .event(ServerSentEvent(data: "small")),
        ])
        #expect(parse("data: \(big.prefix(60))\ndata: \(big.prefix(60))\n\ndata: ok\n\n", maximumEventBytes: 100) == [
            .oversizedEventDropped, .event(ServerSentEvent(data: "ok")),
        ])
    }

    /// A hostile `id` used to be kept and sent back: one with a control character made every later
    /// request invalid (NIO refuses the header, so the stream never reopened), a long one was echoed
    /// whole (a proxy answering 431 for good). Now it is ignored and the last good id stays.
    @Test func anIDThatCannotBeSentBackIsIgnoredAndTheLastGoodOneStays() {
        let long = String(repeating: "L", count: 1025)
        let stream = "id: 1\ndata: a\n\nid: x\u{1}y\ndata: b\n\nid: del\u{7F}\ndata: c\n\nid: \(long)\ndata: d\n\nid:  lead\ndata: e\n\nid: 2\ndata: f\n\n"
        let outputs = parse(stream)
        #expect(events(outputs).map(\.lastEventID) == ["1", "1", "1", "1", "1", "2"])
        #expect(outputs.filter { if case .eventIDIgnored = $0 { true } else { false } } == [
            .eventIDIgnored(.notAHeaderValue), .eventIDIgnored(.notAHeaderValue), .eventIDIgnored(.tooLong(bytes: 1025)),
            .eventIDIgnored(.notAHeaderValue),
        ])
        var exact = ServerSentEventParser(maximumEventIDBytes: 4)
        #expect(events(exact.parse(Array("id: 1234\ndata: a\n\nid: 12345\ndata: b\n\n".utf8))).map(\.lastEventID) == ["1234", "1234"])
    }

    /// A line longer than `maximumEventBytes` is not kept: its first bytes used to be read as the
    /// field, so a cut `id` became the resume point. Its event is dropped; a long comment costs nothing.
    @Test func anOversizedLineIsNeverReadAsAField() {
        let big = String(repeating: "x", count: 200)
        let outputs = parse("id: 1\n\nid: \(big)\ndata: a\n\n:\(big)\ndata: b\n\n", maximumEventBytes: 100)
        #expect(outputs == [.oversizedEventDropped, .event(ServerSentEvent(data: "b", lastEventID: "1"))])
    }

    /// However the bytes are split (a CRLF across reads, a multi-byte character across reads), the
    /// result is the same as reading the stream in one piece. Seeded, so a failure replays exactly.
    @Test func anySplitGivesTheSameEvents() {
        let stream = "\u{FEFF}: hello\r\nevent: é\r\ndata: 一\r\ndata: two\r\nid: 9\r\n\r\nretry: 10\rdata: x\r\rdata: y\n\n"
        let bytes = Array(stream.utf8)
        let whole = parse(stream)
        #expect(whole.count == 5)
        var generator = SplitMix64(seed: 0x5EED)
        for _ in 0..<500 {
            var parser = ServerSentEventParser()
            var outputs: [ServerSentEventParser.Output] = []
            var index = 0
            while index < bytes.count {
                let length = Int(generator.next() % 4) + 1
                outputs += parser.parse(bytes[index..<min(index + length, bytes.count)])
                index += length
            }
            #expect(outputs == whole)
        }
        // Every one-byte split, too.
        var parser = ServerSentEventParser()
        #expect(bytes.flatMap { parser.parse([$0]) } == whole)
    }
}
