import AppSyncRuntime
@_spi(Generated) import ChannelRuntime
import ArgumentParser
import Foundation
import VortexEvents

/// The envelope step alone, as it was done before the runtime's one-pass reader (a Decodable
/// envelope, JSONSerialization + `Any` casts), next to the payload step. The one-pass reader is
/// `package` API, measured end to end by `decode`.
struct Codec: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Envelope decoding of data frames as done before the one-pass reader, and payload decoding.")
    @Option var frames = 200_000
    @Option var runs = 5
    @Option(help: "Only the models whose name contains this text (payload table).") var model: String?
    @ArgumentParser.Flag(help: "Only the payload table's fast path (for a profiler); prints its rate.") var fastOnly = false

    func run() async throws {
        if fastOnly { return try runFastPathOnly() }
        let texts = (0..<frames).map { DecodeBench.frame(id: "3f2a9c1e-6b0d-4f7e-9a1b-2c3d4e5f6a7b", event: DecodeBench.archiveEvent($0)) }
        var previous: [Double] = [], decodable: [Double] = []
        struct Envelope: Decodable { var type: String?; var id: String?; var event: String? }
        let envelopeDecoder = JSONDecoder()
        for _ in 0..<runs {
            // The Decodable envelope `ServerMessage` used before its one-pass path (same fields).
            var start = ContinuousClock.now
            var count = 0
            for text in texts {
                let envelope = try envelopeDecoder.decode(Envelope.self, from: Data(text.utf8))
                if envelope.type == "data", envelope.id != nil, envelope.event != nil { count += 1 }
            }
            decodable.append(Double(count) / seconds(ContinuousClock.now - start))
            start = ContinuousClock.now
            count = 0
            for text in texts {
                guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
                      object["type"] as? String == "data", object["id"] is String, object["event"] is String else { continue }
                count += 1
            }
            previous.append(Double(count) / seconds(ContinuousClock.now - start))
        }
        print("| envelope decoding of `data` frames | frames/s |")
        print("|---|---:|")
        print("| JSONSerialization + `Any` casts | \(Int(Stats(previous).median)) |")
        print("| Decodable envelope | \(Int(Stats(decodable).median)) |")

        // The payload step: the generated models' JSONDecoder decoding, and the date parsing inside it.
        let archive = (0..<frames).map { Data(DecodeBench.archiveEvent($0).utf8) }
        let presence = (0..<frames).map { Data(DecodeBench.presenceEvent($0).utf8) }
        let decoder = JSONDecoder()
        var archiveRates: [Double] = [], presenceRates: [Double] = [], dateRates: [Double] = []
        let dates = (0..<frames).map { $0 % 2 == 0 ? "2025-01-26T12:00:00Z" : "2025-01-26T12:00:00.123+08:00" }
        for _ in 0..<runs {
            var start = ContinuousClock.now
            for data in archive { _ = try decoder.decode(ArchiveStateOutput.self, from: data) }
            archiveRates.append(Double(frames) / seconds(ContinuousClock.now - start))
            start = ContinuousClock.now
            for data in presence { _ = try decoder.decode(DevicePresenceOutput.self, from: data) }
            presenceRates.append(Double(frames) / seconds(ContinuousClock.now - start))
            start = ContinuousClock.now
            for text in dates {
                _ = (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text)) ?? (try? Date.ISO8601FormatStyle().parse(text))
            }
            dateRates.append(Double(frames) / seconds(ContinuousClock.now - start))
        }
        print("")
        print("| payload step | per second |")
        print("|---|---:|")
        print("| JSONDecoder → ArchiveStateOutput (2 dates) | \(Int(Stats(archiveRates).median)) |")
        print("| JSONDecoder → DevicePresenceOutput (1 date) | \(Int(Stats(presenceRates).median)) |")
        print("| ISO 8601 parse, half with fraction + offset | \(Int(Stats(dateRates).median)) |")

        // Each model's payload: the runtime's fast path vs JSONDecoder (one decoder, reused).
        print("")
        print("| payload | JSONDecoder (per second) | fast path (per second) | fast / JSONDecoder |")
        print("|---|---:|---:|---:|")
        for model in selectedModels {
            let texts = (0..<frames).map(model.payload)
            let datas = texts.map { Data($0.utf8) }
            var slow: [Double] = [], fast: [Double] = []
            for _ in 0..<runs {
                let start = ContinuousClock.now
                for data in datas { _ = try model.decodeNaively(data) }
                slow.append(Double(frames) / seconds(ContinuousClock.now - start))
                fast.append(try fastPathRate(model, texts, reader: ScannerDecoding()))
            }
            let (s, f) = (Stats(slow).median, Stats(fast).median)
            print("| \(model.name) | \(Int(s)) | \(Int(f)) | \(String(format: "%.2f", f / s)) |")
        }
    }

    func runFastPathOnly() throws {
        for model in selectedModels {
            let texts = (0..<frames).map(model.payload)
            let reader = ScannerDecoding()
            let rates = try (0..<runs).map { _ in try fastPathRate(model, texts, reader: reader) }
            print("| \(model.name) | fast path \(Int(Stats(rates).median))/s |")
        }
    }

    var selectedModels: [DecodeBench.Model] { DecodeBench.models.filter { model.map($0.name.contains) ?? true } }

    /// Payloads per second through the runtime's fast path alone, one pass over `texts`.
    func fastPathRate(_ model: DecodeBench.Model, _ texts: [String], reader: ScannerDecoding) throws -> Double {
        let start = ContinuousClock.now
        for text in texts { _ = try model.readFast(reader, text) }
        return Double(texts.count) / seconds(ContinuousClock.now - start)
    }
}
