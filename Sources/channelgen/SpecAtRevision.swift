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

    typealias Failure = CommandFailure

    /// Extracts the folder the spec may read from (`allowedFolder`, else the spec's folder) as it
    /// was at `revision`.
    static func extract(specPath: String, allowedFolder: String?, revision: String) throws(Failure) -> SpecAtRevision {
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
        func relative(_ url: URL) -> String {
            let base = repositoryURL.path.hasSuffix("/") ? repositoryURL.path : repositoryURL.path + "/"
            return url.path == repositoryURL.path ? "." : (url.path.hasPrefix(base) ? String(url.path.dropFirst(base.count)) : url.path)
        }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("channelgen-diff-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            let archive = scratch.appendingPathComponent("archive.tar")
            _ = try git(["archive", "--format=tar", "-o", archive.path, revision, "--", relative(folder)], in: repositoryURL.path, scratchFolder: scratch.path)
            _ = try run(["tar", "-xf", archive.path, "-C", root.path], scratchFolder: scratch.path)
        } catch {
            try? FileManager.default.removeItem(at: root)
            throw Failure(description: "cannot read '\(relative(folder))' at revision '\(revision)': \((error as? Failure)?.description ?? "\(error)")")
        }
        let specInRoot = root.appendingPathComponent(relative(spec.resolvingSymlinksInPath())).path
        guard FileManager.default.fileExists(atPath: specInRoot) else {
            try? FileManager.default.removeItem(at: root)
            throw Failure(description: "'\(relative(spec.resolvingSymlinksInPath()))' does not exist at revision '\(revision)'")
        }
        return SpecAtRevision(revision: revision, root: root, specPath: specInRoot)
    }

    /// `path` as the user should read it: a file of this extraction becomes `<revision>:<path>`.
    func display(_ path: String) -> String {
        let base = root.path + "/"
        return path.hasPrefix(base) ? "\(revision):\(path.dropFirst(base.count))" : path
    }

    func remove() { try? FileManager.default.removeItem(at: root) }

    /// `config` (the working copy's) pointed at this extraction: the old side of a comparison.
    func config(from config: GeneratorConfig) -> GeneratorConfig {
        var old = config
        old.specPath = specPath
        old.allowedFolder = root.path
        return old
    }

    /// The diff of this revision's spec against the working copy's, its locations shown as users read them.
    func changes(to config: GeneratorConfig) -> Result<[SpecChange], SpecDiffFailure> {
        SpecDiff.compare(old: self.config(from: config), new: config).map { changes in
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
