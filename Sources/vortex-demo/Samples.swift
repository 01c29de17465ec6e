import Foundation
import VortexEvents

/// One sample event per Vortex channel, built from the generated models.
enum Samples {
    static func events(userId: String) throws -> [(channel: String, json: String)] {
        let now = Date()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        func json(_ value: some Encodable) throws -> String { String(decoding: try encoder.encode(value), as: UTF8.self) }
        return [
            (try DevicePresenceSubscription(userId: userId).channel, try json(DevicePresenceOutput(
                eventType: "device/presenceChanged", timestamp: now, orgId: "org-1", siteId: "site-7", thingName: "cam-lobby",
                derivant: "FD9387-HV", mac: "00:02:D1:AA:BB:01", online: true))),
            (try DeviceRecordingSubscription(userId: userId).channel, try json(DeviceRecordingOutput(
                eventType: "device/recordingStateChanged", timestamp: now, orgId: "org-1", thingName: "cam-lobby", recording: true))),
            (try DeviceFirmwareSubscription(userId: userId).channel, try json(DeviceFirmwareOutput(
                eventType: "device/firmwareUpdated", timestamp: now, orgId: "org-1", thingName: "cam-garage", fwUpdateState: 3))),
            (try ArchiveStateEventsSubscription(userId: userId).channel, try json(ArchiveStateOutput(
                eventType: "archive/stateChanged", timestamp: now, orgId: "org-1", thingName: "cam-lobby", status: .completed,
                videoLength: 42.5, videoSize: 18_874_368, cloudSize: 18_874_368, hasH265: true, createdAt: now))),
            (try LicensePhaseSubscription(userId: userId).channel, try json(LicenseStateOutput(
                eventType: "organization/licensePhaseChanged", timestamp: now, orgId: "org-1", licensePhase: .gracePeriod))),
            (try PlanTypeSubscription(userId: userId).channel, try json(PlanStateOutput(
                eventType: "organization/planChanged", timestamp: now, orgId: "org-1", isFreePlan: false))),
            (try AISettingsSubscription(userId: userId).channel, try json(AISettingsOutput(
                eventType: "organization/aiSettingsChanged", timestamp: now, orgId: "org-1",
                aiControlSetting: AIControlSetting(uuid: "2f6c1c9e-5b7a-4c63-9d0e-8a1b2c3d4e5f", termsAgreement: true, options: ["smartSearch": true])))),
            (try RoleChangeEventsSubscription(userId: userId).channel, try json(RoleChangeOutput(
                eventType: "user/roleChanged", timestamp: now, reason: "promoted to site admin"))),
            (try UserTokenRevokeEventsSubscription(userId: userId).channel, try json(UserTokenRevokeOutput(
                eventType: "user/tokenRevoked", timestamp: now, userId: userId, revokedAt: now, reason: .passwordChanged))),
        ]
    }

    /// `DevicePresenceOutput(thingName: "cam-lobby", online: true, …)`: the model type and its non-nil fields.
    static func describe(_ value: Any) -> String {
        let fields = Mirror(reflecting: value).children.compactMap { child -> String? in
            guard let label = child.label else { return nil }
            let (name, value) = property(label, child.value)
            return text(value).map { "\(name): \($0)" }
        }
        return "\(type(of: value))(\(fields.joined(separator: ", ")))"
    }

    /// A property wrapper's storage (`_timestamp`, an `ISO8601` holding the date) shows as the property.
    private static func property(_ label: String, _ value: Any) -> (name: String, value: Any) {
        let children = Mirror(reflecting: value).children
        guard label.hasPrefix("_"), children.count == 1, let wrapped = children.first, wrapped.label == "wrappedValue" else {
            return (label, value)
        }
        return (String(label.dropFirst()), wrapped.value)
    }

    private static func text(_ value: Any) -> String? {
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional {
            guard let wrapped = mirror.children.first?.value else { return nil }
            return text(wrapped)
        }
        switch value {
        case let date as Date: return date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        case let string as String: return "\"\(string)\""
        default:
            if mirror.displayStyle == .enum { return ".\(value)" }
            if mirror.displayStyle == .struct { return describe(value) }
            return "\(value)"
        }
    }
}
