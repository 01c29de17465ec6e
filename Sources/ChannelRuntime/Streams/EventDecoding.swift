import Foundation

/// How a pump turns a payload's text into its event: through the event type's own `Decodable`
/// conformance, read by the runtime's scanner (`ScannerDecoding`), with `JSONDecoder` deciding
/// whatever it declines. Either way the result, or the error, is what `JSONDecoder` gives.
enum EventDecoding {
    static func decoder<Event: Decodable>(for type: Event.Type) -> (String) throws -> Event {
        let fallback = JSONDecoder()
        let reader = ScannerDecoding()
        return { text in try reader.decode(Event.self, from: text, fallback: fallback) }
    }

    /// `decoder(for:)` for events the transport names (an own Server-Sent Events stream's
    /// `event:`): the name is in `decoder.userInfo[.channelEventName]`, where a generated enum of
    /// the channel's messages reads which one it is.
    static func namedDecoder<Event: Decodable>(for type: Event.Type) -> (String, String) throws -> Event {
        let fallback = JSONDecoder()
        let reader = ScannerDecoding()
        return { text, name in
            reader.userInfo = [.channelEventName: name]
            fallback.userInfo = [.channelEventName: name]
            return try reader.decode(Event.self, from: text, fallback: fallback)
        }
    }

    /// Events carried as plain text: a `String` event is the text itself; any other type cannot
    /// be (generated code never pairs them), so each such event fails to decode and is counted.
    static func textDecoder<Event: Decodable>(for type: Event.Type) -> (String) throws -> Event {
        // Decided once per stream, not per event: the identity on `String` seen as `Event`.
        let identity: (String) -> String = { $0 }
        guard let decode = identity as? (String) -> Event else {
            return { _ in throw NotText(type: "\(Event.self)") }
        }
        return decode
    }

    struct NotText: Error, CustomStringConvertible {
        let type: String
        var description: String { "events carried as text need the event type String, not \(type)" }
    }

    /// How to read an event's announced `eventType`, chosen once per pump: `nil` when the type does
    /// not report one. (Asking `as? any EventTypeReporting` of every event costs a conformance lookup.)
    static func eventTypeReader<Event>(for type: Event.Type) -> ((Event) -> String)? {
        guard let reporting = type as? any EventTypeReporting.Type else { return nil }
        return reader(reporting, for: type)
    }

    private static func reader<Reporting: EventTypeReporting, Event>(_: Reporting.Type, for _: Event.Type) -> (Event) -> String {
        // `Event` is `Reporting` (checked above): a cast to a concrete type is a metadata comparison.
        { event in (event as! Reporting).eventType }
    }
}

extension CodingUserInfoKey {
    /// The name the transport gave the event being decoded (a Server-Sent Events `event:` field
    /// on an own stream), a `String`: generated enums of a channel's messages choose by it.
    @_spi(Generated) public static let channelEventName = CodingUserInfoKey(rawValue: "channelgen.eventName")!
}
