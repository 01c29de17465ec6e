import ChannelSpec
import Foundation

/// The contents of a target's `channelgen.yaml`.
///
/// ```yaml
/// spec: ../../spec/vortex-events.asyncapi.yaml   # required; relative to this file
/// notifier: BackendNotifier                     # optional; else info.x-swift-notifier, else from info.title
/// accessModifier: public                        # public (default), package or internal
/// ```
public struct GeneratorConfig: Sendable, Equatable {
    public enum AccessModifier: String, Sendable, CaseIterable {
        case `public`, package, `internal`
    }

    /// Path of the AsyncAPI document, resolved against the config file's folder.
    public var specPath: String
    public var notifierName: String?
    public var accessModifier: AccessModifier

    public init(specPath: String, notifierName: String? = nil, accessModifier: AccessModifier = .public) {
        self.specPath = specPath
        self.notifierName = notifierName
        self.accessModifier = accessModifier
    }

    static let keys = ["spec", "notifier", "accessModifier"]

    /// Reads and checks a config file; every problem is reported at its line.
    public static func load(from path: String) throws(DiagnosticsError) -> GeneratorConfig {
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
        if let spec = root["spec"]?.string, !spec.isEmpty {
            let folder = (path as NSString).deletingLastPathComponent
            config.specPath = spec.hasPrefix("/") || folder.isEmpty ? spec : folder + "/" + spec
        } else {
            diagnostics.append(.error("missing required key 'spec' (the AsyncAPI document, relative to this file)", at: root["spec"]?.location ?? root.location))
        }
        if let notifier = root["notifier"] {
            if let name = notifier.string, SwiftIdentifiers.upperCamel(name) == name {
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
        if !diagnostics.isEmpty { throw DiagnosticsError(diagnostics) }
        return config
    }
}
