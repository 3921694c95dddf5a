extension Duration {
    /// The duration in whole milliseconds, rounded down: the `elapsed_ms` and `eta_ms` of the JSON output.
    var milliseconds: Int {
        Int(components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000)
    }
}
