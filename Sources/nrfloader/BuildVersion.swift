import NRFLoaderKit

/// The version and commit `nrfloader --version` prints: the library's (the repository's `VERSION` file) and the
/// commit `scripts/build.sh` recorded, or "unknown commit" for a build that recorded none (a plain `swift build`).
enum BuildVersion {
    /// What `--version` prints: `nrfloader 0.2.0 (commit cde43ed)` or `nrfloader 0.2.0 (unknown commit)`.
    static var text: String {
        "nrfloader \(NRFLoaderVersion.current) "
            + "(\(NRFLoaderVersion.commit.map { "commit \($0)" } ?? "unknown commit"))"
    }
}
