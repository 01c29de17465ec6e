#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A socket on 127.0.0.1 that listens and never accepts, its backlog already full: a connect to it
/// gets no answer, as from a frozen server, so only the client's own time limit ends it.
struct FrozenListener {
    let port: Int
    private let descriptors: [Int32]

    init() throws {
        let listener = socket(AF_INET, Self.streamType, 0)
        guard listener >= 0 else { throw Failure(step: "socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 0) == 0 else { throw Failure(step: "bind/listen") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        // Fill the backlog: these connections are queued, never accepted; later ones get no answer.
        var fillers: [Int32] = []
        for _ in 0..<4 {
            let filler = socket(AF_INET, Self.streamType, 0)
            _ = fcntl(filler, F_SETFL, fcntl(filler, F_GETFL) | O_NONBLOCK)
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(filler, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            fillers.append(filler)
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        descriptors = [listener] + fillers
    }

    func close() {
        for descriptor in descriptors {
            #if canImport(Glibc)
            _ = Glibc.close(descriptor)
            #else
            _ = Darwin.close(descriptor)
            #endif
        }
    }

    private static var streamType: Int32 {
        #if canImport(Glibc)
        Int32(SOCK_STREAM.rawValue)
        #else
        SOCK_STREAM
        #endif
    }

    struct Failure: Error { let step: String }
}
