import Foundation
import TestSupport
import Testing

@Suite struct VersionTests {
    /// The VERSION file at the repository root: the one place the version is written.
    static func versionFile() throws -> String {
        let text = try String(contentsOf: TestPaths.repositoryRoot.appendingPathComponent("VERSION"), encoding: .utf8)
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("--version prints VERSION's version and the commit, or says the commit is unknown")
    func versionLine() throws {
        let result = nrfloader(["--version"])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        let version = try Self.versionFile()
        let line = result.stdoutText
        // scripts/build.sh records the commit; `swift build`, which the tests run, records none.
        let commit = #/^nrfloader (?<version>[^ ]+) \((?:commit [0-9a-f]{7}(?:-dirty)?|unknown commit)\)\n$/#
        let match = try #require(line.wholeMatch(of: commit), "--version printed '\(line)'")
        #expect(String(match.output.version) == version)
    }

    @Test("VERSION is a Debian native version the package can carry: digits and dots, no revision")
    func versionFormat() throws {
        #expect(try Self.versionFile().wholeMatch(of: #/[0-9]+(\.[0-9]+)*/#) != nil)
    }
}
