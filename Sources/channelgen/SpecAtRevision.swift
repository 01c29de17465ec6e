import ChannelCodegen
import ChannelSpec
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A spec as it was at a git revision, extracted into a temporary folder so the generator can read
/// it (and the files it `$ref`s) as it reads any spec.
struct SpecAtRevision {
    let revision: String
    /// The temporary folder standing for the repository's root.
    let root: URL
    /// The spec's path inside `root`.
    let specPath: String
    /// The repository's root folder (symbolic links resolved).
    let repository: URL

    typealias Failure = CommandFailure

    /// Extracts the folder the spec may read from (`allowedFolder`, else the spec's folder), and the
    /// `config` file when it is outside it, as they were at `revision`.
    static func extract(specPath: String, allowedFolder: String?, config: String? = nil, revision: String) throws(Failure) -> SpecAtRevision {
        let spec = URL(fileURLWithPath: specPath).standardizedFileURL
        // The children's output goes to files in a folder of its own (see `Subprocess`).
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("channelgen-git-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        } catch {
            throw Failure(description: "cannot create a temporary folder: \(error)")
        }
        defer { try? FileManager.default.removeItem(at: scratch) }
        let repository: String
        do {
            repository = try git(["rev-parse", "--show-toplevel"], in: spec.deletingLastPathComponent().path, scratchFolder: scratch.path)
                .trimmingWhitespace
        } catch {
            throw Failure(description: "'\(specPath)' is not in a git repository (\(error.description))")
        }
        let repositoryURL = URL(fileURLWithPath: repository).standardizedFileURL.resolvingSymlinksInPath()
        let folder = URL(fileURLWithPath: allowedFolder ?? spec.deletingLastPathComponent().path).standardizedFileURL.resolvingSymlinksInPath()
        func relative(_ url: URL) -> String { Self.relative(url, to: repositoryURL) }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("channelgen-diff-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            let archive = scratch.appendingPathComponent("archive.tar")
            _ = try git(["archive", "--format=tar", "-o", archive.path, revision, "--", relative(folder)], in: repositoryURL.path, scratchFolder: scratch.path)
            _ = try run(["tar", "-xf", archive.path, "-C", root.path], scratchFolder: scratch.path)
            if let config {
                // A config outside the folder (no Package.swift above the spec): its text at the
                // revision, if it existed then.
                let path = relative(URL(fileURLWithPath: config).standardizedFileURL.resolvingSymlinksInPath())
                let target = root.appendingPathComponent(path)
                if !FileManager.default.fileExists(atPath: target.path),
                   let text = try? git(["show", "\(revision):\(path)"], in: repositoryURL.path, scratchFolder: scratch.path) {
                    try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                    try Data(text.utf8).write(to: target)
                }
            }
        } catch {
            try? FileManager.default.removeItem(at: root)
            throw Failure(description: "cannot read '\(relative(folder))' at revision '\(revision)': \((error as? Failure)?.description ?? "\(error)")")
        }
        let specInRoot = root.appendingPathComponent(relative(spec.resolvingSymlinksInPath())).path
        guard FileManager.default.fileExists(atPath: specInRoot) else {
            try? FileManager.default.removeItem(at: root)
            throw Failure(description: "'\(relative(spec.resolvingSymlinksInPath()))' does not exist at revision '\(revision)'")
        }
        return SpecAtRevision(revision: revision, root: root, specPath: specInRoot, repository: repositoryURL)
    }

    /// `url`'s path relative to the repository's root (`.` for the root itself).
    private static func relative(_ url: URL, to repository: URL) -> String {
        let base = repository.path.hasSuffix("/") ? repository.path : repository.path + "/"
        return url.path == repository.path ? "." : (url.path.hasPrefix(base) ? String(url.path.dropFirst(base.count)) : url.path)
    }

    /// A working-copy path (relative to the current folder, or absolute) relative to the repository.
    private func relativeToRepository(_ path: String) -> String {
        Self.relative(URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath(), to: repository)
    }

    /// `path` as the user should read it: a file of this extraction becomes `<revision>:<path>`.
    func display(_ path: String) -> String {
        let base = root.path + "/"
        return path.hasPrefix(base) ? "\(revision):\(path.dropFirst(base.count))" : path
    }

    func remove() { try? FileManager.default.removeItem(at: root) }

    /// The config at `path` (the working copy's, relative to it or absolute) as it was at this
    /// revision, reading its spec from this extraction; `today` pointed at this revision's spec when
    /// the config did not exist then (its `keyLocations` empty, to tell).
    func config(at path: String, else today: GeneratorConfig) throws(DiagnosticsError) -> GeneratorConfig {
        let inRoot = root.appendingPathComponent(relativeToRepository(path)).path
        guard FileManager.default.fileExists(atPath: inRoot) else {
            var old = today
            old.specPath = specPath
            old.allowedFolder = root.path
            old.keyLocations = [:]
            return old
        }
        var old = try GeneratorConfig.load(from: inRoot)
        old.allowedFolder = old.allowedFolder ?? root.path
        return old
    }

    /// A diagnostic about a file of this extraction, located as users read it (`<revision>:<path>`).
    func displayed(_ diagnostic: Diagnostic) -> Diagnostic {
        var diagnostic = diagnostic
        if let file = diagnostic.location?.file { diagnostic.location?.file = display(file) }
        return diagnostic
    }

    /// The diff of this revision's spec, read with `oldConfig`, against the working copy's, its
    /// locations shown as users read them.
    func changes(from oldConfig: GeneratorConfig, to config: GeneratorConfig) -> Result<[SpecChange], SpecDiffFailure> {
        SpecDiff.compare(old: oldConfig, new: config).map { changes in
            changes.map { change in
                var change = change
                if let file = change.location?.file { change.location?.file = display(file) }
                return change
            }
        }
    }

    private static func git(_ arguments: [String], in directory: String, scratchFolder: String) throws(Failure) -> String {
        try run(["git", "-C", directory] + arguments, scratchFolder: scratchFolder)
    }

    private static func run(_ arguments: [String], scratchFolder: String) throws(Failure) -> String {
        let outcome = try Subprocess.run(arguments, scratchFolder: scratchFolder)
        guard outcome.status == 0 else {
            throw Failure(description: outcome.errors.trimmingWhitespace)
        }
        return outcome.output
    }
}
