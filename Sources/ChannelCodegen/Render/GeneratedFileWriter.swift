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
        var changed: [(name: String, data: Data)] = []
        for file in files {
            let path = FilePath.appending(directory, file.name)
            let data = Data(file.contents.utf8)
            if FileManager.default.contents(atPath: path) == data {
                report.unchanged.append(file.name)
            } else {
                changed.append((file.name, data))
            }
        }
        guard !changed.isEmpty else { return report }

        let staging = FilePath.appending(directory, ".channelgen-\(UUID().uuidString)")
        try check(mkdir(staging, 0o755) == 0 ? 0 : errno, staging)
        defer { try? FileManager.default.removeItem(atPath: staging) }
        for (name, data) in changed {
            let path = FilePath.appending(staging, name)
            guard FileManager.default.createFile(atPath: path, contents: data) else {
                throw WriteError(path: FilePath.appending(directory, name), reason: reason(errno == 0 ? EIO : errno))
            }
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

    /// `mkdir -p`; 0 or the errno of the first failure.
    private static func mkdirp(_ path: String) -> Int32 { FileSystem.makeDirectories(path) }

    private static func check(_ code: Int32, _ path: String) throws(WriteError) {
        if code != 0 { throw WriteError(path: path, reason: reason(code)) }
    }

    private static func reason(_ code: Int32) -> String { FileSystem.reason(code) }
}
