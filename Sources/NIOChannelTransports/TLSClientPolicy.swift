import NIOCore
import NIOSSL
import SwiftASN1

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

/// The client's TLS rules beyond what BoringSSL checks (a chain to a trusted root, the host name,
/// the validity dates): the server's own certificate is not signed with SHA-1 and carries no RSA
/// key under 2048 bits. BoringSSL takes both from a trusted CA; a collision-prone signature or a
/// factorable key lets someone else present the same identity.
enum TLSClientPolicy {
    struct WeakCertificate: Error, CustomStringConvertible {
        let reason: String
        var description: String { "the server's certificate is too weak: \(reason)" }
    }

    /// The handler that opens TLS for `context`: BoringSSL's verification, then the checks above
    /// before the handshake completes, so no request (and no credential) goes out first. With
    /// verification off (`certificateVerification: .none`, a test setup) there is nothing to add to.
    static func handler(context: NIOSSLContext, serverHostname: String?, verification: CertificateVerification) throws -> NIOSSLClientHandler {
        guard verification != .none else { return try NIOSSLClientHandler(context: context, serverHostname: serverHostname) }
        return try NIOSSLClientHandler._makeSSLClientHandler(context: context, serverHostname: serverHostname) { certificate, channel in
            if let reason = weakness(of: certificate) { return channel.eventLoop.makeFailedFuture(WeakCertificate(reason: reason)) }
            return channel.eventLoop.makeSucceededVoidFuture()
        }
    }

    /// Why `certificate` is refused, or `nil`. What cannot be read is left to BoringSSL's verdict.
    static func weakness(of certificate: NIOSSLCertificate) -> String? {
        if let der = try? certificate.toDERBytes(), let algorithm = try? signatureAlgorithm(ofCertificate: der), sha1Signatures.contains(algorithm) {
            return "it is signed with SHA-1"
        }
        if let spki = try? certificate.extractPublicKey().toSPKIBytes(), let bits = try? rsaModulusBits(ofPublicKeyInfo: spki), bits < 2048 {
            return "its RSA key has \(bits) bits (at least 2048 are needed)"
        }
        return nil
    }

    private static let sha1Signatures: [ASN1ObjectIdentifier] = [
        [1, 2, 840, 113549, 1, 1, 5],  // sha1WithRSAEncryption
        [1, 2, 840, 10045, 4, 1],  // ecdsa-with-SHA1
        [1, 2, 840, 10040, 4, 3],  // dsa-with-sha1
    ]
    private static let rsaEncryption: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 1, 1]

    /// Certificate ::= SEQUENCE { tbsCertificate, signatureAlgorithm AlgorithmIdentifier, signature }.
    static func signatureAlgorithm(ofCertificate der: [UInt8]) throws -> ASN1ObjectIdentifier? {
        let children = try constructed(DER.parse(der))
        guard children.count == 3 else { return nil }
        return try constructed(children[1]).first.map { try ASN1ObjectIdentifier(derEncoded: $0) }
    }

    /// SubjectPublicKeyInfo ::= SEQUENCE { algorithm AlgorithmIdentifier, subjectPublicKey BIT STRING },
    /// an RSA key's bits being RSAPublicKey ::= SEQUENCE { modulus INTEGER, publicExponent INTEGER }.
    static func rsaModulusBits(ofPublicKeyInfo der: [UInt8]) throws -> Int? {
        let info = try constructed(DER.parse(der))
        guard info.count == 2, let algorithm = try constructed(info[0]).first,
              try ASN1ObjectIdentifier(derEncoded: algorithm) == rsaEncryption else { return nil }
        let key = try constructed(DER.parse(Array(ASN1BitString(derEncoded: info[1]).bytes)))
        guard let modulusNode = key.first, case .primitive(let modulus) = modulusNode.content else { return nil }
        let significant = modulus.drop { $0 == 0 }
        guard let first = significant.first else { return 0 }
        return significant.count * 8 - first.leadingZeroBitCount
    }

    private static func constructed(_ node: ASN1Node) throws -> [ASN1Node] {
        guard case .constructed(let children) = node.content else { throw ASN1Error.unexpectedFieldType(node.identifier) }
        return Array(children)
    }
}
