/// Asks `probe` every 50 ms until it gives a value, for at most `limit`: for state that another thread (a served
/// peripheral, a simulated device) fills in while the test waits.
///
/// - Parameters:
///   - limit: How long to keep asking.
///   - probe: What to look for; `nil` while it is not there yet.
/// - Returns: The first value, or `nil` when the limit passed first.
/// - Throws: `CancellationError` when the waiting task is cancelled.
package func eventually<T>(within limit: Duration = .seconds(20), _ probe: () -> T?) async throws -> T? {
    let deadline = ContinuousClock.now + limit
    while true {
        if let value = probe() { return value }
        guard ContinuousClock.now < deadline else { return nil }
        try await Task.sleep(for: .milliseconds(50))
    }
}
