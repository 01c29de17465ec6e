import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs programs from tests without blocking Swift concurrency's threads.
///
/// Tests run in parallel on a cooperative pool as wide as the machine has cores (two on CI). A test
/// that waits for a child with a blocking call (`waitpid`, `Process.waitUntilExit`,
/// `readDataToEndOfFile`) holds one of those threads for the child's whole life; with a few such
/// tests in flight, every other test starves, and on Linux we saw whole `swift test` runs stall. So
/// the child is waited for on a thread of its own and the test suspends until it exits.
public enum ChildProcess {
    public struct Output: Sendable {
        public var status: Int32
        /// With `mergingOutput: true`, both streams interleaved as written.
        public var stdout: String
        public var stderr: String
    }

    /// Runs `executable` to completion and returns its exit status and output.
    ///
    /// Output goes to temporary files rather than pipes, and the child inherits no other descriptor, so
    /// no pipe end or socket of another test can be held open by it. A death by signal reports 128 + signal, as
    /// shells do. With `mergingOutput`, stderr goes to the same file as stdout.
    ///
    /// `background: true` is for heavy children nothing waits on with a deadline (compilers, nested
    /// builds): they run at the lowest CPU priority (`nice`), so the dozen type-checks a test run starts at
    /// once do not take the CPU from loopback tests in this process whose waits have a bound.
    public static func run(
        _ executable: URL, _ arguments: [String], in directory: URL? = nil, mergingOutput: Bool = false, background: Bool = false
    ) async throws -> Output {
        if background {
            return try await run(
                URL(fileURLWithPath: "/usr/bin/env"), ["nice", "-n", "19", executable.path] + arguments, in: directory,
                mergingOutput: mergingOutput)
        }
        if let directory {
            // posix_spawn has no portable chdir action: a shell changes folder, then becomes the program.
            return try await run(
                URL(fileURLWithPath: "/bin/sh"), ["-c", "cd \"$0\" && exec \"$@\"", directory.path, executable.path] + arguments,
                mergingOutput: mergingOutput)
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let outPath = folder.appendingPathComponent("stdout").path
        let errPath = folder.appendingPathComponent("stderr").path

        let pid = try spawn(executable.path, arguments, stdout: outPath, stderr: mergingOutput ? nil : errPath)
        let status = await exitStatus(of: pid)
        return Output(
            status: status,
            stdout: try String(contentsOfFile: outPath, encoding: .utf8),
            stderr: mergingOutput ? "" : try String(contentsOfFile: errPath, encoding: .utf8))
    }

    private static func spawn(_ path: String, _ arguments: [String], stdout: String, stderr: String?) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        if let stderr {
            posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        } else {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
        // Nothing else is inherited: a child holding a copy of a test's socket keeps that connection
        // open after the test closes it (loopback tests waiting for the close then wait in vain for as
        // long as the child runs: a batched type-check, a nested `swift build`).
        #if canImport(Glibc)
        guard let closeFrom = Self.addCloseFrom else { throw POSIXError(.ENOSYS) }
        _ = closeFrom(&actions, 3)
        #endif
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        #if canImport(Darwin)
        // Darwin: close every descriptor the actions do not set up.
        var attributes: posix_spawnattr_t = nil
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_CLOEXEC_DEFAULT))
        let result = posix_spawn(&pid, path, &actions, &attributes, argv, environ)
        #else
        let result = posix_spawn(&pid, path, &actions, nil, argv, environ)
        #endif
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EINVAL) }
        return pid
    }

    #if canImport(Glibc)
    /// `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34+), looked up at run time: Swift's Glibc
    /// module does not declare it (it is behind `_GNU_SOURCE`).
    private static let addCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()
    #endif

    /// Waits for `pid` on a dedicated thread, off the cooperative pool.
    private static func exitStatus(of pid: pid_t) async -> Int32 {
        await offThePool {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            // WIFEXITED / WEXITSTATUS by hand: the macros are not imported into Swift.
            return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        }
    }
}
