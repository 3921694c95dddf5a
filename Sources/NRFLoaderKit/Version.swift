internal import BuildInfo

/// The library's version: the release it belongs to, as the repository's `VERSION` file and tag `vX.Y.Z` name it.
///
/// The public API follows semantic versioning (README, "Versioning and API stability").
public enum NRFLoaderVersion {
    /// The release version, such as `0.2.0`.
    public static let current = trimmed(nrf_build_version())

    /// The abbreviated commit `scripts/build.sh` recorded for a release build (`cde43ed`, `cde43ed-dirty`), or `nil`
    /// for any other build.
    public static let commit: String? = {
        let commit = trimmed(nrf_build_commit())
        return commit.isEmpty ? nil : commit
    }()

    private static func trimmed(_ text: UnsafePointer<CChar>) -> String {
        String(cString: text).filter { !$0.isWhitespace }
    }
}
