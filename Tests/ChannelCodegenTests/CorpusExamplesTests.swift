@testable import ChannelCodegen
import ChannelSpec
import Foundation
import Testing

/// The examples real documents ship with their messages are what their servers send: each must decode
/// into its own case (the message's case of its channel's union; the variant its payload schema's
/// union admits it to), with every value kept.
@Suite("Real documents' message examples")
struct CorpusExamplesTests {
    static let corpus = TestSupport.fixtures.appendingPathComponent("corpus/asyncapi")

    /// Where a message's payload is itself a union, the variant each example is valid for, read from
    /// the schema by hand (`file/message/example index`). A union payload's example missing here fails
    /// the test: the case it must land in is a judgement, not something to read from the generator.
    /// `unknown`: the example breaks its own schema, so no variant may take it; it is kept whole.
    static let payloadVariants: [String: String] = [
        // Kraken's examples give `pair` as a string ("XBT/EUR"); the schema says an array of strings
        // (the second's `depth: 42` is outside its enum too). Read as a variant, the pair would be
        // lost or invented; `.unknown` keeps the JSON as sent.
        "kraken-websocket-request-reply-multiple-channels-asyncapi.yml/subscriptionStatus/0": "unknown",
        "kraken-websocket-request-reply-multiple-channels-asyncapi.yml/subscriptionStatus/1": "unknown",
        // `type` is fixed by `const` in each variant: `update`, then `heartbeat`.
        "websocket-gemini-asyncapi.yml/marketData/0": "update",
        "websocket-gemini-asyncapi.yml/marketData/1": "heartbeat",
        "websocket-gemini.yml/marketData/0": "update",
        "websocket-gemini.yml/marketData/1": "heartbeat",
    ]

    @Test func everyMessageExampleDecodesIntoItsOwnCaseWhole() async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.corpus.path).filter { $0.hasSuffix(".yml") || $0.hasSuffix(".yaml") }.sorted()
        var models: [URL] = [], payloads: [DecodeCheck.Payload] = [], namespaces = ""
        var documentsWithExamples = 0
        for (index, file) in files.enumerated() {
            let text = try String(contentsOf: Self.corpus.appendingPathComponent(file), encoding: .utf8)
            let document = try YAMLLoader.load(text, file: file)
            let examples = Self.messageExamples(in: document)
            guard !examples.isEmpty else { continue }
            documentsWithExamples += 1
            let (generated, diagnostics) = try TypeCheckSupport.models(text, label: file, index: index, in: work)
            guard let generated else {
                Issue.record("\(file) was rejected:\n\(diagnostics.joined(separator: "\n"))")
                continue
            }
            models.append(generated.file)
            namespaces += "enum \(generated.namespace) {}\n"
            let (named, swiftType) = (generated.named, generated.swiftType)
            for example in examples {
                let label = "\(file)/\(example.message)/\(example.index)"
                // The payload's own type, and the variant its union admits the example to.
                guard let payloadType = named.api.types.first(where: { $0.parent == nil && $0.id.hasSuffix(exactKey(example.payloadPointer)) }),
                      let typeName = swiftType(payloadType.id) else {
                    Issue.record("\(label): no model for \(example.payloadPointer)")
                    continue
                }
                var expected: String?
                if case .union(let union) = payloadType.kind {
                    guard let variant = Self.payloadVariants[label] else {
                        Issue.record("\(label): the payload is a union; say which variant the example is valid for in `payloadVariants`")
                        continue
                    }
                    expected = variant == "unknown" ? variant : union.variants.firstIndex { $0.preferredName == variant }.flatMap { named.names.cases[payloadType.id]?[$0].name }
                    #expect(expected != nil, "\(label): no variant '\(variant)' in \(typeName)")
                }
                payloads.append(DecodeCheck.Payload(label: label, type: typeName, json: example.json, kept: example.json, expectedCase: expected))
                // Each channel that carries the message among others: the message's own case.
                for channel in named.api.channels {
                    guard case .named(let id) = channel.message.payload, let union = named.api.types.first(where: { $0.id == id }),
                          case .union(let variants) = union.kind, !variants.selectsByEventName,
                          let messages = document["channels"]?[channel.key]?["messages"]?.entries,
                          let key = messages.first(where: { $0.value["$ref"]?.string == "#/components/messages/\(example.message)" })?.key,
                          let offset = variants.variants.firstIndex(where: { $0.preferredName == key }),
                          let caseName = named.names.cases[id]?[offset].name, let channelType = swiftType(id) else { continue }
                    payloads.append(DecodeCheck.Payload(label: "\(label) on \(channel.key)", type: channelType, json: example.json, kept: example.json, expectedCase: caseName))
                }
            }
        }
        // The corpus has three documents whose messages carry examples (Kraken, Gemini twice).
        #expect(documentsWithExamples >= 3 && payloads.count >= 6, "\(documentsWithExamples) documents, \(payloads.count) payloads")
        let namespaceFile = work.appendingPathComponent("Namespaces.swift")
        try namespaces.write(to: namespaceFile, atomically: true, encoding: .utf8)
        let main = work.appendingPathComponent("main.swift")
        try DecodeCheck.program(payloads, roundTrip: false, encodings: true).write(to: main, atomically: true, encoding: .utf8)
        let run = try await TestSupport.runProgram(models: models + [namespaceFile], main: main, in: work)
        #expect(run.build.status == 0, "\(run.build.stderr.prefix(4000))")
        #expect(DecodeCheck.summary(of: run.stdout)?.checked == payloads.count, "\(run.stdout.suffix(2000))")
        let failures = run.stdout.split(separator: "\n").filter { $0.hasPrefix("FAIL") || $0.hasPrefix("    ") }.map(String.init)
            + DecodeCheck.keyFailures(stdout: run.stdout, payloads: payloads)
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    struct Example {
        var message: String
        var index: Int
        /// `#/components/schemas/…` the payload refers to, or the message's own `…/payload`.
        var payloadPointer: String
        var json: String
    }

    /// The examples of the document's component messages that carry a payload.
    static func messageExamples(in document: YAMLNode) -> [Example] {
        var result: [Example] = []
        for message in document["components"]?["messages"]?.entries ?? [] {
            guard let payload = message.value["payload"] else { continue }
            let pointer = payload["$ref"]?.string ?? "#/components/messages/\(JSONPointer.escape(message.key))/payload"
            for (index, example) in (message.value["examples"]?.items ?? []).enumerated() {
                guard let value = example["payload"] else { continue }
                result.append(Example(message: message.key, index: index, payloadPointer: pointer, json: json(value)))
            }
        }
        return result
    }

    /// The YAML value as JSON text: plain scalars that read as JSON literals stay literals.
    static func json(_ node: YAMLNode) -> String {
        switch node.content {
        case .mapping(let entries): "{" + entries.map { TypeCheckSupport.yaml($0.key) + ":" + json($0.value) }.joined(separator: ",") + "}"
        case .sequence(let items): "[" + items.map(json).joined(separator: ",") + "]"
        case .scalar(let scalar):
            if scalar.isNull { "null" } else if let bool = scalar.bool { bool ? "true" : "false" } else if scalar.isPlain, scalar.text.wholeMatch(of: /-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/) != nil { scalar.text } else { TypeCheckSupport.yaml(scalar.text) }
        }
    }
}
