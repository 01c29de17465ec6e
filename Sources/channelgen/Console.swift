#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The command line's small needs, on libc (the tool links FoundationEssentials only).
enum Console {
    /// Writes `text` to standard error as it is.
    static func writeError(_ text: String) {
        fflush(nil)  // what was printed to stdout first stays first
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            bytes = bytes.dropFirst(written)
        }
    }

    /// A run allocates tens of megabytes in one burst and exits. With glibc's defaults, each large
    /// buffer (a rendered file, growing by doubling) gets a mapping of its own and the heap is trimmed
    /// as it shrinks, so the same memory is faulted in again and again (on the 504-channel spec,
    /// 8 138 page faults instead of 7 133; 1–3 % of the run, Benchmarks §1). Keep what was mapped instead.
    static func tuneAllocatorForABurst() {
        #if canImport(Glibc)
        // `mallopt` is glibc's (malloc.h, which the Glibc module does not import): looked up, and
        // skipped where it is missing. -3 is M_MMAP_THRESHOLD, -2 is M_TOP_PAD.
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
        let mallopt = unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
        _ = mallopt(-3, 256 << 20)
        _ = mallopt(-2, 64 << 20)
        #endif
    }

    /// Ends the process with `status`.
    static func exit(_ status: Int32) -> Never {
        fflush(nil)
        #if canImport(Darwin)
        Darwin.exit(status)
        #elseif canImport(Musl)
        Musl.exit(status)
        #else
        Glibc.exit(status)
        #endif
    }
}

extension String {
    /// Without leading and trailing spaces, tabs and line breaks (a command's output line).
    var trimmingWhitespace: String {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0.isNewline }
        guard let first = firstIndex(where: { !isBlank($0) }), let last = lastIndex(where: { !isBlank($0) }) else { return "" }
        return String(self[first...last])
    }
}
