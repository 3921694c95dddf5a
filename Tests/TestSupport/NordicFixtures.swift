package import Foundation

/// The real nRF5 SDK packages and debug public keys in `Tests/Data/nordic-sdk`.
///
/// They are committed with their licence notice (`Tests/Data/nordic-sdk/README.md`), so the tests that read them
/// run on every clone. `debug_public_keys.json` records each SDK release's `dfu_public_key.c` (repository,
/// commit, blob) and the three forms of its key.
package enum NordicFixtures {
    package static let folder: URL = TestPaths.repositoryRoot.appendingPathComponent("Tests/Data/nordic-sdk")

    package static func bytes(_ relativePath: String) throws -> [UInt8] {
        Array(try Data(contentsOf: folder.appendingPathComponent(relativePath)))
    }

    /// Every `.zip` below the folder, as paths relative to it.
    package static func allZips() -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: folder.path) else { return [] }
        return enumerator.compactMap { $0 as? String }.filter { $0.hasSuffix(".zip") }.sorted()
    }

    /// One SDK release's debug key, as `debug_public_keys.json` lists it.
    package struct DebugKey: Decodable {
        package var sdk: String
        package var pkAsStoredHex: String
        package var xBigEndianHex: String
        package var yBigEndianHex: String
        package var sec1UncompressedHex: String
        package var signsFixturesHere: [String]

        enum CodingKeys: String, CodingKey {
            case sdk
            case pkAsStoredHex = "pk_as_stored_hex"
            case xBigEndianHex = "x_big_endian_hex"
            case yBigEndianHex = "y_big_endian_hex"
            case sec1UncompressedHex = "sec1_uncompressed_hex"
            case signsFixturesHere = "signs_fixtures_here"
        }
    }

    package static func debugKeys() throws -> [DebugKey] {
        struct File: Decodable { var keys: [DebugKey] }
        return try JSONDecoder().decode(File.self, from: Data(try bytes("debug_public_keys.json"))).keys
    }

    /// The debug key of the SDK release a fixture path starts with (`sdk-15.0.0/…` → 15.0.0).
    package static func debugKey(for path: String) throws -> DebugKey? {
        let release = path.split(separator: "/").first.map { String($0.dropFirst("sdk-".count)) }
        return try debugKeys().first { $0.sdk == release }
    }
}

/// Decodes hex text (no separators) to bytes; traps on odd length or a bad digit, which only a broken test has.
///
/// - Parameter hex: The hex digits.
/// - Returns: The bytes.
package func bytes(hex: String) -> [UInt8] {
    let digits = Array(hex.utf8)
    precondition(digits.count % 2 == 0, "odd-length hex '\(hex)'")
    return stride(from: 0, to: digits.count, by: 2).map { index in
        guard let byte = UInt8(String(decoding: digits[index..<(index + 2)], as: UTF8.self), radix: 16) else {
            preconditionFailure("bad hex '\(hex)'")
        }
        return byte
    }
}
