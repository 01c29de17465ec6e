import ChannelSpec
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes generated files all or nothing, touching only those whose bytes changed (stable mtimes
/// keep incremental builds incremental).
///
/// Changed files are first written into a staging folder beside the outputs, then every target is
/// checked (a folder in a file's place, an unwritable directory), and only then moved into place one
/// `rename` each. A failure before the moves leaves every output as it was.
package enum GeneratedFileWriter {
    /// Which files were written and which already had the right bytes.
    package struct Report: Sendable, Equatable {
        /// Files written.
        package var written: [String] = []
        /// Files left as they were.
        package var unchanged: [String] = []
    }

    /// An I/O failure with the path and the system's reason (`Is a directory`, `Permission denied`).
    package struct WriteError: Error, CustomStringConvertible, Sendable {
        /// The path that could not be written.
        package var path: String
        /// The system's reason.
        package var reason: String
        /// The path and the reason.
        package var description: String { "cannot write '\(path)': \(reason)" }
    }

    /// Writes the files that changed into `directory`, all or nothing.
    package static func write(_ files: [GeneratedFile], to directory: String) throws(WriteError) -> Report {
        try check(mkdirp(directory), directory)
        var report = Report()
        // Each file's text is compared and written from its own UTF-8 storage: a copy of a large
        // client's text is megabytes of fresh pages.
        var changed: [(name: String, contents: String)] = []
        for file in files {
            let path = FilePath.appending(directory, file.name)
            if case .success(let existing) = FileSystem.read(path), hasBytes(file.contents, existing) {
                report.unchanged.append(file.name)
            } else {
                changed.append((file.name, file.contents))
            }
        }
        guard !changed.isEmpty else { return report }

        // The staging folder and the renames make the write all or nothing; no file needs an
        // `fsync` of its own (Foundation's atomic writes do one per file: most of a run's time).
        let staging = FilePath.appending(directory, ".channelgen-\(UUID().uuidString)")
        try check(mkdir(staging, 0o755) == 0 ? 0 : errno, staging)
        defer {
            // Empty once every file moved; after a failure, what is left goes too.
            if rmdir(staging) != 0 { try? FileManager.default.removeItem(atPath: staging) }
        }
        for (name, var contents) in changed {
            let code = contents.withUTF8 { FileSystem.create(FilePath.appending(staging, name), holding: UnsafeRawBufferPointer($0)) }
            if code != 0 { throw WriteError(path: FilePath.appending(directory, name), reason: reason(code)) }
        }
        for (name, _) in changed {
            let target = FilePath.appending(directory, name)
            if FileSystem.isDirectory(target) == true {
                throw WriteError(path: target, reason: reason(EISDIR))
            }
        }
        for (name, _) in changed {
            let target = FilePath.appending(directory, name)
            try check(rename(FilePath.appending(staging, name), target) == 0 ? 0 : errno, target)
            report.written.append(name)
        }
        return report
    }

    /// Whether `text`'s UTF-8 is exactly `bytes`.
    private static func hasBytes(_ text: String, _ bytes: [UInt8]) -> Bool {
        var text = text
        return text.withUTF8 { utf8 in
            bytes.withUnsafeBufferPointer { utf8.count == $0.count && (utf8.isEmpty || memcmp(utf8.baseAddress!, $0.baseAddress!, utf8.count) == 0) }
        }
    }

    /// `mkdir -p`; 0 or the errno of the first failure.
    private static func mkdirp(_ path: String) -> Int32 { FileSystem.makeDirectories(path) }

    private static func check(_ code: Int32, _ path: String) throws(WriteError) {
        if code != 0 { throw WriteError(path: path, reason: reason(code)) }
    }

    private static func reason(_ code: Int32) -> String { FileSystem.reason(code) }
}
