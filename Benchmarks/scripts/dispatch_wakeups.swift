// Where a Swift program's idle wake-ups on Linux come from (Benchmarks/README.md, 8a).
//   swiftc -O Benchmarks/scripts/dispatch_wakeups.swift -o /tmp/dispatch_wakeups
//   for m in none after dispatch sleep; do /tmp/dispatch_wakeups $m & done; wait
// none: nothing; after: a pending asyncAfter(300 s) only; dispatch: one work item on a global queue;
// sleep: nine pending Task.sleep(for: .seconds(300)). Prints voluntary context switches per thread
// over 20 s of a blocking sleep on the main thread.
import Foundation

func switches() -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []).sorted().map { task in
        let name = ((try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? "?").trimmingCharacters(in: .whitespacesAndNewlines)
        let status = (try? String(contentsOfFile: "/proc/self/task/\(task)/status", encoding: .utf8)) ?? ""
        return "\(name) \(status.split(separator: "\n").first { $0.hasPrefix("voluntary") } ?? "")"
    }
}

let mode = CommandLine.arguments.dropFirst().first ?? "none"
switch mode {
case "after": DispatchQueue.global().asyncAfter(deadline: .now() + 300) {}
case "dispatch": DispatchQueue.global().async {}
case "sleep": for _ in 0..<9 { Task { try? await Task.sleep(for: .seconds(300)) } }
default: break
}
Thread.sleep(forTimeInterval: 1)
let before = switches()
Thread.sleep(forTimeInterval: 20)
print(mode, "before:", before, "after 20 s:", switches())
