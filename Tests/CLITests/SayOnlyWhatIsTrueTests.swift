import Foundation
import TestSupport
import Testing

private let corpus = TestPaths.repositoryRoot.appendingPathComponent("Tests/Fuzz/Corpus/package").path
private let firmware = TestPaths.repositoryRoot.appendingPathComponent("Resources/firmware").path

/// The cases of issue 16 the input side owns, through the built binary: numbers that cannot be true, parts under
/// keys no vendor writes, and outside text that reaches the terminal.
@Suite struct SayOnlyWhatIsTrueTests {
    private static let case1Message =
        "Error: \(corpus)/issue16-case1.zip: manifest.json has 'manifest.softdevice_bootloader.sd_size' = "
        + "9223372036854775807, more than the image's 5120 bytes\n"

    @Test(
        "case 1: a legacy SD+BL size of 2^63 - 1 is exit 65 naming the field and value, not an overflow trap",
        arguments: [
            ["info", "\(corpus)/issue16-case1.zip"],
            ["upload", "--target", "sim:legacy", "\(corpus)/issue16-case1.zip", "--sim-speed", "0"],
        ])
    func overflowingSize(arguments: [String]) {
        let result = nrfloader(arguments)
        #expect(result.status == 65)
        #expect(result.stdout.isEmpty)
        #expect(result.stderrText == Self.case1Message)
    }

    @Test("case 2: a package whose application is filed under 'app' is refused before anything is sent")
    func unknownPartKey() {
        let result = nrfloader(["upload", "--target", "sim", "\(corpus)/issue16-case2.zip", "--sim-speed", "0"])
        #expect(result.status == 65)
        #expect(result.stdout.isEmpty)
        #expect(
            result.stderrText
                == "Error: \(corpus)/issue16-case2.zip: manifest.json has an unknown key 'manifest.app'; known keys "
                + "there: application, bootloader, dfu_version, softdevice, softdevice_bootloader\n")
    }

    @Test("a hex record running past 4 GiB is exit 65 naming the address it would reach")
    func hexPastAddressSpace() {
        // Extended linear address 0xFFFF, then 16 bytes at 0xFFF8: the last would be at 0x1_0000_0007.
        let hex = Array(":02000004FFFFFC\n:10FFF800000102030405060708090A0B0C0D0E0F81\n:00000001FF\n".utf8)
        let result = nrfloader(["info", "-"], input: hex)
        #expect(result.status == 65)
        #expect(result.stderrText == "Error: <stdin>:2: data runs past the 4 GiB address space (to 0x100000007)\n")
    }

    @Test("info lists a second hex region under the first, without a stray colon")
    func hexRegionsAligned() {
        let result = nrfloader(["info", "-"], input: sampleHex)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(
            result.stdoutText.contains(
                "\nregions:       0x00026000–0x00026007 (8 bytes)\n               0x00026010–0x00026011 (2 bytes)\n"),
            "\(result.stdoutText)")
    }

    /// A user catalog whose title writes the clipboard (OSC 52) and clears the screen, and whose description ends
    /// in DEL and a C1 CSI.
    private static func hostileCatalog(in directory: TemporaryDirectory) throws -> String {
        let image = try Data(contentsOf: URL(fileURLWithPath: "\(firmware)/blinky-pca10040.bin"))
        try directory.write("blinky.bin", [UInt8](image))
        let sha = sha256Hex([UInt8](image))
        return try directory.write(
            "catalog.json",
            Array(
                #"""
                {"schema": 1, "firmware": [{"id": "evil", "title": "T\u001b]52;c;aGk=\u0007\u001b[2J",
                  "description": "d\u007f\u009b", "version": "1", "boards": ["PCA10040"], "chip": "nRF52832",
                  "type": "application", "file": "blinky.bin", "size": 604, "sha256": "\#(sha)",
                  "load_address": "0x00026000", "dfu": {"secure": {"hardware_version": 52, "firmware_version": 1,
                  "softdevice_required": [257]}}}]}
                """#.utf8))
    }

    @Test("a catalog title with terminal escapes is shown as visible escapes by list and info, and JSON-escaped")
    func catalogEscapes() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let catalog = try Self.hostileCatalog(in: directory)
        let visibleTitle = #"T\x1b]52;c;aGk=\x07\x1b[2J"#

        let list = nrfloader(["list", "--catalog", catalog])
        #expect(list.status == 0, "\(list.stderrText)")
        let row = try #require(list.stdoutText.split(separator: "\n").last.map(String.init))
        #expect(row.hasPrefix("evil                         \(visibleTitle)  "), "\(row)")
        #expect(row.hasSuffix("  1        PCA10040  application  secure            604"), "\(row)")
        #expect(!list.stdout.contains(0x1B) && !list.stdout.contains(0x07) && !list.stdout.contains(0x7F))

        let info = nrfloader(["info", "evil", "--catalog", catalog])
        #expect(info.status == 0, "\(info.stderrText)")
        #expect(info.stdoutText.contains("\ntitle:         \(visibleTitle)\n"), "\(info.stdoutText)")
        #expect(info.stdoutText.contains("\n" + #"description:   d\x7f\x9b"#), "\(info.stdoutText)")
        #expect(!info.stdout.contains(0x1B) && !info.stdout.contains(0x9B))

        let json = nrfloader(["info", "evil", "--catalog", catalog, "--json"])
        #expect(json.stdoutText.contains(#""title":"T\u001b]52;c;aGk=\u0007\u001b[2J""#), "\(json.stdoutText)")
        #expect(json.stdoutText.contains(#""description":"d\u007f\u009b""#))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout)) as? [String: Any])
        #expect(object["title"] as? String == "T\u{1B}]52;c;aGk=\u{07}\u{1B}[2J")
    }

    @Test("an entry name with a newline and NULs (found by the package fuzzer) stays on one escaped error line")
    func entryNameInError() {
        let path = "\(corpus)/fuzz-found-entry-name-newline.zip"
        let result = nrfloader(["info", path])
        #expect(result.status == 65)
        #expect(
            result.stderrText
                == "Error: \(path): entry 'blinky\\x0a\\x00\\x00\\x00\\x00\\x00\\x00\\x000.dat' is empty or contains a "
                + "control character\n")
    }

    @Test("a file name with terminal escapes is escaped in the error line")
    func fileNameInError() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write("bad\u{1B}[2J.zip", Array("not a zip".utf8))
        let result = nrfloader(["info", path, "--json"])
        #expect(result.status == 65)
        let visible = directory.file(#"bad\x1b[2J.zip"#)
        #expect(
            result.stderrText
                == "Error: \(visible): no end-of-central-directory record found; not a zip archive, or truncated\n")
        #expect(result.stdoutText.contains(#"bad\u001b[2J.zip"#))
    }

    @Test("keys, package, settings and a fleet's target list escape a file name in their error line too")
    func fileNameInCommandErrors() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let hostile = "x\u{1B}[2J"
        let visible = #"x\x1b[2J"#
        let key = try directory.write(hostile + ".pem", Array("taken".utf8))
        let keys = nrfloader(["keys", "generate", key])
        #expect(keys.status == 73)
        #expect(
            keys.stderrText
                == "Error: '\(directory.file(visible + ".pem"))': already exists; remove it first to make a new key\n")
        #expect(try directory.read(hostile + ".pem") == Array("taken".utf8))

        let hex = try directory.write(hostile + ".hex", Array(":00000001FF\n".utf8))
        let package = nrfloader([
            "package", "--hw-version", "52", "--sd-req", "0x0101", "--application-version", "1", "--application", hex,
            directory.file("out.zip"),
        ])
        #expect(package.status == 65)
        #expect(package.stderrText.hasPrefix("Error: \(directory.file(visible + ".hex")): "), "\(package.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("out.zip")))

        let settings = nrfloader(["settings", "display", hex])
        #expect(settings.status == 65)
        #expect(settings.stderrText.hasPrefix("Error: \(directory.file(visible + ".hex")): "), "\(settings.stderrText)")

        let targets = try directory.write(hostile + ".txt", Array("nope\n".utf8))
        let fleet = nrfloader(["upload", "--json", "--targets-from", targets, "blinky-pca10040"])
        #expect(fleet.status == 64)
        let listed = directory.file(visible + ".txt")
        let expected = "Error: \(listed):1: 'nope' is not a bluetooth address"
        #expect(fleet.stderrText.hasPrefix(expected), "\(fleet.stderrText)")
        let last = try #require(fleet.stdoutText.split(separator: "\n").last)
        #expect(last.hasPrefix(#"{"event":"error","exit_status":64,"#), "\(fleet.stdoutText)")
    }
}
