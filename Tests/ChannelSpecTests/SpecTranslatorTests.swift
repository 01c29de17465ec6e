import ChannelSpec
import Foundation
import Testing

@Suite("Spec validation into the IR")
struct SpecTranslatorTests {
    static let vortex = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("spec/vortex-events.asyncapi.yaml").path

    @Test func vortexSpecHasNineChannelsAndOperations() throws {
        let result = SpecTranslator.translate(specAt: Self.vortex)
        #expect(result.diagnostics.isEmpty)
        let api = try #require(result.api)
        #expect(api.channels.count == 9)
        #expect(api.operations.map(\.id) == [
            "devicePresenceValues", "deviceRecordingValues", "deviceFirmwareValues", "archiveValues", "licenseValues",
            "planValues", "aiSettingsValues", "roleValues", "revokeValues",
        ])
        #expect(api.channels.map { $0.message.name ?? "" } == [
            "device/presenceChanged", "device/recordingStateChanged", "device/firmwareUpdated", "archive/stateChanged",
            "organization/licensePhaseChanged", "organization/planChanged", "organization/aiSettingsChanged",
            "user/roleChanged", "user/tokenRevoked",
        ])
        for channel in api.channels {
            #expect(channel.address.text.hasPrefix("vortex-app/user/{userId}/"))
            #expect(channel.parameters.map(\.name) == ["userId"])
        }
        #expect(result.files.count == 2)
    }

    @Test func optionalityFollowsRequiredAndNullable() throws {
        let api = try #require(SpecTranslator.translate(specAt: Self.vortex).api)
        let revoke = try #require(api.types.first { $0.preferredName == "UserTokenRevokeOutput" })
        guard case .object(let properties) = revoke.kind else {
            Issue.record("not an object")
            return
        }
        let optional = Dictionary(uniqueKeysWithValues: properties.map { ($0.jsonName, $0.isOptional) })
        #expect(optional == ["eventType": false, "timestamp": false, "userId": false, "revokedAt": false, "reason": true, "requestId": true])
        #expect(properties.first { $0.jsonName == "revokedAt" }?.type == .dateTime)
        let firmware = try #require(api.types.first { $0.preferredName == "DeviceFirmwareOutput" })
        guard case .object(let firmwareProperties) = firmware.kind else { return }
        let state = try #require(firmwareProperties.first { $0.jsonName == "fwUpdateState" })
        #expect(state.type == .integer(bits: nil))
        #expect(state.documentation.notes == ["Minimum: `-1`", "Maximum: `14`"])
    }

    @Test func typeListWithNullIsOptional() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("validator-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let spec = dir.appendingPathComponent("s.yaml")
        try """
            asyncapi: 3.0.0
            info: {title: T, version: '1'}
            channels:
              c:
                address: ns/c
                messages:
                  m:
                    payload:
                      type: object
                      required: [a, b]
                      properties:
                        a: {type: [string, 'null']}
                        b: {type: integer, format: int64}
                        tags: {type: array, items: {type: string, format: date-time}}
                        counts: {type: object, additionalProperties: {type: number, format: float}}
            operations:
              cValues: {action: receive, channel: {$ref: '#/channels/c'}}
            """.write(to: spec, atomically: true, encoding: .utf8)
        let api = try #require(SpecTranslator.translate(specAt: spec.path).api)
        guard case .object(let properties) = try #require(api.types.first).kind else { return }
        #expect(properties.map(\.isOptional) == [true, false, true, true])
        #expect(properties.map(\.type) == [.string, .integer(bits: 64), .array(.dateTime), .dictionary(.number(isFloat: true))])
        #expect(api.types.first?.preferredName == "CPayload")
    }
}
