import Foundation
import Testing

/// Issue 14: every component schema of swift-openapi-generator's reference document, wrapped one
/// per channel, generates and compiles, and payloads decode, including the `allOf` of a union and
/// an object (`RecursivePetOneOfFirst`) that the union it extends (`RecursivePetOneOf`) contains.
@Suite("Petstore component schemas")
struct PetstoreTests {
    static let petstore = TestSupport.fixtures.appendingPathComponent("corpus/openapi/petstore.yaml")

    /// The names under `components/schemas`, in file order.
    static func schemaNames() throws -> [String] {
        let lines = try String(contentsOf: petstore, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(of: "  schemas:") else { return [] }
        var names: [String] = []
        for line in lines[(start + 1)...] {
            if !line.hasPrefix("    ") && !line.isEmpty { break }
            if line.hasPrefix("    "), !line.hasPrefix("     "), line.hasSuffix(":") { names.append(String(line.dropFirst(4).dropLast())) }
        }
        return names
    }

    @Test func everyComponentSchemaGeneratesCompilesAndDecodes() async throws {
        let names = try Self.schemaNames()
        #expect(names.count == 32)
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try FileManager.default.copyItem(at: Self.petstore, to: work.appendingPathComponent("petstore.yaml"))
        var spec = "asyncapi: 3.0.0\ninfo: {title: Petstore, version: 1.0.0}\nchannels:\n"
        for (index, name) in names.enumerated() {
            spec += "  \(name): {address: pets/s\(index), messages: {m: {payload: {$ref: './petstore.yaml#/components/schemas/\(name)'}}}}\n"
        }
        spec += "operations:\n"
        for name in names { spec += "  \(name)Values: {action: receive, channel: {$ref: '#/channels/\(name)'}}\n" }
        try spec.write(to: work.appendingPathComponent("pets.yaml"), atomically: true, encoding: .utf8)
        let config = try TestSupport.writeConfig(in: work, spec: work.appendingPathComponent("pets.yaml"))
        let output = work.appendingPathComponent("out")
        let result = try await TestSupport.channelgen(["generate", "--config", config.path, "--output", output.path])
        #expect(result.status == 0, "\(result.stderr)")
        let skipped = Set(result.stderr.split(separator: "\n").compactMap { line -> String? in
            guard let range = line.range(of: "warning: channel '"), let end = line[range.upperBound...].firstIndex(of: "'") else { return nil }
            return line.contains("is skipped") ? String(line[range.upperBound..<end]) : nil
        })
        #expect(skipped.isEmpty, "\(result.stderr)")
        let typecheck = try await TestSupport.typecheckClient(in: output)
        #expect(typecheck.status == 0, "\(typecheck.stderr)")

        let main = work.appendingPathComponent("main.swift")
        try """
            import Foundation
            func decodes<T: Decodable>(_ type: T.Type, _ json: String) -> T? { try? JSONDecoder().decode(T.self, from: Data(json.utf8)) }
            let pet = decodes(Pet.self, #"{"id":1,"name":"Rex","kind":"dog","tag":"t"}"#)
            print(pet?.name ?? "-", pet?.kind == .dog)
            if case .date? = decodes(MixedAnyOf.self, #""2024-01-02T03:04:05Z""#) { print("date") } else { print("no") }
            if case .walk(let walk)? = decodes(OneOfObjectsWithDiscriminator.self, #"{"kind":"Walk","length":3}"#) { print(walk.length) } else { print("no") }
            print(decodes(RecursivePet.self, #"{"name":"a","parent":{"name":"b","parent":{"name":"c"}}}"#)?.parent?.parent?.name ?? "-")
            print(decodes(TypedAdditionalProperties.self, #"{"foo":"x","n":2}"#)?.additionalProperties["n"] ?? -1)
            print(decodes(AllOfObjects.self, #"{"message":"m","code":7}"#)?.code ?? -1)
            if case .petKind(.cat)? = decodes(MixedOneOf.self, #""cat""#) { print("cat") } else { print("no") }
            // An allOf of a union and an object: each member decodes the whole value.
            let second = #"{"type":"RecursivePetOneOfSecond","id":2,"name":"Tom"}"#
            if case .recursivePetOneOfSecond(let pet)? = decodes(RecursivePetOneOf.self, second) { print(pet.name, pet.type) } else { print("no") }
            let first = #"{"type":"RecursivePetOneOfSecond","id":3,"name":"Kit"}"#
            if let composed = decodes(RecursivePetOneOfFirst.self, first), case .recursivePetOneOfSecond(let pet) = composed.value1 {
                let again = String(decoding: try JSONEncoder().encode(composed), as: UTF8.self)
                print(pet.name, composed.value2.type, decodes(RecursivePetOneOfFirst.self, again) == composed)
            } else { print("no") }
            // Tagged as the composition itself: it would contain itself at the same place forever.
            // Decoding fails instead of overflowing the stack.
            print(decodes(RecursivePetOneOf.self, #"{"type":"RecursivePetOneOfFirst","id":4,"name":"Loop"}"#) == nil)
            """.write(to: main, atomically: true, encoding: .utf8)
        let run = try await TestSupport.runProgram(models: output.appendingPathComponent("Models.swift"), main: main, in: work)
        #expect(run.build.status == 0, "\(run.build.stderr)")
        #expect(run.stdout.split(separator: "\n").map(String.init) == ["Rex true", "date", "3", "c", "2", "7", "cat", "Tom RecursivePetOneOfSecond", "Kit RecursivePetOneOfSecond true", "true"])
    }
}
