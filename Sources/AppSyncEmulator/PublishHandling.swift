#if Emulator
import Foundation

/// Validation and fan-out shared by HTTP and WebSocket publish.
struct PublishHandling: Sendable {
    let configuration: EmulatorConfiguration
    let broker: EmulatorBroker

    /// Publishes `events` (JSON texts) to `channelText` for `identity`; returns the
    /// `{successful, failed}` result or the errors with an HTTP status.
    func publish(channelText: String?, events rawEvents: Any?, identity: Identity?) async -> Result<[String: Any], PublishRejection> {
        guard let identity else {
            return .failure(PublishRejection(status: 401, errors: [ProtocolMessages.error("UnauthorizedException", "You are not authorized to make this call.", code: 401)]))
        }
        guard let channelText, let events = rawEvents as? [Any] else {
            return .failure(PublishRejection(status: 400, errors: [ProtocolMessages.error("BadRequestException", "A publish needs 'channel' and 'events'.")]))
        }
        guard (1...configuration.maximumEventsPerPublish).contains(events.count) else {
            return .failure(PublishRejection(status: 400, errors: [ProtocolMessages.error("BadRequestException", "Input exceeded \(configuration.maximumEventsPerPublish) event limit")]))
        }
        let texts = events.compactMap { $0 as? String }
        guard texts.count == events.count, texts.allSatisfy({ (try? JSONSerialization.jsonObject(with: Data($0.utf8), options: .fragmentsAllowed)) != nil }) else {
            return .failure(PublishRejection(status: 400, errors: [ProtocolMessages.error("BadRequestException", "Each event must be a string holding valid JSON.")]))
        }
        let channel: ChannelPath
        do {
            channel = try ChannelPath(channelText, allowWildcard: false, namespaces: configuration.namespaces)
        } catch .unknownNamespace(let namespace) {
            return .failure(PublishRejection(status: 404, errors: [ProtocolMessages.error("ResourceNotFound", "Namespace not found: \(namespace)")]))
        } catch {
            return .failure(PublishRejection(status: 400, errors: [ProtocolMessages.error("BadRequestException", "Invalid channel '\(channelText)'.")]))
        }
        guard identity.mayUse(channel) else {
            return .failure(PublishRejection(status: 401, errors: [ProtocolMessages.error("UnauthorizedException", "You are not authorized to publish to this channel.", code: 401)]))
        }
        var successful: [[String: Any]] = []
        var failed: [[String: Any]] = []
        var delivered: [String] = []
        for (index, text) in texts.enumerated() {
            let identifier = UUID().uuidString.lowercased()
            if text.utf8.count > configuration.maximumEventBytes {
                failed.append(["identifier": identifier, "index": index, "code": "EventTooLargeException", "message": "Event is larger than \(configuration.maximumEventBytes / 1024)KB"])
            } else {
                successful.append(["identifier": identifier, "index": index])
                delivered.append(text)
            }
        }
        await broker.publish(delivered, to: channel)
        return .success(["successful": successful, "failed": failed])
    }
}

struct PublishRejection: Error, @unchecked Sendable {
    // @unchecked: holds JSON values only, built and read on one task.
    var status: Int
    var errors: [[String: Any]]
}
#endif
