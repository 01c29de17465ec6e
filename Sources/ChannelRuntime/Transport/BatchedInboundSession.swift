import ChannelTransports

/// A session made with `BatchedStream<String>.makeStreamAndReader()` (the runtime's own transport):
/// the connection reads the frames from the reader behind `inbound`, many per lock and wake-up under
/// a burst, where an `AsyncStream` continuation costs both per frame; it then never reads `inbound`.
package protocol BatchedInboundSession: WebSocketSession {
    /// The reader behind `inbound`; `nil` makes the connection read `inbound`.
    var inboundReader: BatchedStream<String>.Reader? { get }
}
