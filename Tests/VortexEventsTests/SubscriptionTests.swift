import Testing
import VortexEvents

@Suite("Vortex subscriptions")
struct SubscriptionTests {
    @Test func nineChannelsWithTheirEventTypes() throws {
        let userId = try ChannelSegment("user-1")
        let subscriptions: [(String, String?)] = [
            (DevicePresenceSubscription(userId: userId).channel, DevicePresenceSubscription.eventType),
            (DeviceRecordingSubscription(userId: userId).channel, DeviceRecordingSubscription.eventType),
            (DeviceFirmwareSubscription(userId: userId).channel, DeviceFirmwareSubscription.eventType),
            (ArchiveStateEventsSubscription(userId: userId).channel, ArchiveStateEventsSubscription.eventType),
            (LicensePhaseSubscription(userId: userId).channel, LicensePhaseSubscription.eventType),
            (PlanTypeSubscription(userId: userId).channel, PlanTypeSubscription.eventType),
            (AISettingsSubscription(userId: userId).channel, AISettingsSubscription.eventType),
            (RoleChangeEventsSubscription(userId: userId).channel, RoleChangeEventsSubscription.eventType),
            (UserTokenRevokeEventsSubscription(userId: userId).channel, UserTokenRevokeEventsSubscription.eventType),
        ]
        #expect(subscriptions.map(\.0) == [
            "vortex-app/user/user-1/device/presenceChanged", "vortex-app/user/user-1/device/recordingStateChanged",
            "vortex-app/user/user-1/device/firmwareUpdated", "vortex-app/user/user-1/archive/stateChanged",
            "vortex-app/user/user-1/organization/licensePhaseChanged", "vortex-app/user/user-1/organization/planChanged",
            "vortex-app/user/user-1/organization/aiSettingsChanged", "vortex-app/user/user-1/roleChanged",
            "vortex-app/user/user-1/tokenRevoked",
        ])
        #expect(subscriptions.map(\.1) == [
            "device/presenceChanged", "device/recordingStateChanged", "device/firmwareUpdated", "archive/stateChanged",
            "organization/licensePhaseChanged", "organization/planChanged", "organization/aiSettingsChanged",
            "user/roleChanged", "user/tokenRevoked",
        ])
        #expect(Channels.all.count == 9)
    }

    @Test func stringInitializerValidatesTheUserId() {
        #expect(throws: ChannelParameterError.invalidCharacter(parameter: "userId", character: "/")) {
            try DevicePresenceSubscription(userId: "victim/device")
        }
        #expect(throws: ChannelParameterError.missing(parameter: "userId", channel: "vortex-app/user/{userId}/tokenRevoked")) {
            try UserTokenRevokeEventsSubscription.template.channel([:])
        }
    }

    @Test func channelAgreesWithTheTemplate() throws {
        let subscription = try RoleChangeEventsSubscription(userId: "abc")
        #expect(try RoleChangeEventsSubscription.template.channel(["userId": subscription.userId]) == subscription.channel)
    }
}
