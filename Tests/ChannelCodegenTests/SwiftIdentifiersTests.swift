import ChannelCodegen
import Testing

@Suite("Swift names")
struct SwiftIdentifiersTests {
    @Test(arguments: [
        ("PASSWORD_CHANGED", "passwordChanged"), ("SetupStatus", "setupStatus"), ("AIControlSetting", "aiControlSetting"),
        ("aiControlSetting", "aiControlSetting"), ("fwUpdateState", "fwUpdateState"), ("hasH265", "hasH265"),
        ("user_id", "userId"), ("user-id", "userId"), ("URL", "url"), ("1inchusd", "_1inchusd"), ("RenewalOverdue", "renewalOverdue"),
        ("device/presenceChanged", "devicePresenceChanged"),
    ])
    func lowerCamel(_ input: String, _ expected: String) {
        #expect(SwiftIdentifiers.lowerCamel(input) == expected)
    }

    @Test(arguments: [
        ("devicePresence", "DevicePresence"), ("AISettings", "AISettings"), ("aiSettings", "AiSettings"),
        ("DevicePresenceOutput", "DevicePresenceOutput"), ("license_phase", "LicensePhase"), ("PASSWORD_CHANGED", "PasswordChanged"),
        ("Vortex realtime events", "VortexRealtimeEvents"), ("2fa", "_2fa"),
    ])
    func upperCamel(_ input: String, _ expected: String) {
        #expect(SwiftIdentifiers.upperCamel(input) == expected)
    }

    @Test func keywordsAreEscaped() {
        #expect(SwiftIdentifiers.escaped("default") == "`default`")
        #expect(SwiftIdentifiers.escaped("protocol") == "`protocol`")
        #expect(SwiftIdentifiers.escaped("self") == "`self`")
        #expect(SwiftIdentifiers.escaped("online") == "online")
    }
}
