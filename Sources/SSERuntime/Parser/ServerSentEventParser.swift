/// One event of a `text/event-stream`, as the HTML standard's event stream interpretation
/// dispatches it.
package struct ServerSentEvent: Sendable, Equatable {
    /// The `event:` field, `message` when the event named none.
    package var type: String
    /// The `data:` lines joined with line feeds.
    package var data: String
    /// The last event ID at dispatch (it carries over from earlier events); `nil` when none was set.
    package var lastEventID: String?

    /// An event.
    package init(type: String = "message", data: String, lastEventID: String? = nil) {
        self.type = type
        self.data = data
        self.lastEventID = lastEventID
    }
}

/// Turns the bytes of a `text/event-stream` into events, however the network splits them.
///
/// Follows the HTML standard (§ 9.2.6, "Interpreting an event stream"): a leading byte order mark is
/// skipped; lines end in CRLF, LF or CR (a CRLF split across two reads is one line end); a blank
/// line dispatches; `:` starts a comment; one space after the field's colon is dropped; `data`
/// lines are joined with LF; an `id` holding NUL is ignored; `retry` takes ASCII digits only; an
/// event without a blank line after it when the stream ends is discarded. A value type with no I/O:
/// the SSE connection feeds it each chunk.
///
/// Memory stays bounded by `maximumEventBytes`, whatever the server sends: a longer line is not
/// kept (its event is dropped and reported, a comment is skipped). An `id` is kept only when it can
/// be sent back as a `Last-Event-ID` header: at most `maximumEventIDBytes`, no control characters,
/// no space at either end; otherwise the previous id stays (resuming from an earlier event repeats
/// events rather than losing them) and `.eventIDIgnored` reports it.
///
/// mattt/EventSource's parser was the first choice; its 1.1.1 does not compile on Linux.
package struct ServerSentEventParser: Sendable {
    package enum Output: Sendable, Equatable {
        case event(ServerSentEvent)
        /// The server asked for this reconnection delay (`retry:` in milliseconds).
        case retry(milliseconds: Int)
        /// A comment line: nothing to deliver, but proof the connection is alive (heartbeats).
        case comment
        /// An event larger than `maximumEventBytes` was dropped.
        case oversizedEventDropped
        /// An `id` that cannot be sent back as a header was ignored.
        case eventIDIgnored(EventIDProblem)
    }

    /// Why an event `id` was not kept.
    package enum EventIDProblem: Sendable, Equatable {
        /// Longer than `maximumEventIDBytes`.
        case tooLong(bytes: Int)
        /// Holds a control character (NUL included) or begins or ends with a space.
        case notAHeaderValue
    }

    package let maximumEventBytes: Int
    package let maximumEventIDBytes: Int
    private var line: [UInt8] = []
    /// The current line passed `maximumEventBytes`; its bytes after that were not kept.
    private var lineOversized = false
    private var atStreamStart = true
    private var afterCR = false
    private var eventType = ""
    private var data: [UInt8] = []
    private var hasData = false
    private var lastEventID: String?
    private var oversized = false

    package init(maximumEventBytes: Int = 1 << 20, maximumEventIDBytes: Int = 1024) {
        self.maximumEventBytes = maximumEventBytes
        self.maximumEventIDBytes = maximumEventIDBytes
    }

    /// The last event ID so far (for `Last-Event-ID` on a reconnect).
    package var currentLastEventID: String? { lastEventID }

    /// Reads the next chunk of the stream; returns what it completed, in order.
    package mutating func parse(_ chunk: some Sequence<UInt8>) -> [Output] {
        var outputs: [Output] = []
        for byte in chunk {
            if afterCR {
                afterCR = false
                if byte == UInt8(ascii: "\n") { continue }  // the LF of a CRLF
            }
            switch byte {
            case UInt8(ascii: "\r"):
                afterCR = true
                endLine(into: &outputs)
            case UInt8(ascii: "\n"):
                endLine(into: &outputs)
            default:
                if line.count < maximumEventBytes { line.append(byte) } else { lineOversized = true }
            }
        }
        return outputs
    }

    private mutating func endLine(into outputs: inout [Output]) {
        var bytes = line[...]
        defer { line.removeAll(keepingCapacity: true) }
        if lineOversized {
            // Only its first bytes were kept: read as a field they would be a wrong value (a cut id).
            lineOversized = false
            atStreamStart = false
            if bytes.first != UInt8(ascii: ":") { oversized = true }  // a comment costs its event nothing
            return
        }
        if atStreamStart {
            atStreamStart = false
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        }
        if bytes.isEmpty {
            dispatch(into: &outputs)
            return
        }
        if bytes.first == UInt8(ascii: ":") {
            outputs.append(.comment)
            return
        }
        let field: ArraySlice<UInt8>
        var value: ArraySlice<UInt8>
        if let colon = bytes.firstIndex(of: UInt8(ascii: ":")) {
            field = bytes[..<colon]
            value = bytes[bytes.index(after: colon)...]
            if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
        } else {
            field = bytes
            value = []
        }
        switch String(decoding: field, as: UTF8.self) {
        case "event":
            eventType = String(decoding: value, as: UTF8.self)
        case "data":
            if data.count + value.count + 1 > maximumEventBytes {
                oversized = true
            } else {
                data.append(contentsOf: value)
                data.append(UInt8(ascii: "\n"))
            }
            hasData = true
        case "id":
            if let problem = Self.problem(withEventID: value, maximumBytes: maximumEventIDBytes) {
                outputs.append(.eventIDIgnored(problem))
            } else {
                lastEventID = String(decoding: value, as: UTF8.self)
            }
        case "retry":
            if !value.isEmpty, value.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
               let milliseconds = Int(String(decoding: value, as: UTF8.self)) {
                outputs.append(.retry(milliseconds: milliseconds))
            }
        default:
            break  // unknown fields are ignored
        }
    }

    /// Why `id` cannot be sent back as a `Last-Event-ID` header, or `nil` when it can. The standard
    /// ignores an id with NUL; HTTP refuses other control characters in a header value and drops
    /// spaces at either end; proxies refuse long headers.
    package static func problem(withEventID id: some BidirectionalCollection<UInt8>, maximumBytes: Int) -> EventIDProblem? {
        if id.count > maximumBytes { return .tooLong(bytes: id.count) }
        if id.contains(where: { $0 < 0x20 || $0 == 0x7F }) { return .notAHeaderValue }
        if id.first == UInt8(ascii: " ") || id.last == UInt8(ascii: " ") { return .notAHeaderValue }
        return nil
    }

    private mutating func dispatch(into outputs: inout [Output]) {
        defer {
            eventType = ""
            data.removeAll(keepingCapacity: true)
            hasData = false
            oversized = false
        }
        if oversized {
            outputs.append(.oversizedEventDropped)
            return
        }
        guard hasData else { return }
        if data.last == UInt8(ascii: "\n") { data.removeLast() }
        outputs.append(.event(ServerSentEvent(
            type: eventType.isEmpty ? "message" : eventType,
            data: String(decoding: data, as: UTF8.self),
            lastEventID: lastEventID)))
    }
}
