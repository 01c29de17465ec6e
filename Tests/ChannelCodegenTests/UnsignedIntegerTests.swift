import Foundation
import Testing

/// Issue 60: `format: uint64` (written in real documents for identifiers past `Int64.max`) became
/// `Int`, so such a value failed to decode and its event was dropped. `uint32` and `uint64` are now
/// `UInt32` and `UInt64`, read by the runtime's payload decoder as by `JSONDecoder`.
@Suite("Unsigned integers")
struct UnsignedIntegerTests {
    @Test func uint64AndUint32KeepTheirWholeRange() async throws {
        let spec = """
            asyncapi: 3.0.0
            info: {title: T, version: 1.0.0}
            channels:
              c:
                address: c
                messages:
                  m: {payload: {$ref: '#/components/schemas/Tick'}}
            operations:
              onC: {action: receive, channel: {$ref: '#/channels/c'}}
            components:
              schemas:
                Tick:
                  type: object
                  required: [id, small]
                  properties:
                    id: {type: integer, format: uint64}
                    small: {type: integer, format: uint32}
            """
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let (result, output) = try await TestSupport.generate(spec: spec, named: "spec.yaml", in: work)
        #expect(result.status == 0, "\(result.stderr)")
        let models = try String(contentsOf: output.appendingPathComponent("Models.swift"), encoding: .utf8)
        #expect(models.contains("public var id: UInt64") && models.contains("public var small: UInt32"), "\(models)")
        let main = #"""
            import Foundation
            let text = #"{"id":18446744073709551615,"small":4294967295}"#
            let fast = ScannerDecoding().read(Tick.self, from: text)
            let foundation = try? JSONDecoder().decode(Tick.self, from: Data(text.utf8))
            print(fast.map { "\($0.id) \($0.small)" } ?? "fails", foundation.map { "\($0.id) \($0.small)" } ?? "fails")
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys  // the key order is otherwise the dictionary's
            print(String(decoding: try encoder.encode(fast!), as: UTF8.self))
            print(ScannerDecoding().read(Tick.self, from: #"{"id":-1,"small":0}"#) == nil)
            """#
        let run = try await TestSupport.runProgram(main: main, withModelsIn: output, in: work)
        #expect(run.build.status == 0, "\(run.build.stderr)")
        #expect(run.stdout == """
            18446744073709551615 4294967295 18446744073709551615 4294967295
            {"id":18446744073709551615,"small":4294967295}
            true
            """ + "\n")
    }
}
