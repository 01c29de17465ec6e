import Foundation
import Testing

/// Issue 14: `generate: models` makes payload models of a document of any protocol: no channel
/// rules apply, operations are not read, and every component schema is a model.
@Suite("generate: models")
struct ModelsModeTests {
    /// Warnings a models-only generation of the corpus may print: payload formats other than JSON
    /// Schema (Avro) and the channels they skip, and a schema renamed so as not to shadow a type
    /// the app uses (Kraken's `subscriptionStatus` beside the runtime's `SubscriptionStatus`).
    static func isExpected(_ warning: Substring) -> Bool {
        warning.contains("schemaFormat 'application/vnd.apache.avro") || warning.contains("(its payloads) is skipped")
            || warning.contains("which the app's own code in this module would no longer see")
    }

    @Test func everyCorpusDocumentGeneratesModelsThatTypeCheck() async throws {
        try #require(!LenientGenerationTests.documents.isEmpty)
        for name in LenientGenerationTests.documents {
            let work = try TestSupport.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: work) }
            let config = try TestSupport.writeConfig(in: work, spec: LenientGenerationTests.corpus.appendingPathComponent(name), extra: "generate: models\n")
            let output = work.appendingPathComponent("out")
            let result = try await TestSupport.channelgen(["generate", "--config", config.path, "--output", output.path])
            #expect(result.status == 0, "\(name): \(result.stderr)")
            let unexpected = result.stderr.split(separator: "\n").filter { $0.contains(": warning: ") && !Self.isExpected($0) }
            #expect(unexpected.isEmpty, "\(name): \(unexpected)")
            guard result.status == 0 else { continue }
            let typecheck = try await TestSupport.typecheck([output.appendingPathComponent("Models.swift")])
            #expect(typecheck.status == 0, "\(name): \(typecheck.stderr)")
            let notifier = try TestSupport.contents(output.appendingPathComponent("Notifier.swift"))
            #expect(notifier.contains("payload models only") && !notifier.contains("protocol "), "\(name)")
        }
    }

    @Test func addressesAnyTransportCarriesAndUnreferencedSchemasAreModels() async throws {
        let spec = """
            asyncapi: 3.0.0
            info: {title: Lights, version: 1.0.0}
            channels:
              measured:
                address: smartylighting/streetlights/1/0/event/{streetlightId}/lighting/measured
                messages:
                  lightMeasured:
                    headers: {type: object, properties: {traceId: {type: string}}}
                    bindings: {mqtt: {qos: 1}}
                    payload: {type: object, properties: {lumens: {type: integer}}}
            operations:
              publishLight: {action: send, channel: {$ref: '#/channels/measured'}}
            components:
              schemas:
                Dimming: {type: object, properties: {percent: {type: integer}}}
            """
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try spec.write(to: work.appendingPathComponent("lights.yaml"), atomically: true, encoding: .utf8)

        let models = try await TestSupport.channelgen(["lint", "--models", "lights.yaml"], in: work)
        #expect(models.status == 0 && models.stderr.isEmpty, "\(models.stderr)")
        let client = try await TestSupport.channelgen(["lint", "lights.yaml"], in: work)
        #expect(client.stderr.contains("has 8 segments"), "\(client.stderr)")

        let config = try TestSupport.writeConfig(in: work, spec: work.appendingPathComponent("lights.yaml"), extra: "generate: models\n")
        let output = work.appendingPathComponent("out")
        let generated = try await TestSupport.channelgen(["generate", "--config", config.path, "--output", output.path, "--quiet"])
        #expect(generated.status == 0, "\(generated.stderr)")
        let source = try TestSupport.contents(output.appendingPathComponent("Models.swift"))
        #expect(source.contains("public struct MeasuredPayload"))
        #expect(source.contains("public struct Dimming"))
    }
}
