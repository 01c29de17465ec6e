import NIOSSL

extension TLSConfiguration {
    /// This configuration with TLS 1.2 as the oldest version it accepts: NIO SSL's client default
    /// still takes TLS 1.0 and 1.1, which AppSync and any current server have long dropped, and a
    /// server (or a man in the middle) offering only those is refused.
    var withTLS12Floor: TLSConfiguration {
        var configuration = self
        if configuration.minimumTLSVersion == .tlsv1 || configuration.minimumTLSVersion == .tlsv11 {
            configuration.minimumTLSVersion = .tlsv12
        }
        return configuration
    }
}
