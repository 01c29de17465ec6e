@testable import ChannelCodegen
import ChannelSpec
import ChildProcessSupport
import Foundation
import Testing

/// `channelgen diff`'s source verdicts held against the compiler (issue 46): for every row of the diff
/// tables, a small app written against the old generated code — every property read with its type
/// pinned, every memberwise initializer called with all its arguments, an exhaustive `switch` over
/// every enum and union, a hand-written conformer of the notifier protocol, every method, constant
/// and subscription initializer used — is type-checked against the old and the new code. It must
/// compile against the old; against the new it compiles exactly when no change is source-breaking.
@Suite("Diff source verdicts agree with the compiler")
struct DiffVerdictCompileTests {
    struct Case {
        var label: String
        var old: String
        var new: String
        /// A change made in the config alone: the new side's settings.
        var newConfig: (GeneratorConfig) -> GeneratorConfig = { $0 }
    }

    /// Changes made in `channelgen.yaml` alone, judged with each side's config.
    static var configCases: [Case] {
        func config(_ label: String, _ change: @escaping (inout GeneratorConfig) -> Void) -> Case {
            Case(label: label, old: SpecDiffTests.base, new: SpecDiffTests.base) { config in
                var config = config
                change(&config)
                return config
            }
        }
        return [
            config("names: renames a type") { $0.nameOverrides = [.init(specName: "Order", swiftName: "Purchase")] },
            config("names: renames an enum case") { $0.nameOverrides = [.init(specName: "shipped", swiftName: "dispatched")] },
            config("names: renames a notifier method") { $0.nameOverrides = [.init(specName: "orderValues", swiftName: "orders")] },
            config("notifier: renames the notifier") { $0.notifierName = "StoreNotifier" },
            config("transport: sse") { $0.transport = .sse },
            // (`accessModifier:` is left out: the app here is type-checked in the generated code's
            // own module, where `package` and `internal` are visible; the verdict is about other packages.)
        ]
    }

    static var cases: [Case] {
        func edited(_ base: String, _ row: SpecDiffTests.Row) -> Case {
            var text = base
            for (old, new) in row.edits { text = text.replacingOccurrences(of: old, with: new) }
            return Case(label: row.name, old: base, new: text)
        }
        return SpecDiffTests.rows.map { edited(SpecDiffTests.base, $0) }
            + SpecDiffTests.unionRows.map { edited(SpecDiffTests.unionBase, $0) }
            + SpecDiffTests.roomsRows.map { edited(SpecDiffTests.roomsBase, $0) }
            + configCases
    }

    @Test func everySourceVerdictAgreesWithTheCompiler() async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        var oldUnits: [TypeCheckSupport.Unit] = [], newUnits: [TypeCheckSupport.Unit] = []
        var breaking: [String: Bool] = [:]
        for (index, item) in Self.cases.enumerated() {
            let label = "row \(index) '\(item.label)'"
            let namespace = "__Case\(index)"
            let oldPath = try SpecDiffTests.write(item.old), newPath = try SpecDiffTests.write(item.new)
            defer { SpecDiffTests.removeFolders(of: [oldPath, newPath]) }
            let oldConfig = GeneratorConfig(specPath: oldPath), newConfig = item.newConfig(GeneratorConfig(specPath: newPath))
            guard case .success(let changes) = SpecDiff.compare(old: oldConfig, new: newConfig) else {
                Issue.record("\(label) does not compare")
                continue
            }
            breaking[label] = changes.contains { $0.source == .breaking }
            guard case .success(let named) = Generator.name(config: oldConfig),
                  let old = Generator.generateForTypeChecking(config: oldConfig, namespace: namespace).files,
                  let new = Generator.generateForTypeChecking(config: newConfig, namespace: namespace).files else {
                Issue.record("\(label) does not generate")
                continue
            }
            let app = GeneratedFile(name: "App.swift", contents: AppSource(api: named.api, names: named.names, namespace: namespace, notifierSource: old).text)
            oldUnits.append(TypeCheckSupport.Unit(label: label, namespace: namespace, files: old + [app]))
            newUnits.append(TypeCheckSupport.Unit(label: label, namespace: namespace, files: new + [app]))
        }
        #expect(breaking.values.contains(true) && breaking.values.contains(false))
        async let oldErrors = TypeCheckSupport.typecheck(oldUnits, in: work)
        async let newErrors = TypeCheckSupport.typecheck(newUnits, in: work)
        let (againstOld, againstNew) = try await (oldErrors, newErrors)
        #expect(againstOld.isEmpty, "the app does not compile against the code it was written for:\n\(againstOld.prefix(10).joined(separator: "\n"))")
        for unit in newUnits {
            let errors = againstNew.filter { $0.hasPrefix("[\(unit.label)]") }
            if breaking[unit.label] == true {
                #expect(!errors.isEmpty, "\(unit.label): the diff says source-breaking, yet the app compiles against the new code")
            } else {
                #expect(errors.isEmpty, "\(unit.label): the diff says source-compatible, yet the app does not compile:\n\(errors.prefix(5).joined(separator: "\n"))")
            }
        }
    }
}

/// The app: Swift written against one side's generated API, inside that side's namespace.
private struct AppSource {
    let api: ChannelAPI
    let names: SwiftNaming
    let namespace: String
    let notifierSource: [GeneratedFile]

    var text: String {
        var lines = ["import ChannelRuntime", "import Foundation", "", "extension \(namespace) {", "enum App {"]
        var counter = 0
        func next() -> String { counter += 1; return "f\(counter)" }
        for type in api.types {
            guard let path = names.types[type.id]?.path else { continue }
            let typeName = path.map { "`\($0.name)`" }.joined(separator: ".")
            switch type.kind {
            case .object(let properties), .composition(let properties):
                let swiftNames = names.properties[type.id] ?? []
                let members = Array(zip(properties, swiftNames))
                // Every property read with its type pinned.
                lines.append("static func \(next())(_ v: \(typeName)) {")
                for (property, name) in members {
                    lines.append("    let _: \(swiftType(property.type))\(property.isOptional ? "?" : "") = v.`\(name.name)`")
                }
                if let extras = type.extraProperties { lines.append("    let _: [Swift.String: \(swiftType(extras))] = v.additionalProperties") }
                lines.append("}")
                // The memberwise initializer with every argument, in order.
                let parameters = members.enumerated().map { index, member in "_ p\(index): \(swiftType(member.0.type))\(member.0.isOptional ? "?" : "")" }
                let arguments = members.enumerated().map { index, member in "`\(member.1.name)`: p\(index)" }
                lines.append("static func \(next())(\(parameters.joined(separator: ", "))) -> \(typeName) { \(typeName)(\(arguments.joined(separator: ", "))) }")
            case .stringEnum:
                let cases = (names.cases[type.id] ?? []).map { "    case .`\($0.name)`: break" }
                lines.append("static func \(next())(_ v: \(typeName)) {")
                lines.append("    switch v {")
                lines += cases + ["    case .unknown: break", "    }", "}"]
            case .union(let union):
                let cases = zip(union.variants, names.cases[type.id] ?? []).map { variant, name in
                    "    case .`\(name.name)`(let value): let _: \(swiftType(variant.type)) = value"
                }
                lines.append("static func \(next())(_ v: \(typeName)) {")
                lines.append("    switch v {")
                lines += cases + ["    case .unknown(let value): let _: ChannelRuntime.JSONValue = value", "    }", "}"]
            }
        }
        for (operation, channel) in api.receivers {
            guard let subscription = names.channelNames.subscriptions[channel.key], let method = names.channelNames.methods[operation.id] else { continue }
            // The channel constant, the subscription's event type and initializer, the notifier's method.
            if let constant = names.channelNames.channelConstants[channel.key] { lines.append("static let \(next()) = Channels.`\(constant.name)`") }
            lines.append("static func \(next())(_ e: `\(subscription.name)`.Event) -> \(swiftType(channel.message.payload)) { e }")
            if !channel.address.isOpen {
                let parameters = names.channelNames.parameters[channel.key] ?? []
                let arguments = parameters.map { "`\($0.name)`: \"a\"" }.joined(separator: ", ")
                lines.append("static func \(next())() throws -> `\(subscription.name)` { try `\(subscription.name)`(\(arguments)) }")
            }
            // An open address: the method takes the subscription, which names its channel.
            lines.append(channel.address.isOpen
                ? "static func \(next())(_ n: any `\(names.notifierProtocol.name)`, _ s: `\(subscription.name)`) async -> AsyncStream<\(swiftType(channel.message.payload))> { await n.`\(method.name)`(for: s) }"
                : "static func \(next())(_ n: any `\(names.notifierProtocol.name)`) async -> AsyncStream<\(swiftType(channel.message.payload))> { await n.`\(method.name)`() }")
        }
        lines.append("}")
        lines += fakeNotifier
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// A hand-written conformer of the notifier protocol: each requirement as the old code declares it.
    private var fakeNotifier: [String] {
        guard let notifier = notifierSource.first(where: { $0.name == "Notifier.swift" })?.contents,
              let start = notifier.range(of: "protocol \(names.notifierProtocol.name)") else { return [] }
        var requirements: [String] = []
        var current = ""
        for line in notifier[start.upperBound...].split(separator: "\n").dropFirst() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed == "}" { break }
            if trimmed.hasPrefix("///") || trimmed.isEmpty || trimmed.hasPrefix("@") { continue }
            current += (current.isEmpty ? "" : " ") + trimmed
            if current.filter({ $0 == "(" }).count == current.filter({ $0 == ")" }).count, !current.hasSuffix(",") {
                requirements.append(current)
                current = ""
            }
        }
        return ["struct AppNotifier: `\(names.notifierProtocol.name)` {"]
            + requirements.map { "    \($0) { fatalError() }" }
            + ["}"]
    }

    /// The Swift type of `type`, builtins module-qualified.
    private func swiftType(_ type: TypeReference) -> String {
        switch type {
        case .string: "Swift.String"
        case .dateTime: "Foundation.Date"
        case .integer(let bits, let isUnsigned): "Swift." + (isUnsigned ? "U" : "") + (bits.map { "Int\($0)" } ?? "Int")
        case .number(let isFloat): isFloat ? "Swift.Float" : "Swift.Double"
        case .boolean: "Swift.Bool"
        case .json: "ChannelRuntime.JSONValue"
        case .array(let element): "[\(swiftType(element))]"
        case .dictionary(let value): "[Swift.String: \(swiftType(value))]"
        case .optional(let wrapped): "\(swiftType(wrapped))?"
        case .named(let id): (names.types[id]?.path ?? []).map { "`\($0.name)`" }.joined(separator: ".")
        }
    }
}
