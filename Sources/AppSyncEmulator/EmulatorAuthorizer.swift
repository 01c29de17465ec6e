#if Emulator
import Foundation
import JWTKit

/// Who made a request.
enum Identity: Sendable, Equatable {
    /// An API key: the backend's publisher, allowed on every channel.
    case apiKey
    /// A JWT user, allowed on `…/user/<sub>/…` channels and channels without a user segment.
    case user(String)

    /// The Vortex Lambda authorizer rule: a user may only use their own user channels.
    func mayUse(_ channel: ChannelPath) -> Bool {
        switch self {
        case .apiKey: return true
        case .user(let sub): return channel.userSegment.map { $0 == sub } ?? true
        }
    }
}

struct EmulatorClaims: JWTPayload {
    var sub: SubjectClaim
    var exp: ExpirationClaim?

    func verify(using algorithm: some JWTAlgorithm) async throws {
        try exp?.verifyNotExpired()
    }
}

/// Checks the auth headers of connect, subscribe and publish (API key or HS256 JWT).
struct EmulatorAuthorizer: Sendable {
    let apiKeys: Set<String>
    let keys: JWTKeyCollection?

    init(configuration: EmulatorConfiguration) async throws(EmulatorError) {
        apiKeys = configuration.apiKeys
        if let secret = configuration.jwtSecret {
            // HS256 wants a key at least as long as the hash (jwt-kit asserts it).
            guard secret.utf8.count >= 32 else { throw .weakJWTSecret }
            let keys = JWTKeyCollection()
            await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
            self.keys = keys
        } else {
            keys = nil
        }
    }

    /// The identity behind `headers`, or nil when they authorize nothing. Header names are case-insensitive.
    func identity(_ headers: [String: String]) async -> Identity? {
        let lowered = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        if let key = lowered["x-api-key"], apiKeys.contains(key) { return .apiKey }
        if var token = lowered["authorization"], let keys {
            if token.hasPrefix("Bearer ") { token.removeFirst("Bearer ".count) }
            if let claims = try? await keys.verify(token, as: EmulatorClaims.self) { return .user(claims.sub.value) }
        }
        return nil
    }

    /// A signed HS256 token for `sub`, valid for `lifetime`.
    func token(sub: String, lifetime: TimeInterval) async throws -> String {
        guard let keys else { throw EmulatorError.noJWTSecret }
        return try await keys.sign(EmulatorClaims(sub: SubjectClaim(value: sub), exp: ExpirationClaim(value: Date().addingTimeInterval(lifetime))))
    }
}

public enum EmulatorError: Error, CustomStringConvertible {
    case noJWTSecret
    case weakJWTSecret
    case notRunning

    public var description: String {
        switch self {
        case .noJWTSecret: return "the emulator has no JWT secret configured"
        case .weakJWTSecret: return "the JWT secret must be at least 32 bytes (HS256)"
        case .notRunning: return "the emulator is not running (or could not bind its port)"
        }
    }
}
#endif
