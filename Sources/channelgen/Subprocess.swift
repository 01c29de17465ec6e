import ChannelSpec
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a program (found on `PATH`) to completion, for the few commands that call `git` and `tar`.
///
/// `posix_spawnp` rather than Foundation's `Process`, which would link all of Foundation (and ICU)
/// into a tool every build starts. The child's output goes to files in `scratchFolder`, not pipes,
/// so a chatty child can never block on a full pipe while we wait for it.
enum Subprocess {
    struct Outcome {
        var status: Int32
        var output: String
        var errors: String
    }

    static func run(_ arguments: [String], scratchFolder: String) throws(CommandFailure) -> Outcome {
        let outputPath = scratchFolder + "/.stdout", errorsPath = scratchFolder + "/.stderr"
        defer {
            unlink(outputPath)
            unlink(errorsPath)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errorsPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let spawned = posix_spawnp(&pid, arguments[0], &actions, nil, &argv, environ)
        guard spawned == 0 else {
            throw CommandFailure(description: "cannot run \(arguments[0]): \(FileSystem.reason(spawned))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        // WIFEXITED / WEXITSTATUS: the exit code, or 128 + the signal that ended it, as shells report.
        let exitCode = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return Outcome(status: exitCode, output: contents(of: outputPath), errors: contents(of: errorsPath))
    }

    private static func contents(of path: String) -> String {
        (try? FileSystem.read(path).get()).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }
}

/// Why a command (or the `git` work built on it) failed, in words for the user.
struct CommandFailure: Error, CustomStringConvertible {
    var description: String
}
