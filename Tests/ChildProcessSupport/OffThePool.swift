import Foundation

/// Runs long synchronous test work (a seeded fuzz loop, hundreds of in-process generations) on a
/// thread of its own and suspends until it returns.
///
/// Same reason as `ChildProcess`: tests share a cooperative pool as wide as the machine (two threads
/// on CI). Two CPU-bound loops on it leave no thread for anything else, and every loopback test in
/// flight freezes until one ends; a test waiting with a deadline then fails although nothing is
/// wrong. A thread of its own is time-sliced by the kernel instead, so everything keeps moving.
///
/// `body` runs outside any test's task: it returns what it found, and the test asserts on that.
public func offThePool<T: Sendable, Failure: Error>(_ body: @escaping @Sendable () throws(Failure) -> T) async throws(Failure) -> T {
    let result: Result<T, Failure> = await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: Result { () throws(Failure) -> T in try body() }) }
    }
    return try result.get()
}
