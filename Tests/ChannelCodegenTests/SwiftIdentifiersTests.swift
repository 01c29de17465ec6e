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

    @Test func keywordsAreRecognised() {
        #expect(SwiftIdentifiers.isKeyword("default"))
        #expect(SwiftIdentifiers.isKeyword("protocol"))
        #expect(SwiftIdentifiers.isKeyword("self"))
        #expect(!SwiftIdentifiers.isKeyword("online"))
    }

    @Test(arguments: [
        ("été", "été"), ("日付", "日付"), ("🚀", "🚀"), ("*/", "asteriskSlash"), ("\r\n", "crLf"), ("", "empty"),
        ("_", "underscore"), ("a\u{200B}b", "aB"), ("\u{202E}evil", "evil"), ("☀", "u2600"),
    ])
    func unicodeLettersAreKeptAndSymbolsSpelledOut(_ input: String, _ expected: String) {
        #expect(SwiftIdentifiers.lowerCamel(input) == expected)
        #expect(SwiftIdentifiers.isValidIdentifier(SwiftIdentifiers.lowerCamel(input)))
    }
}
