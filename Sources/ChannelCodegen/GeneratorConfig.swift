import ChannelNaming
import ChannelSpec
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The contents of a target's `channelgen.yaml`.
///
/// ```yaml
/// spec: ../../spec/vortex-events.asyncapi.yaml   # required; relative to this file
/// notifier: BackendNotifier                     # optional; else info.x-swift-notifier, else from info.title
/// accessModifier: public                        # public (default), package or internal
/// generate: client                              # client (default), mocks or models
/// clientModule: VortexEvents                    # with `generate: mocks`: the module holding the client
/// transport: appsync                            # appsync (default) or sse: whose channel rules addresses follow
/// perspective: client                           # client (default) or server: whose side the document describes
/// names:                                        # optional: Swift names for spec names (types, properties,
///   READY_FOR_PICKUP: readyForPickUp            #   enum values, channels, operations); `x-swift-name` wins
/// ```
package struct GeneratorConfig: Sendable, Equatable {
    /// The access level of the generated declarations.
    package enum AccessModifier: String, Sendable, CaseIterable {
        /// Visible to other packages, to this package's modules, or to the target only.
        case `public`, package, `internal`
    }

    /// What a target gets: the client (models, channels, subscriptions, notifier) or a mock
    /// notifier for tests, kept in its own target so apps do not ship it.
    package enum Mode: String, Sendable, CaseIterable {
        /// The client (models, channels, subscriptions, notifier), or a mock notifier.
        case client, mocks
        /// Payload models only, for a document of any protocol (MQTT, Kafka, raw WebSocket): no
        /// channel rules apply, and every component schema is a model too.
        case models
    }

    /// The transport the client targets: channel addresses are checked by its rules.
    package enum Transport: String, Sendable, CaseIterable {
        /// AWS AppSync Events (1–5 segments of `A–Z a–z 0–9 -`).
        case appsync
        /// Server-Sent Events from a Mercure hub (topics: up to 32 segments of printable ASCII).
        case sse

        package var channelRules: ChannelNamingRules {
            switch self {
            case .appsync: return .appSyncEvents
            case .sse: return .serverSentEvents
            }
        }
    }

    /// Path of the AsyncAPI document, resolved against the config file's folder.
    package var specPath: String
    /// The notifier's type name, when the config sets one.
    package var notifierName: String?
    /// The access level of the generated declarations.
    package var accessModifier: AccessModifier
    /// What the target gets.
    package var mode: Mode
    /// The module the mocks import (`generate: mocks`).
    package var clientModule: String?
    /// The folder the spec and every file it references must lie in: the package holding the
    /// config file. `nil` uses the package holding the spec (or, outside a package, its folder).
    package var allowedFolder: String?
    /// Where the config names the spec (its `spec:` value), for errors about the spec file itself.
    package var specLocation: SourceLocation?
    /// `strict: true`: a construct outside the subset is an error; by default its channel (or
    /// operation) is skipped with warnings and the rest generates.
    package var strict = false
    /// The transport whose channel rules addresses are checked by.
    package var transport: Transport = .appsync
    /// `names:`: the Swift name for a name as the spec spells it, as if the spec gave it `x-swift-name`.
    package var nameOverrides: [NameOverride] = []
    /// Whose side the document describes: the client's (its `receive` operations are streams), or
    /// the server's (its `send` operations are what the client receives).
    package var perspective: SpecPerspective = .client
    /// Where each key is written in the config file, for reports about a setting (`channelgen diff`).
    package var keyLocations: [String: SourceLocation] = [:]

    package struct NameOverride: Sendable, Equatable {
        /// The name as the spec spells it (compared by Unicode scalars).
        package var specName: String
        package var swiftName: String
        package var location: SourceLocation?

        package init(specName: String, swiftName: String, location: SourceLocation? = nil) {
            self.specName = specName
            self.swiftName = swiftName
            self.location = location
        }
    }

/// A configuration for the spec at `specPath`.
    package init(
        specPath: String, notifierName: String? = nil, accessModifier: AccessModifier = .public,
        mode: Mode = .client, clientModule: String? = nil
    ) {
        self.specPath = specPath
        self.notifierName = notifierName
        self.accessModifier = accessModifier
        self.mode = mode
        self.clientModule = clientModule
    }

    /// Keywords that still name a module the compiler builds and imports (`import Type`, `import open`).
    static let moduleNameKeywords: Set<String> = ["Type", "Protocol", "async", "await", "open", "package", "borrowing", "consuming", "nonisolated"]

    static let keys = ["spec", "notifier", "accessModifier", "generate", "clientModule", "strict", "transport", "perspective", "names"]

    /// Reads and checks a config file; every problem is reported at its line.
    package static func load(from path: String) throws(DiagnosticsError) -> GeneratorConfig {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw DiagnosticsError(.error("cannot read config '\(path)'", at: nil))
        }
        let root = try YAMLLoader.load(text, file: path)
        guard let entries = root.entries else {
            throw DiagnosticsError(.error("the config must be a mapping, found \(root.kindDescription)", at: root.location))
        }
        var diagnostics: [Diagnostic] = []
        for entry in entries where !keys.contains(entry.key) {
            diagnostics.append(.error("unknown config key '\(entry.key)' (expected one of: \(keys.joined(separator: ", ")))", at: entry.keyLocation))
        }
        var config = GeneratorConfig(specPath: "")
        config.allowedFolder = FilePath.packageRoot(containing: path)
        config.keyLocations = Dictionary(entries.map { ($0.key, $0.keyLocation) }, uniquingKeysWith: { first, _ in first })
        if let spec = root["spec"]?.string, !spec.isEmpty {
            let folder = path.contains("/") ? FilePath.directory(of: path) : ""
            config.specPath = spec.hasPrefix("/") || folder.isEmpty ? spec : folder + "/" + spec
            config.specLocation = root["spec"]?.location
        } else {
            diagnostics.append(.error("missing required key 'spec' (the AsyncAPI document, relative to this file)", at: root["spec"]?.location ?? root.location))
        }
        if let notifier = root["notifier"] {
            if let name = notifier.string, SwiftIdentifiers.upperCamel(name) == name, !SwiftIdentifiers.keywords.contains(name) {
                config.notifierName = name
            } else {
                diagnostics.append(.error("'notifier' must be an UpperCamel Swift type name", at: notifier.location))
            }
        }
        if let access = root["accessModifier"] {
            if let value = access.string.flatMap(AccessModifier.init(rawValue:)) {
                config.accessModifier = value
            } else {
                diagnostics.append(.error(
                    "'accessModifier' must be one of \(AccessModifier.allCases.map(\.rawValue).joined(separator: ", "))",
                    at: access.location))
            }
        }
        if let generate = root["generate"] {
            if let value = generate.string.flatMap(Mode.init(rawValue:)) {
                config.mode = value
            } else {
                diagnostics.append(.error("'generate' must be one of \(Mode.allCases.map(\.rawValue).joined(separator: ", "))", at: generate.location))
            }
        }
        if let transport = root["transport"] {
            if let value = transport.string.flatMap(Transport.init(rawValue:)) {
                config.transport = value
            } else {
                diagnostics.append(.error("'transport' must be one of \(Transport.allCases.map(\.rawValue).joined(separator: ", "))", at: transport.location))
            }
        }
        if let perspective = root["perspective"] {
            if let value = perspective.string.flatMap(SpecPerspective.init(rawValue:)) {
                config.perspective = value
            } else {
                diagnostics.append(.error(
                    "'perspective' must be one of \(SpecPerspective.allCases.map(\.rawValue).joined(separator: ", ")) (whose side the document describes)",
                    at: perspective.location))
            }
        }
        if let strict = root["strict"] {
            if let value = strict.scalar?.bool {
                config.strict = value
            } else {
                diagnostics.append(.error("'strict' must be true or false", at: strict.location))
            }
        }
        if let module = root["clientModule"] {
            if let name = module.string, SwiftIdentifiers.isValidIdentifier(name), !SwiftIdentifiers.keywords.contains(name) || moduleNameKeywords.contains(name) {
                config.clientModule = name
            } else {
                diagnostics.append(.error("'clientModule' must be a Swift module name", at: module.location))
            }
        }
        if root["perspective"] == nil, config.mode == .mocks, let module = config.clientModule {
            // The mocks stand in for the client's notifier: the same streams, so the same side.
            config.perspective = clientPerspective(configPath: path, client: module)
        }
        if let names = root["names"] {
            config.nameOverrides = nameOverrides(names, into: &diagnostics)
        } else if config.mode == .mocks, let module = config.clientModule {
            // The mocks must name every type as the client does: in the default layout, the client's `names:`.
            config.nameOverrides = clientNameOverrides(configPath: path, client: module)
        }
        if config.mode == .mocks && config.clientModule == nil {
            diagnostics.append(.error("'generate: mocks' needs 'clientModule' (the module the mocks import)", at: root["generate"]?.location))
        }
        if config.mode == .mocks, let module = config.clientModule, let diagnostic = accessMismatch(mocks: config, at: root, configPath: path, client: module) {
            diagnostics.append(diagnostic)
        }
        if !diagnostics.isEmpty { throw DiagnosticsError(diagnostics) }
        return config
    }

    private static func nameOverrides(_ node: YAMLNode, into diagnostics: inout [Diagnostic]) -> [NameOverride] {
        guard let entries = node.entries else {
            diagnostics.append(.error("'names' must be a mapping from spec names to Swift names, found \(node.kindDescription)", at: node.location))
            return []
        }
        var overrides: [NameOverride] = []
        for entry in entries {
            guard let name = entry.value.string, SwiftIdentifiers.isValidIdentifier(name) else {
                diagnostics.append(.error("the Swift name for '\(entry.key)' in 'names' must be a Swift identifier", at: entry.value.location))
                continue
            }
            overrides.append(NameOverride(specName: entry.key, swiftName: name, location: entry.keyLocation))
        }
        return overrides
    }

    /// The `names:` of the client's config beside this one (`../<clientModule>/channelgen.yaml`), if any.
    private static func clientNameOverrides(configPath: String, client: String) -> [NameOverride] {
        let clientConfig = FilePath.normalize(FilePath.directory(of: configPath) + "/../\(client)/channelgen.yaml")
        guard let text = try? String(contentsOfFile: clientConfig, encoding: .utf8),
              let clientRoot = try? YAMLLoader.load(text, file: clientConfig), let names = clientRoot["names"] else { return [] }
        var ignored: [Diagnostic] = []  // the client's own generation reports them
        return nameOverrides(names, into: &ignored)
    }

    /// The `perspective:` of the client's config beside this one, if any.
    private static func clientPerspective(configPath: String, client: String) -> SpecPerspective {
        let clientConfig = FilePath.normalize(FilePath.directory(of: configPath) + "/../\(client)/channelgen.yaml")
        guard let text = try? String(contentsOfFile: clientConfig, encoding: .utf8),
              let clientRoot = try? YAMLLoader.load(text, file: clientConfig) else { return .client }
        return clientRoot["perspective"]?.string.flatMap(SpecPerspective.init(rawValue:)) ?? .client
    }

    /// Mocks conform to the client's notifier protocol, so they cannot be more visible than it. In the
    /// default layout the client's config sits beside this one (`../<clientModule>/channelgen.yaml`).
    private static func accessMismatch(mocks: GeneratorConfig, at root: YAMLNode, configPath: String, client: String) -> Diagnostic? {
        let clientConfig = FilePath.normalize(FilePath.directory(of: configPath) + "/../\(client)/channelgen.yaml")
        guard let text = try? String(contentsOfFile: clientConfig, encoding: .utf8),
              let clientRoot = try? YAMLLoader.load(text, file: clientConfig) else { return nil }
        let clientAccess = clientRoot["accessModifier"]?.string.flatMap(AccessModifier.init(rawValue:)) ?? .public
        let rank: [AccessModifier: Int] = [.internal: 0, .package: 1, .public: 2]
        guard rank[mocks.accessModifier]! > rank[clientAccess]! else { return nil }
        let fix = clientAccess == .internal
            ? "make the client public or package (mocks in another target cannot see internal types)"
            : "set 'accessModifier: \(clientAccess.rawValue)' here too"
        return .error(
            "the mocks would be \(mocks.accessModifier.rawValue) but \(client)'s client is \(clientAccess.rawValue) (\(clientConfig)); \(fix)",
            at: root["accessModifier"]?.location ?? root["generate"]?.location ?? root.location)
    }
}
