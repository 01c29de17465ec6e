/// A stream's elements as they come, read in the background the way an app reads them; a test
/// awaits what it needs (`wait`, `first`) instead of polling.
package final class Collected<Element: Sendable>: Sendable {
    private let items = Watched<[Element]>([])
    private let reader: Task<Void, Never>

    /// Starts reading the stream `stream` returns; the reader ends with the stream or at `cancel()`.
    package init(_ stream: @escaping @Sendable () async -> AsyncStream<Element>) {
        let items = self.items
        // Not a child: the test goes on while the stream is read, and asserts on it later.
        reader = Task {
            for await element in await stream() { items.update { $0.append(element) } }
        }
    }

    /// What came so far, in order.
    package var elements: [Element] { items.value }
    package var count: Int { items.value.count }

    /// Stops reading.
    package func cancel() { reader.cancel() }

    /// Returns once what was collected satisfies `condition`, checked at each element (an await,
    /// not a poll); throws `WaitTimedOut` after `seconds` of real time, naming the last elements
    /// that came (what happened instead).
    package func wait(_ what: String, within seconds: Double = 120, until condition: @escaping @Sendable ([Element]) -> Bool) async throws {
        do {
            try await items.wait(what, within: seconds, until: condition)
        } catch let timedOut as WaitTimedOut {
            let seen = elements
            let shown = seen.suffix(8).map { "\($0)" }.joined(separator: ", ")
            throw WaitTimedOut(description: "\(timedOut.description); \(seen.count) came\(seen.isEmpty ? "" : ", the last: \(shown)")")
        }
    }

    /// The first `count` elements, once they came; throws `WaitTimedOut` after `seconds` of real time.
    package func first(_ count: Int, within seconds: Double = 120) async throws -> [Element] {
        try await wait("\(count) elements", within: seconds) { $0.count >= count }
        return Array(elements.prefix(count))
    }
}
