import Dispatch

extension Array where Element: Sendable {
    /// `map` spread over the machine's cores, results in order. Only for independent, CPU-bound work on
    /// values (the generator's stages share nothing mutable).
    func concurrentMap<T: Sendable>(_ transform: @Sendable (Element) -> T) -> [T] {
        guard count > 1 else { return map(transform) }
        let results = Slots<T>(count: count)
        defer { results.free() }
        withoutActuallyEscaping(transform) { transform in
            DispatchQueue.concurrentPerform(iterations: count) { [self] index in
                results.set(index, transform(self[index]))
            }
        }
        return results.values
    }
}

/// One slot per iteration of a `concurrentPerform`: each iteration writes only its own slot, and
/// they are read after all have finished, so no two threads touch the same memory.
private struct Slots<T>: @unchecked Sendable {
    private let buffer: UnsafeMutableBufferPointer<T?>

    init(count: Int) {
        buffer = .allocate(capacity: count)
        buffer.initialize(repeating: nil)
    }

    func set(_ index: Int, _ value: T) { buffer[index] = value }

    var values: [T] { buffer.map { $0! } }

    func free() {
        buffer.deinitialize()
        buffer.deallocate()
    }
}
