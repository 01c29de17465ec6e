import ChannelSpec

/// The first diagnostic `body` throws, as `file:line:col: error: …`; `nil` when it throws none.
func firstDiagnostic<T>(_ body: () throws(DiagnosticsError) -> T) -> String? {
    do {
        _ = try body()
        return nil
    } catch {
        return error.diagnostics.first?.description
    }
}
