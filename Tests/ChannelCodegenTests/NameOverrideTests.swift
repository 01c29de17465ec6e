import Foundation
import Testing

/// `names:` in channelgen.yaml: Swift names for spec names the mapping does not read as a team would
/// (issue 46), like swift-openapi-generator's `nameOverrides`.
@Suite("Name overrides")
struct NameOverrideTests {
    static let spec = """
        asyncapi: 3.0.0
        info: {title: Deliveries, version: 1.0.0}
        channels:
          deliveries:
            address: app/deliveries
            messages: {changed: {payload: {$ref: '#/components/schemas/DeliveryInfo'}}}
        operations:
          deliveryValues: {action: receive, channel: {$ref: '#/channels/deliveries'}}
        components:
          schemas:
            DeliveryInfo:
              type: object
              required: [state]
              properties:
                state: {type: string, enum: [READY_FOR_PICKUP, PICKED_UP, ETA_CHANGED]}
                eta_s: {type: integer}
                note: {type: string, x-swift-name: remark}
        """

    @Test func overridesNameTypesPropertiesCasesAndMethodsAndTheSpecsOwnNameWins() async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let (result, output) = try await TestSupport.generate(spec: Self.spec, named: "spec.yaml", in: work, extra: """
            names:
              DeliveryInfo: Delivery
              ETA_CHANGED: etaChanged
              eta_s: etaSeconds
              note: comment
              deliveryValues: deliveries

            """)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        let models = try TestSupport.contents(output.appendingPathComponent("Models.swift"))
        let notifier = try TestSupport.contents(output.appendingPathComponent("Notifier.swift"))
        #expect(models.contains("public struct Delivery: Codable"))
        #expect(models.contains("case readyForPickup\n"))  // the mapping's own name, not `readyFORPickup`
        #expect(models.contains("case pickedUp\n"))
        #expect(models.contains("case etaChanged\n"))
        #expect(models.contains("public var etaSeconds: Int?"))
        #expect(models.contains("case etaSeconds = \"eta_s\""))
        #expect(models.contains("public var remark: String?"))  // x-swift-name in the spec wins
        #expect(notifier.contains("func deliveries() async -> AsyncStream<Delivery>"))
        let typecheck = try await TestSupport.typecheckClient(in: output)
        #expect(typecheck.status == 0, "\(typecheck.stderr)")
    }

    @Test func anOverrideThatMatchesNothingIsAWarningAndABadNameAnError() async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let unused = try await TestSupport.generate(spec: Self.spec, named: "spec.yaml", in: work, extra: "names:\n  DeliveryInformation: Delivery\n")
        #expect(unused.result.status == 0, "\(unused.result.stderr)")
        #expect(unused.result.stderr.contains("channelgen.yaml:3:3: warning: 'DeliveryInformation' in 'names' matches no channel"), "\(unused.result.stderr)")

        let bad = try await TestSupport.generate(spec: Self.spec, named: "spec.yaml", in: work, extra: "names:\n  DeliveryInfo: 'Deli very'\n")
        #expect(bad.result.status == 1)
        #expect(bad.result.stderr.contains("channelgen.yaml:3:17: error: the Swift name for 'DeliveryInfo' in 'names' must be a Swift identifier"), "\(bad.result.stderr)")
    }

    /// The mocks name every type as the client does: a mocks config without `names:` reads the
    /// client's (the default layout, `../<clientModule>/channelgen.yaml`), and compiles against it.
    @Test func theMocksTakeTheClientsNames() async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let (mocks, checked) = try await TestSupport.generateClientAndMocks(
            spec: Self.spec, clientConfig: "names:\n  DeliveryInfo: Delivery\n  deliveryValues: deliveries\n", module: "Deliveries", in: work)
        #expect(try TestSupport.contents(mocks).contains("func deliveries() async -> AsyncStream<Delivery>"))
        #expect(checked.module.status == 0, "\(checked.module.stderr)")
        #expect(checked.mocks.status == 0, "\(checked.mocks.stderr)")
    }

    /// `names:` could neither target one type's property (`lng: longitude` renamed every `lng`) nor
    /// a channel parameter. `Type.member` targets one member and wins over the name alone; a
    /// parameter's name renames its labels and setter, not its key on the wire.
    @Test func aTypesOwnMemberAndAParameterCanBeNamed() async throws {
        let spec = """
            asyncapi: 3.0.0
            info: {title: Places, version: 1.0.0}
            channels:
              places:
                address: app/user/{userId}/places
                parameters: {userId: {}}
                messages: {moved: {payload: {$ref: '#/components/schemas/Moved'}}}
            operations:
              onPlaces: {action: receive, channel: {$ref: '#/channels/places'}}
            components:
              schemas:
                Moved:
                  type: object
                  properties:
                    lng: {type: number}
                    lat: {type: number}
                    home: {$ref: '#/components/schemas/Spot'}
                Spot:
                  type: object
                  properties:
                    lng: {type: number}
                    lat: {type: number}
            """
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let (result, output) = try await TestSupport.generate(spec: spec, named: "spec.yaml", in: work, extra: """
            names:
              Moved.lng: longitude
              lat: latitude
              Spot.lat: spotLatitude
              userId: accountId
              Spot.height: altitude

            """)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("channelgen.yaml:7:3: warning: 'Spot.height' in 'names' matches no channel"), "\(result.stderr)")
        let models = try TestSupport.contents(output.appendingPathComponent("Models.swift"))
        let moved = try #require(models.components(separatedBy: "public struct Spot").first)
        let spot = try #require(models.components(separatedBy: "public struct Spot").last)
        #expect(moved.contains("var longitude: Double?") && moved.contains("var latitude: Double?"), "\(moved)")
        #expect(spot.contains("var lng: Double?") && spot.contains("var spotLatitude: Double?"), "\(spot)")
        let subscriptions = try TestSupport.contents(output.appendingPathComponent("Subscriptions.swift"))
        #expect(subscriptions.contains("public init(accountId: ChannelSegment)"), "\(subscriptions)")
        let notifier = try TestSupport.contents(output.appendingPathComponent("Notifier.swift"))
        #expect(notifier.contains("func setAccountId(_ accountId: String)"))
        #expect(notifier.contains(#"setParameter("userId", to: try ChannelSegment(accountId, parameter: "userId"))"#))
        let typecheck = try await TestSupport.typecheckClient(in: output)
        #expect(typecheck.status == 0, "\(typecheck.stderr)")
    }
}
