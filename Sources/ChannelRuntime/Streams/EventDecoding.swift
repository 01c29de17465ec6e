import Foundation

/// How a pump turns a payload's text into its event: generated models (`JSONReadable`) take the
/// fast path, with `JSONDecoder` deciding whatever it declines; other types use `JSONDecoder`.
/// Either way the result, or the error, is what `JSONDecoder` gives.
enum EventDecoding {
    static func decoder<Event: Decodable>(for type: Event.Type) -> (String) throws -> Event {
        let fallback = JSONDecoder()
        if let readable = type as? any JSONReadable.Type {
            return fastDecoder(readable, as: type, fallback: fallback)
        }
        return { text in try fallback.decode(Event.self, from: Data(text.utf8)) }
    }

    private static func fastDecoder<Readable: JSONReadable, Event: Decodable>(
        _ readable: Readable.Type, as event: Event.Type, fallback: JSONDecoder
    ) -> (String) throws -> Event {
        { text in
            if let value = try? JSONReader.read(Readable.self, from: text), let event = value as? Event { return event }
            return try fallback.decode(Event.self, from: Data(text.utf8))
        }
    }
}
