#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The few file operations the generator needs, on POSIX calls: their failures carry the system's
/// own reason (`No such file or directory`, `Permission denied`), and the tool stays free of
/// Foundation's larger half, which every build that runs the plugin would otherwise load.
package enum FileSystem {
    /// The system's text for an `errno` value.
    package static func reason(_ code: Int32) -> String { String(cString: strerror(code)) }

    /// The whole file, or the `errno` that stopped the read.
    package static func read(_ path: String) -> Result<[UInt8], POSIXFailure> {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return .failure(POSIXFailure(code: errno)) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        // Room for the whole file up front: growing by chunks copied a large file several times.
        var info = stat()
        if fstat(descriptor, &info) == 0, info.st_size > 0 { bytes.reserveCapacity(Int(info.st_size)) }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(POSIXFailure(code: errno))
            }
            if count == 0 { return .success(bytes) }
            bytes += chunk[..<count]
        }
    }

    /// Whether `path` names a directory (following symlinks); `nil` when nothing is there.
    package static func isDirectory(_ path: String) -> Bool? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_mode & S_IFMT == S_IFDIR
    }

    /// What `stat` says of a path: regular file or not, and its size; `nil` when nothing is there.
    package static func kind(of path: String) -> (isRegularFile: Bool, size: Int)? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return (info.st_mode & S_IFMT == S_IFREG, Int(info.st_size))
    }

    /// Whether `path` is itself a symbolic link (not followed).
    package static func isSymbolicLink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK
    }

    /// Creates the file at `path` (it must not exist) holding `bytes`: 0, or the `errno` of the
    /// failure. No `fsync`: callers that need all-or-nothing write into a staging folder and rename.
    package static func create(_ path: String, holding bytes: [UInt8]) -> Int32 {
        bytes.withUnsafeBytes { create(path, holding: $0) }
    }

    /// `create(_:holding:)` for bytes in place (a `String`'s UTF-8, written without a copy).
    package static func create(_ path: String, holding buffer: UnsafeRawBufferPointer) -> Int32 {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return errno }
        var written = 0
        var code: Int32 = 0
        while written < buffer.count {
            let count = systemWrite(descriptor, buffer.baseAddress! + written, buffer.count - written)
            if count < 0 {
                if errno == EINTR { continue }
                code = errno
                break
            }
            written += count
        }
        let closed = close(descriptor) == 0 ? 0 : errno
        return code != 0 ? code : closed
    }

    /// `mkdir -p`: 0, or the `errno` of the first failure (`ENOTDIR` when a file is in the way).
    package static func makeDirectories(_ path: String) -> Int32 {
        if let isDirectory = isDirectory(path) { return isDirectory ? 0 : ENOTDIR }
        let parent = FilePath.directory(of: path)
        if parent != path, parent != ".", parent != "/" {
            let code = makeDirectories(parent)
            if code != 0 { return code }
        }
        if mkdir(path, 0o755) == 0 { return 0 }
        let code = errno
        return code == EEXIST && isDirectory(path) == true ? 0 : code
    }
}

/// A failed system call's `errno`, with the system's text as its description.
package struct POSIXFailure: Error, CustomStringConvertible, Sendable {
    package var code: Int32
    package var description: String { FileSystem.reason(code) }
}

// `read` is shadowed inside `FileSystem` by its own `read(_:)`.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    #if canImport(Darwin)
    Darwin.read(descriptor, buffer, count)
    #elseif canImport(Musl)
    Musl.read(descriptor, buffer, count)
    #else
    Glibc.read(descriptor, buffer, count)
    #endif
}

private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Darwin)
    Darwin.write(descriptor, buffer, count)
    #elseif canImport(Musl)
    Musl.write(descriptor, buffer, count)
    #else
    Glibc.write(descriptor, buffer, count)
    #endif
}
