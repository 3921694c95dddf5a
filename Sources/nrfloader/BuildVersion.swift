internal import BuildInfo
import NRFLoaderKit

/// The version and commit `nrfloader --version` prints, read from what the build compiled in.
///
/// The version is the repository's `VERSION` file, the one the Debian package is named after; the commit is the one
/// `scripts/build.sh` recorded, or "unknown commit" for a build that recorded none (a plain `swift build`).
enum BuildVersion {
    /// The release version, such as `0.1.0`.
    static let version = trimmed(nrf_build_version())

    /// The abbreviated commit (`cde43ed`, `cde43ed-dirty` when built with uncommitted changes), or `nil`.
    static let commit: String? = {
        let commit = trimmed(nrf_build_commit())
        return commit.isEmpty ? nil : commit
    }()

    /// What `--version` prints: `nrfloader 0.1.0 (commit cde43ed)` or `nrfloader 0.1.0 (unknown commit)`.
    static var text: String {
        "nrfloader \(version) (\(commit.map { "commit \($0)" } ?? "unknown commit"))"
    }

    private static func trimmed(_ text: UnsafePointer<CChar>) -> String {
        String(cString: text).filter { !$0.isWhitespace }
    }
}
