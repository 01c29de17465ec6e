import Foundation

/// A code that may arrive as a JSON number or a string, kept as text.
package struct LenientCode: Decodable {
    package var text: String?

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let string = try? container.decode(String.self) {
            text = string
        } else if let number = try? container.decode(Int.self) {
            text = String(number)
        } else if let number = try? container.decode(Double.self) {
            text = String(number)
        } else {
            text = nil
        }
    }
}

/// One entry of an `errors` list.
public struct ServiceError: Sendable, Equatable, Decodable, CustomStringConvertible {
    /// The service's error type, such as `UnauthorizedException`.
    public var errorType: String?
    /// The service's explanation.
    public var message: String?
    /// `errorCode`, which the service sends as a number or a string, or not at all.
    public var code: String?

    /// An error as the service reports it.
    public init(errorType: String?, message: String?, code: String? = nil) {
        self.errorType = errorType
        self.message = message
        self.code = code
    }

    private enum CodingKeys: String, CodingKey { case errorType, message, errorCode }

    /// Decodes the service's JSON, accepting numbers or strings where the service and its docs differ.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        errorType = try? container.decodeIfPresent(String.self, forKey: .errorType)
        message = try? container.decodeIfPresent(String.self, forKey: .message)
        code = (try? container.decodeIfPresent(LenientCode.self, forKey: .errorCode))??.text
    }

    /// Authorization failures that retrying with the same credentials cannot fix, however the
    /// service phrases them: an error type, a 401/403 code, or words in the type or message.
    public var isAuthorizationFailure: Bool {
        if let code, ["401", "403"].contains(code) { return true }
        let phrases = ["unauthorized", "not authorized", "notauthorized", "forbidden", "token expired", "access denied"]
        return [errorType, message].contains { text in
            guard let text = text?.prefix(500).lowercased() else { return false }
            return phrases.contains { text.contains($0) }
        }
    }

    /// Failures that the same request will always get (authorization, malformed requests).
    public var isNonRetryable: Bool {
        isAuthorizationFailure || errorType == "BadRequestException" || code == "400"
    }

    /// The error type, code and message, for logs.
    public var description: String {
        [errorType, code.map { "code \($0)" }, message].compactMap { $0 }.joined(separator: ": ")
    }
}
