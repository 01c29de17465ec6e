@testable import ChannelCodegen
import Foundation

/// Builds specs as YAML text and type-checks many generations in one compiler run.
enum TypeCheckSupport {
    /// A YAML double-quoted scalar with exactly `text`'s value: everything outside printable ASCII
    /// and ordinary letters is escaped, so hostile text reaches the generator unchanged.
    static func yaml(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            default:
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || (0x2028...0x2029).contains(scalar.value)
                    || scalar.value == 0xFEFF {
                    result += String(format: "\\u%04X", scalar.value)
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }

    /// `#/components/schemas/<name>` with the name escaped for a JSON pointer inside a URI fragment.
    static func reference(_ section: String, _ name: String) -> String {
        let token = name.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
        var encoded = ""
        for byte in token.utf8 {
            let scalar = Unicode.Scalar(byte)
            if byte < 0x80 && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "-._~".unicodeScalars.contains(scalar)) {
                encoded.unicodeScalars.append(scalar)
            } else {
                encoded += String(format: "%%%02X", byte)
            }
        }
        return yaml("#/\(section)/" + encoded)
    }

    /// One generation to type-check: its files, each spec's declarations inside its own namespace.
    struct Unit: Sendable {
        var label: String
        var namespace: String
        var files: [GeneratedFile]
    }

    /// Generates `spec` (YAML text) in memory for type-checking; the diagnostics on failure.
    static func generate(_ spec: String, label: String, index: Int, in folder: URL, config extra: (inout GeneratorConfig) -> Void = { _ in })
        throws -> (unit: Unit?, diagnostics: [String]) {
        let path = folder.appendingPathComponent("spec\(index).yaml")
        try spec.write(to: path, atomically: true, encoding: .utf8)
        var config = GeneratorConfig(specPath: path.path)
        extra(&config)
        let namespace = "__Spec\(index)"
        let result = Generator.generateForTypeChecking(config: config, namespace: namespace)
        let diagnostics = result.diagnostics.map(\.description)
        guard let files = result.files else { return (nil, diagnostics) }
        return (Unit(label: label, namespace: namespace, files: files), diagnostics)
    }

    /// Models of one spec for a decode program: `generate`'s models file written into `folder`
    /// (its types inside `namespace`), with the spec's IR and Swift names; the diagnostics on failure.
    struct DecodableModels {
        var file: URL
        var namespace: String
        var named: Generator.Named
        /// `` `__Spec3`.`Outer`.`Inner` `` for a type id.
        func swiftType(_ id: String) -> String? {
            named.names.types[id].map { ([namespace] + $0.path.map(\.name)).map { "`\($0)`" }.joined(separator: ".") }
        }
    }

    static func models(_ spec: String, label: String, index: Int, in folder: URL) throws -> (models: DecodableModels?, diagnostics: [String]) {
        let (unit, diagnostics) = try generate(spec, label: label, index: index, in: folder)
        guard let unit, let file = unit.files.first(where: { $0.name == OutputFile.models.rawValue }),
              case .success(let named) = Generator.name(config: GeneratorConfig(specPath: folder.appendingPathComponent("spec\(index).yaml").path))
        else { return (nil, diagnostics) }
        let url = folder.appendingPathComponent("\(unit.namespace)-Models.swift")
        try file.contents.write(to: url, atomically: true, encoding: .utf8)
        return (DecodableModels(file: url, namespace: unit.namespace, named: named), diagnostics)
    }

    /// Type-checks `units` in one `swiftc -typecheck`; returns the compiler's errors with each
    /// file named after its unit's label, or an empty list.
    static func typecheck(_ units: [Unit], in folder: URL) async throws -> [String] {
        let batch = folder.appendingPathComponent("batch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: batch, withIntermediateDirectories: true)
        var paths: [String] = []
        var labels: [String: String] = [:]
        var namespaces = ""
        for unit in units {
            namespaces += "enum \(unit.namespace) {}\n"
            for file in unit.files {
                let name = "\(unit.namespace)-\(file.name)"
                try file.contents.write(to: batch.appendingPathComponent(name), atomically: true, encoding: .utf8)
                paths.append(batch.appendingPathComponent(name).path)
                labels[name] = unit.label
            }
        }
        let namespaceFile = batch.appendingPathComponent("Namespaces.swift")
        try namespaces.write(to: namespaceFile, atomically: true, encoding: .utf8)
        let result = try await TestSupport.typecheck(paths.map(URL.init(fileURLWithPath:)) + [namespaceFile])
        guard result.status != 0 else { return [] }
        return result.stderr.split(separator: "\n").filter { $0.contains(".swift:") && $0.contains(": error:") }.map { line in
            let file = line.split(separator: ":").first.map { URL(fileURLWithPath: String($0)).lastPathComponent } ?? ""
            return "[\(labels[file] ?? "?")] " + line
        }
    }
}
