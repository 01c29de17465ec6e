import Dispatch

/// Drops the last reference to `value` on another thread. Freeing a large API's structure
/// (hundreds of thousands of small arrays and strings) takes about a tenth of a generation, and
/// nothing the caller does next needs it; in a short-lived process the exit may come first.
func releaseElsewhere<T: Sendable>(_ value: consuming T) {
    DispatchQueue.global(qos: .utility).async { [value] in
        withExtendedLifetime(value) {}
    }
}
