import ChannelCodegen
import SeededRandom
import Testing

@Suite("Swift names")
struct SwiftIdentifiersTests {
    @Test(arguments: [
        ("PASSWORD_CHANGED", "passwordChanged"), ("SetupStatus", "setupStatus"), ("AIControlSetting", "aiControlSetting"),
        ("aiControlSetting", "aiControlSetting"), ("fwUpdateState", "fwUpdateState"), ("hasH265", "hasH265"),
        ("user_id", "userId"), ("user-id", "userId"), ("URL", "url"), ("1inchusd", "_1inchusd"), ("RenewalOverdue", "renewalOverdue"),
        ("device/presenceChanged", "devicePresenceChanged"),
        // Short all-caps words are words unless they are acronyms (issue 46: `pickedUP`, `readyFORPickup` before).
        ("PICKED_UP", "pickedUp"), ("READY_FOR_PICKUP", "readyForPickup"), ("OUT_FOR_DELIVERY", "outForDelivery"),
        ("USER_ID", "userID"), ("IMAGE_URL", "imageURL"), ("HTTP_STATUS", "httpStatus"), ("URLSession", "urlSession"),
        ("VIDEO_MP4", "videoMP4"), ("GO_TO_BED", "goToBed"),
    ])
    func lowerCamel(_ input: String, _ expected: String) {
        #expect(SwiftIdentifiers.lowerCamel(input) == expected)
    }

    @Test(arguments: [
        ("devicePresence", "DevicePresence"), ("AISettings", "AISettings"), ("aiSettings", "AiSettings"),
        ("DevicePresenceOutput", "DevicePresenceOutput"), ("license_phase", "LicensePhase"), ("PASSWORD_CHANGED", "PasswordChanged"),
        ("Vortex realtime events", "VortexRealtimeEvents"), ("2fa", "_2fa"),
        ("PICKED_UP", "PickedUp"), ("ORDER_ID", "OrderID"), ("JSON_WEB_KEY", "JSONWebKey"), ("NEW_API_KEY", "NewAPIKey"),
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

    /// The byte-level split for ASCII names must give exactly what the `Character` split gives.
    @Test func asciiWordSplittingAgreesWithTheUnicodeSplit() {
        var random = SplitMix64(seed: 0x5EED_1D5)
        let alphabet = Array("aAbBzZ09_-./ $x")
        var compared = 0
        for _ in 0..<20_000 {
            let name = String((0..<Int.random(in: 0...12, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
            #expect(SwiftIdentifiers.words(name) == SwiftIdentifiers.unicodeWords(name), "\(name.debugDescription)")
            if SwiftIdentifiers.asciiWords(name) != nil { compared += 1 }
        }
        #expect(compared > 15_000)
        #expect(SwiftIdentifiers.asciiWords("été") == nil)
    }

    /// The byte-level identifier checks for ASCII names answer what the scalar-by-scalar ones answer.
    @Test func asciiIdentifierShortcutsAgreeWithTheScalarRules() {
        var random = SplitMix64(seed: 0xA5C11)
        let alphabet = Array("aZ_09 -.$`\u{0}\t~é".unicodeScalars)
        for _ in 0..<20_000 {
            var name = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...5, using: &random) { name.append(alphabet.randomElement(using: &random)!) }
            let text = String(name)
            #expect(SwiftIdentifiers.isValidIdentifier(text) == SwiftIdentifiers.isValidIdentifierByScalars(text), "\(text.debugDescription)")
            #expect(SwiftIdentifiers.identifier(text) == SwiftIdentifiers.identifierByScalars(text), "\(text.debugDescription)")
        }
        #expect(SwiftIdentifiers.identifier("9lives") == "_9lives")
        #expect(SwiftIdentifiers.identifier("_") == "underscore")
        #expect(!SwiftIdentifiers.isValidIdentifier(""))
    }

    /// The shortcut for names that are already camel-cased gives what the word-by-word mapping gives.
    @Test func theShortcutForCamelCasedNamesAgreesWithTheWordByWordMapping() {
        var random = SplitMix64(seed: 15)
        let alphabet = Array("abcdefXYZAB0129_-".utf8)
        for _ in 0..<20_000 {
            let length = Int.random(in: 1...8, using: &random)
            let name = String(decoding: (0..<length).map { _ in alphabet.randomElement(using: &random)! }, as: UTF8.self)
            #expect(SwiftIdentifiers.lowerCamel(name) == SwiftIdentifiers.lowerCamelFromWords(name), "\(name)")
            #expect(SwiftIdentifiers.upperCamel(name) == SwiftIdentifiers.upperCamelFromWords(name), "\(name)")
        }
    }
}
