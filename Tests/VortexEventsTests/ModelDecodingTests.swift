import Foundation
import Testing
import VortexEvents

/// Decoding fixtures for the nine generated models (DESIGN §8 layer 3): full payloads,
/// absent optionals, explicit nulls, unknown enum values, extra keys and every timestamp form.
@Suite("Vortex payload models")
struct ModelDecodingTests {
    static let noon = Date(timeIntervalSince1970: 1_737_892_800)  // 2025-01-26T12:00:00Z

    func decode<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(json.utf8))
    }

    // MARK: Full payloads

    @Test func devicePresenceFull() throws {
        let event = try decode(DevicePresenceOutput.self, """
            {"eventType":"device/presenceChanged","timestamp":"2025-01-26T12:00:00Z","orgId":"org-1","siteId":"site-1",
             "thingName":"thing-1","derivant":"FD9387","mac":"00:02:D1:AA:BB:CC","online":true}
            """)
        #expect(event == DevicePresenceOutput(
            eventType: "device/presenceChanged", timestamp: Self.noon, orgId: "org-1", siteId: "site-1",
            thingName: "thing-1", derivant: "FD9387", mac: "00:02:D1:AA:BB:CC", online: true))
    }

    @Test func deviceRecordingFull() throws {
        let event = try decode(DeviceRecordingOutput.self, """
            {"eventType":"device/recordingStateChanged","timestamp":"2025-01-26T12:00:00Z","orgId":"org-1","siteId":"site-1",
             "thingName":"thing-1","derivant":"FD9387","mac":"00:02:D1:AA:BB:CC","recording":false}
            """)
        #expect(event.recording == false)
        #expect(event.thingName == "thing-1")
        #expect(event.timestamp == Self.noon)
    }

    @Test func deviceFirmwareFull() throws {
        let event = try decode(DeviceFirmwareOutput.self, """
            {"eventType":"device/firmwareUpdated","timestamp":"2025-01-26T12:00:00Z","orgId":"org-1","siteId":"site-1",
             "thingName":"thing-1","derivant":"FD9387","mac":"00:02:D1:AA:BB:CC","fwUpdateState":-1}
            """)
        #expect(event.fwUpdateState == -1)
        #expect(event.mac == "00:02:D1:AA:BB:CC")
    }

    @Test func archiveStateFull() throws {
        let event = try decode(ArchiveStateOutput.self, """
            {"eventType":"archive/stateChanged","timestamp":"2025-01-26T12:00:00Z","orgId":"org-1","siteId":"site-1",
             "thingName":"thing-1","derivant":"FD9387","mac":"00:02:D1:AA:BB:CC","status":"Completed","videoLength":12.5,
             "videoSize":5000000000,"cloudSize":4096,"hasH265":true,"createdAt":"2025-01-26T11:59:00.250Z"}
            """)
        #expect(event.status == .completed)
        #expect(event.videoLength == 12.5)
        #expect(event.videoSize == 5_000_000_000)
        #expect(event.cloudSize == 4096)
        #expect(event.hasH265 == true)
        #expect(event.createdAt == Self.noon.addingTimeInterval(-59.75))
    }

    @Test func licenseStateFull() throws {
        let event = try decode(LicenseStateOutput.self, """
            {"eventType":"organization/licensePhaseChanged","timestamp":"2025-01-26T12:00:00Z","orgId":"org-1","licensePhase":"GracePeriod"}
            """)
        #expect(event == LicenseStateOutput(
            eventType: "organization/licensePhaseChanged", timestamp: Self.noon, orgId: "org-1", licensePhase: .gracePeriod))
    }

    @Test func planStateFull() throws {
        let event = try decode(PlanStateOutput.self, """
            {"eventType":"organization/planChanged","timestamp":"2025-01-26T12:00:00Z","orgId":"org-1","isFreePlan":true}
            """)
        #expect(event == PlanStateOutput(eventType: "organization/planChanged", timestamp: Self.noon, orgId: "org-1", isFreePlan: true))
    }

    @Test func aiSettingsFull() throws {
        let event = try decode(AISettingsOutput.self, """
            {"eventType":"organization/aiSettingsChanged","timestamp":"2025-01-26T12:00:00Z","orgId":"org-1",
             "aiControlSetting":{"uuid":"8f2d7f4e-7d7b-4c1e-9a53-0c6b9a0f1e2d","termsAgreement":true,
                                 "options":{"smartSearch":true,"faceRecognition":false}}}
            """)
        #expect(event.aiControlSetting == AIControlSetting(
            uuid: "8f2d7f4e-7d7b-4c1e-9a53-0c6b9a0f1e2d", termsAgreement: true,
            options: ["smartSearch": true, "faceRecognition": false]))
    }

    @Test func roleChangeFull() throws {
        let event = try decode(RoleChangeOutput.self, """
            {"eventType":"user/roleChanged","timestamp":"2025-01-26T12:00:00Z","reason":"promoted to admin"}
            """)
        #expect(event == RoleChangeOutput(eventType: "user/roleChanged", timestamp: Self.noon, reason: "promoted to admin"))
    }

    @Test func userTokenRevokeFull() throws {
        let event = try decode(UserTokenRevokeOutput.self, """
            {"eventType":"user/tokenRevoked","timestamp":"2025-01-26T12:00:00Z","userId":"user-1",
             "revokedAt":"2025-01-26T12:00:00+08:00","reason":"PASSWORD_CHANGED","requestId":"req-9"}
            """)
        #expect(event == UserTokenRevokeOutput(
            eventType: "user/tokenRevoked", timestamp: Self.noon, userId: "user-1",
            revokedAt: Self.noon.addingTimeInterval(-8 * 3600), reason: .passwordChanged, requestId: "req-9"))
    }

    // MARK: Every model: absent optionals, explicit nulls, extra keys

    /// Each model with its required fields only, and the names of its optional fields.
    struct Case: Sendable, CustomTestStringConvertible {
        var model: String
        var required: String
        var optionals: [String]
        var decode: @Sendable (Data) throws -> any Sendable
        var testDescription: String { model }
    }

    static let cases: [Case] = [
        Case(model: "DevicePresenceOutput", required: #""eventType":"device/presenceChanged","timestamp":"2025-01-26T12:00:00Z""#,
             optionals: ["orgId", "siteId", "thingName", "derivant", "mac", "online"],
             decode: { try JSONDecoder().decode(DevicePresenceOutput.self, from: $0) }),
        Case(model: "DeviceRecordingOutput", required: #""eventType":"device/recordingStateChanged","timestamp":"2025-01-26T12:00:00Z""#,
             optionals: ["orgId", "siteId", "thingName", "derivant", "mac", "recording"],
             decode: { try JSONDecoder().decode(DeviceRecordingOutput.self, from: $0) }),
        Case(model: "DeviceFirmwareOutput", required: #""eventType":"device/firmwareUpdated","timestamp":"2025-01-26T12:00:00Z""#,
             optionals: ["orgId", "siteId", "thingName", "derivant", "mac", "fwUpdateState"],
             decode: { try JSONDecoder().decode(DeviceFirmwareOutput.self, from: $0) }),
        Case(model: "ArchiveStateOutput", required: #""eventType":"archive/stateChanged","timestamp":"2025-01-26T12:00:00Z""#,
             optionals: ["orgId", "siteId", "thingName", "derivant", "mac", "status", "videoLength", "videoSize", "cloudSize", "hasH265", "createdAt"],
             decode: { try JSONDecoder().decode(ArchiveStateOutput.self, from: $0) }),
        Case(model: "LicenseStateOutput", required: #""eventType":"organization/licensePhaseChanged","timestamp":"2025-01-26T12:00:00Z""#,
             optionals: ["orgId", "licensePhase"],
             decode: { try JSONDecoder().decode(LicenseStateOutput.self, from: $0) }),
        Case(model: "PlanStateOutput", required: #""eventType":"organization/planChanged","timestamp":"2025-01-26T12:00:00Z""#,
             optionals: ["orgId", "isFreePlan"],
             decode: { try JSONDecoder().decode(PlanStateOutput.self, from: $0) }),
        Case(model: "AISettingsOutput", required: #""eventType":"organization/aiSettingsChanged","timestamp":"2025-01-26T12:00:00Z""#,
             optionals: ["orgId", "aiControlSetting"],
             decode: { try JSONDecoder().decode(AISettingsOutput.self, from: $0) }),
        Case(model: "RoleChangeOutput", required: #""eventType":"user/roleChanged","timestamp":"2025-01-26T12:00:00Z""#,
             optionals: ["reason"],
             decode: { try JSONDecoder().decode(RoleChangeOutput.self, from: $0) }),
        Case(model: "UserTokenRevokeOutput",
             required: #""eventType":"user/tokenRevoked","timestamp":"2025-01-26T12:00:00Z","userId":"u-1","revokedAt":"2025-01-26T12:00:00Z""#,
             optionals: ["reason", "requestId"],
             decode: { try JSONDecoder().decode(UserTokenRevokeOutput.self, from: $0) }),
    ]

    /// Names of the optional stored properties of `value` that hold `nil`.
    func nilOptionals(_ value: Any) -> Set<String> {
        Set(Mirror(reflecting: value).children.compactMap { child in
            guard var label = child.label else { return nil }
            var value = child.value
            // A property wrapper (`@ISO8601`) is stored as `_name`; the property is its `wrappedValue`.
            if label.hasPrefix("_"), let wrapped = Mirror(reflecting: value).children.first(where: { $0.label == "wrappedValue" }) {
                (label, value) = (String(label.dropFirst()), wrapped.value)
            }
            let mirror = Mirror(reflecting: value)
            return mirror.displayStyle == .optional && mirror.children.isEmpty ? label : nil
        })
    }

    @Test(arguments: cases)
    func optionalsAbsent(_ model: Case) throws {
        let value = try model.decode(Data("{\(model.required)}".utf8))
        #expect(nilOptionals(value) == Set(model.optionals))
    }

    @Test(arguments: cases)
    func explicitNulls(_ model: Case) throws {
        let nulls = model.optionals.map { "\"\($0)\":null" }.joined(separator: ",")
        let value = try model.decode(Data("{\(model.required),\(nulls)}".utf8))
        #expect(nilOptionals(value) == Set(model.optionals))
    }

    @Test(arguments: cases)
    func extraKeysAreIgnored(_ model: Case) throws {
        let value = try model.decode(Data("{\(model.required),\"addedLater\":{\"x\":[1,2]},\"flag\":true}".utf8))
        #expect(nilOptionals(value) == Set(model.optionals))
    }

    @Test(arguments: cases)
    func missingRequiredFieldFails(_ model: Case) {
        #expect(throws: DecodingError.self) { try model.decode(Data(#"{"eventType":"x"}"#.utf8)) }
    }

    // MARK: Timestamps

    @Test(arguments: [
        ("2025-01-26T12:00:00Z", 1_737_892_800.0),
        ("2025-01-26T12:00:00.123Z", 1_737_892_800.123),
        ("2025-01-26T12:00:00+08:00", 1_737_864_000.0),
        ("2025-01-26T12:00:00.5-05:30", 1_737_912_600.5),
    ])
    func timestampForms(_ text: String, _ seconds: Double) throws {
        let event = try decode(PlanStateOutput.self, #"{"eventType":"organization/planChanged","timestamp":"\#(text)"}"#)
        #expect(abs(event.timestamp.timeIntervalSince1970 - seconds) < 0.000_5)
    }

    @Test func timestampIgnoresDecoderDateStrategy() throws {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        let event = try decoder.decode(PlanStateOutput.self, from: Data(#"{"eventType":"x","timestamp":"2025-01-26T12:00:00.123Z"}"#.utf8))
        #expect(abs(event.timestamp.timeIntervalSince1970 - 1_737_892_800.123) < 0.000_5)
    }

    @Test func malformedTimestampFails() {
        #expect(throws: DecodingError.self) {
            try decode(PlanStateOutput.self, #"{"eventType":"x","timestamp":"26/01/2025 12:00"}"#)
        }
    }

    // MARK: Enums

    @Test func unknownEnumValuesDecodeAndEncodeBackUnchanged() throws {
        let license = try decode(LicenseStateOutput.self, #"{"eventType":"x","timestamp":"2025-01-26T12:00:00Z","licensePhase":"Suspended"}"#)
        #expect(license.licensePhase == .unknown("Suspended"))
        let archive = try decode(ArchiveStateOutput.self, #"{"eventType":"x","timestamp":"2025-01-26T12:00:00Z","status":"Archived"}"#)
        #expect(archive.status == .unknown("Archived"))
        let revoke = try decode(UserTokenRevokeOutput.self, """
            {"eventType":"x","timestamp":"2025-01-26T12:00:00Z","userId":"u","revokedAt":"2025-01-26T12:00:00Z","reason":"ADMIN_REVOKED"}
            """)
        #expect(revoke.reason == .unknown("ADMIN_REVOKED"))

        let encoded = try JSONEncoder().encode(license)
        let object = try JSONSerialization.jsonObject(with: encoded) as? [String: Any]
        #expect(object?["licensePhase"] as? String == "Suspended")
        #expect(try JSONDecoder().decode(LicenseStateOutput.self, from: encoded) == license)
    }

    @Test func knownEnumValuesMapFromAnyCasing() {
        #expect(LicenseStateOutput.LicensePhase(rawValue: "SetupStatus") == .setupStatus)
        #expect(LicenseStateOutput.LicensePhase.renewalOverdue.rawValue == "RenewalOverdue")
        #expect(UserTokenRevokeOutput.Reason(rawValue: "PASSWORD_CHANGED") == .passwordChanged)
        #expect(LicenseStateOutput.LicensePhase.knownCases.count == 6)
        // Equality follows the raw value.
        #expect(LicenseStateOutput.LicensePhase.unknown("Valid") == .valid)
    }

    // MARK: Round trip

    @Test func encodeThenDecodeKeepsEveryField() throws {
        let event = ArchiveStateOutput(
            eventType: "archive/stateChanged", timestamp: Self.noon.addingTimeInterval(0.125), orgId: "o", siteId: "s",
            thingName: "t", derivant: "d", mac: "m", status: .failed, videoLength: 1.5, videoSize: 2, cloudSize: 3,
            hasH265: false, createdAt: Self.noon)
        let decoded = try JSONDecoder().decode(ArchiveStateOutput.self, from: JSONEncoder().encode(event))
        #expect(decoded == event)
    }

    @Test func absentOptionalsAreNotEncoded() throws {
        let event = RoleChangeOutput(eventType: "user/roleChanged", timestamp: Self.noon)
        let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(event)) as? [String: Any]
        #expect(object?.keys.sorted() == ["eventType", "timestamp"])
        #expect(object?["timestamp"] as? String == "2025-01-26T12:00:00.000Z")
    }
}
