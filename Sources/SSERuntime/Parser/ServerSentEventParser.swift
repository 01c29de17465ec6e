/// One event of a `text/event-stream`, as the HTML standard's event stream interpretation
/// dispatches it.
public struct ServerSentEvent: Sendable, Equatable {
    /// The `event:` field, `message` when the event named none.
    public var type: String
    /// The `data:` lines joined with line feeds.
    public var data: String
    /// The last event ID at dispatch (it carries over from earlier events); `nil` when none was set.
    public var lastEventID: String?

    /// An event.
    public init(type: String = "message", data: String, lastEventID: String? = nil) {
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
/// the SSE connection feeds it each chunk. Memory stays bounded: an event larger than
/// `maximumEventBytes` is dropped and reported.
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
    }

    package let maximumEventBytes: Int
    private var line: [UInt8] = []
    private var atStreamStart = true
    private var afterCR = false
    private var eventType = ""
    private var data: [UInt8] = []
    private var hasData = false
    private var lastEventID: String?
    private var oversized = false

    package init(maximumEventBytes: Int = 1 << 20) {
        self.maximumEventBytes = maximumEventBytes
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
                if line.count < maximumEventBytes { line.append(byte) } else { oversized = true }
            }
        }
        return outputs
    }

    private mutating func endLine(into outputs: inout [Output]) {
        var bytes = line[...]
        line.removeAll(keepingCapacity: true)
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
            if !value.contains(0) { lastEventID = String(decoding: value, as: UTF8.self) }
        case "retry":
            if !value.isEmpty, value.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
               let milliseconds = Int(String(decoding: value, as: UTF8.self)) {
                outputs.append(.retry(milliseconds: milliseconds))
            }
        default:
            break  // unknown fields are ignored
        }
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
