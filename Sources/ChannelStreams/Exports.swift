// Stream operators for apps, on any `AsyncSequence` of events: `coalesced(by:within:clock:merge:)`
// here, and swift-async-algorithms' `debounce(for:clock:)`, `throttle`, `merge` and friends, which
// this module re-exports rather than wraps.
@_exported import AsyncAlgorithms
