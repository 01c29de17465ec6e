import Foundation

/// A value behind a lock, for state shared between a connection's actor and the tasks that deliver
/// events. Foundation's `NSLock`: `Synchronization.Mutex` needs newer OS versions than this package
/// supports, and the runtime module stays free of NIO.
///
/// Sendable only when `Value` is (NIO's `NIOLockedValueBox` rule): a lock makes access exclusive,
/// it does not make a non-Sendable value safe to hand to another thread.
package final class LockedValue<Value> {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

// @unchecked: `value` is only touched with `lock` held, and it is Sendable itself.
extension LockedValue: @unchecked Sendable where Value: Sendable {}
