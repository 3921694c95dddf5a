import DFUPackage
import DFUSigning
import Foundation
import TestSupport
import Testing

/// `nrfloader package` against packages nrfutil 6.1.7 and adafruit-nrfutil 0.5.3.post16 made from the same inputs
/// (`Tests/Data/package-builder/README.md`, `Tests/Data/packages/README.md`).
@Suite struct PackageCommandTests {
    static let root = TestPaths.repositoryRoot.path
    static let data = root + "/Tests/Data/package-builder"
    static let packages = root + "/Tests/Data/packages"
    static let key = packages + "/nrfutil-test-key.pem"
    static let blinky = root + "/Resources/firmware/blinky-pca10040.hex"
    static let selftest = root + "/Resources/firmware/selftest-pca10040.hex"

    struct Case: CustomStringConvertible, Sendable {
        var reference: String
        var arguments: [String]
        var description: String { (reference as NSString).lastPathComponent }
    }

    static let cases: [Case] = {
        let d = data
        let p = packages
        return [
            Case(
                reference: d + "/nrfutil-gaps.zip",
                arguments: [
                    "--hw-version", "52", "--sd-req", "0x124,0x101,0xB6", "--application-version-string", "1.2.3",
                    "--application", d + "/app-gaps-mbr-uicr.hex",
                ]),
            Case(
                reference: d + "/nrfutil-sd.zip",
                arguments: [
                    "--hw-version", "52", "--sd-req", "0x0101", "--softdevice", d + "/s132-like-sd.hex",
                    "--sd-boot-validation", "VALIDATE_GENERATED_SHA256",
                ]),
            Case(
                reference: d + "/nrfutil-plain-sd.zip",
                arguments: ["--hw-version", "52", "--sd-req", "0x0101", "--softdevice", d + "/plain-sd.hex"]),
            Case(
                reference: d + "/nrfutil-bl.zip",
                arguments: [
                    "--hw-version", "52", "--sd-req", "0x00", "--bootloader", d + "/bootloader.hex",
                    "--bootloader-version", "3",
                ]),
            Case(
                reference: d + "/nrfutil-sd-app.zip",
                arguments: [
                    "--hw-version", "52", "--sd-req", "0x0101", "--sd-id", "0x0124,0x0101", "--softdevice",
                    d + "/plain-sd.hex", "--application", d + "/app-gaps-mbr-uicr.hex", "--application-version",
                    "0x010203",
                ]),
            Case(
                reference: d + "/nrfutil-sd-bl-app.zip",
                arguments: [
                    "--hw-version", "52", "--sd-req", "0x0101", "--sd-id", "0x0124", "--softdevice",
                    d + "/s132-like-sd.hex", "--bootloader", d + "/bootloader.hex", "--bootloader-version", "2",
                    "--application", d + "/app-raw.bin", "--application-version", "9", "--app-boot-validation",
                    "NO_VALIDATION",
                ]),
            Case(
                reference: d + "/nrfutil-external.zip",
                arguments: [
                    "--hw-version", "52", "--external-app", "--application", d + "/app-raw.bin",
                    "--application-version", "5",
                ]),
            Case(
                reference: d + "/nrfutil-debug-defaults.zip",
                arguments: ["--debug-mode", "--application", d + "/app-gaps-mbr-uicr.hex"]),
            Case(
                reference: d + "/nrfutil-sd-bl-ecdsa-signed.zip",
                arguments: [
                    "--hw-version", "52", "--sd-req", "0x0101", "--sd-id", "0x0101", "--softdevice",
                    d + "/s132-like-sd.hex", "--bootloader", d + "/bootloader.hex", "--bootloader-version", "1",
                    "--sd-boot-validation", "VALIDATE_ECDSA_P256_SHA256", "--key-file", key,
                ]),
            Case(
                reference: p + "/nrfutil617-blinky-signed.zip",
                arguments: [
                    "--hw-version", "52", "--sd-req", "0x0101", "--application-version", "1", "--application", blinky,
                    "--key-file", key,
                ]),
            Case(
                reference: p + "/nrfutil617-blinky-unsigned.zip",
                arguments: [
                    "--hw-version", "52", "--sd-req", "0x0101", "--application-version", "1", "--application", blinky,
                ]),
            Case(
                reference: p + "/nrfutil617-blinky-sdreq2-signed.zip",
                arguments: [
                    "--hw-version", "52", "--sd-req", "0x0101,0x0124", "--application-version", "1", "--application",
                    blinky, "--key-file", key,
                ]),
            Case(
                reference: p + "/nrfutil617-blinky-debug-signed.zip",
                arguments: [
                    "--hw-version", "52", "--sd-req", "0x0101", "--application-version", "7", "--debug-mode",
                    "--application", blinky, "--key-file", key,
                ]),
            Case(
                reference: p + "/nrfutil617-blinky-ecdsa-boot-signed.zip",
                arguments: [
                    "--hw-version", "52", "--sd-req", "0x0101", "--application-version", "1", "--app-boot-validation",
                    "VALIDATE_ECDSA_P256_SHA256", "--application", blinky, "--key-file", key,
                ]),
            Case(
                reference: p + "/nrfutil617-selftest-signed.zip",
                arguments: [
                    "--hw-version", "52", "--sd-req", "0x0101", "--application-version", "2", "--application",
                    selftest, "--key-file", key,
                ]),
            Case(
                reference: d + "/adafruit-gaps.zip",
                arguments: [
                    "--dfu", "legacy", "--dev-type", "0x0052", "--application-version", "3", "--sd-req",
                    "0x0101,0x00B6", "--application", d + "/app-gaps-mbr-uicr.hex",
                ]),
            Case(
                reference: d + "/adafruit-sd-bl-dfu06.zip",
                arguments: [
                    "--dfu", "legacy", "--dfu-ver", "0.6", "--sd-req", "none", "--softdevice", d + "/s132-like-sd.hex",
                    "--bootloader", d + "/bootloader.hex",
                ]),
            Case(
                reference: d + "/adafruit-raw-bin.zip",
                arguments: ["--dfu", "legacy", "--dev-revision", "7", "--application", d + "/app-raw.bin"]),
            Case(
                reference: p + "/adafruit-blinky-dfu05.zip",
                arguments: [
                    "--dfu", "legacy", "--dev-type", "0x0052", "--dev-revision", "0x0001", "--application-version",
                    "1", "--sd-req", "0x0101", "--application", blinky,
                ]),
            Case(
                reference: p + "/adafruit-blinky-dfu06.zip",
                arguments: [
                    "--dfu", "legacy", "--dfu-ver", "0.6", "--dev-type", "0x0052", "--dev-revision", "0x0001",
                    "--application-version", "1", "--sd-req", "0x0101", "--application", blinky,
                ]),
            Case(
                reference: p + "/adafruit-blinky-defaults.zip", arguments: ["--dfu", "legacy", "--application", blinky]),
            Case(
                reference: p + "/adafruit-selftest-dfu05.zip",
                arguments: [
                    "--dfu", "legacy", "--dev-type", "0x0052", "--dev-revision", "0xABCD", "--application-version",
                    "0x01020304", "--sd-req", "0x00B6,0x0101", "--application", selftest,
                ]),
        ]
    }()

    static func zip(_ path: String) throws -> ZipArchive {
        try ZipArchive(bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))), name: path)
    }

    @Test("package writes what nrfutil / adafruit-nrfutil write for the same inputs", arguments: cases)
    func matchesReference(_ example: Case) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let output = directory.file("out.zip")
        let result = ProcessRunner().run(TestPaths.nrfloader, ["package"] + example.arguments + [output])
        #expect(result.status == 0, "\(result.stderrText)")
        let ours = try Self.zip(output)
        let theirs = try Self.zip(example.reference)
        #expect(ours.entryNames.sorted() == theirs.entryNames.sorted())
        let verifier = try InitPacketVerifier(
            pem: try String(contentsOfFile: Self.packages + "/nrfutil-test-key.pub.pem", encoding: .utf8), file: "pub")
        for name in theirs.entryNames {
            let mine = try #require(ours.contents(of: name), "\(name) missing")
            let reference = try #require(theirs.contents(of: name))
            let isSignedDat =
                name.hasSuffix(".dat") && example.arguments.contains("--key-file")
            guard isSignedDat else {
                let same = mine == reference
                #expect(same, "\(name) differs (\(mine.count) bytes, nrfutil's \(reference.count))")
                continue
            }
            // Signatures are random: the commands must be equal field by field (ECDSA boot validation bytes aside)
            // and every signature must verify with the public key.
            var myCommand = try #require(try SecureInitPacket(decoding: mine, file: name).command.initCommand)
            var theirCommand = try #require(try SecureInitPacket(decoding: reference, file: name).command.initCommand)
            let image = try #require(ours.contents(of: name.replacingOccurrences(of: ".dat", with: ".bin")))
            for (index, entry) in myCommand.bootValidation.enumerated() where entry.type == .validateECDSAP256SHA256 {
                let sdSize = Int(myCommand.sdSize ?? 0)
                let covered = myCommand.type == .softdeviceBootloader ? Array(image[..<sdSize]) : image
                let message = SignedMessage(
                    message: covered, signatureType: .ecdsaP256SHA256,
                    signature: SignedMessage.swappingHalvesByteOrder(entry.bytes))
                #expect(try verifier.check(message, file: name) == .valid, "\(name): boot validation signature")
                myCommand.bootValidation[index].bytes = []
                theirCommand.bootValidation[index].bytes = []
            }
            #expect(myCommand == theirCommand, "\(name): init command differs")
            let signed = try SecureInitPacket.signedMessage(in: mine, file: name)
            #expect(try verifier.check(signed, file: name) == .valid, "\(name): init packet signature")
        }
    }
}

@Suite struct PackageCommandRefusalTests {
    static let blinky = PackageCommandTests.blinky

    static func run(_ arguments: [String]) -> ProcessResult {
        ProcessRunner().run(TestPaths.nrfloader, ["package"] + arguments)
    }

    @Test(
        "what nrfutil refuses is refused with one line and exit 64, leaving the old output in place",
        arguments: [
            (
                [
                    "--hw-version", "52", "--sd-req", "0x0101", "--application", blinky, "--application-version", "1",
                    "--bootloader", blinky, "--bootloader-version", "1",
                ],
                "Error: invalid combination: --bootloader with --application needs --softdevice too; use two packages instead"
            ),
            (
                ["--sd-req", "0x0101", "--application", blinky, "--application-version", "1"],
                "Error: --hw-version is required"
            ),
            (
                ["--hw-version", "52", "--application", blinky, "--application-version", "1"],
                "Error: --sd-req is required"
            ),
            (
                ["--hw-version", "52", "--sd-req", "0x0101", "--application", blinky],
                "Error: --application-version or --application-version-string is required with --application"
            ),
            (
                [
                    "--hw-version", "52", "--sd-req", "0x0101", "--application", blinky, "--application-version-string",
                    "1.2",
                ], "Error: --application-version-string: 1.2 must be on the format x.y.z"
            ),
            (
                [
                    "--hw-version", "52", "--sd-req", "0x0101", "--bootloader-version", "2", "--application", blinky,
                    "--application-version", "1",
                ], "Error: --bootloader-version given with no --bootloader image"
            ),
            (
                [
                    "--hw-version", "52", "--sd-req", "0x0101", "--softdevice", blinky, "--application", blinky,
                    "--application-version", "1",
                ], "Error: --sd-id is required with --softdevice and --application"
            ),
            (
                ["--hw-version", "52", "--external-app", "--softdevice", blinky],
                "Error: --external-app needs --application"
            ),
            (
                [
                    "--hw-version", "52", "--sd-req", "0x0101", "--sd-req", "0x0124", "--application", blinky,
                    "--application-version", "1",
                ],
                "Error: --sd-req: give the SoftDevice requirements once, as a comma-separated list: --sd-req 0xXXXX,0xYYYY"
            ),
            (
                ["--hw-version", "52", "--sd-req", "0x1g", "--application", blinky, "--application-version", "1"],
                "Error: --sd-req: 0x1g is not a valid integer (0x for hexadecimal, a leading 0 for octal)"
            ),
            (
                [
                    "--hw-version", "52", "--sd-req", "0x0101", "--application", blinky, "--application-version", "1",
                    "--app-boot-validation", "VALIDATE_ECDSA_P256_SHA256",
                ],
                "Error: VALIDATE_ECDSA_P256_SHA256 boot validation needs --key-file to sign the image"
            ),
            (
                ["--dfu", "legacy", "--dfu-ver", "0.7", "--application", blinky],
                "Error: --dfu-ver: 0.7 is not supported; use 0.5 or 0.6 (adafruit-nrfutil 0.5.3.post16 fails on 0.7 and 0.8)"
            ),
        ])
    func refused(_ arguments: [String], _ message: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("out.zip", Array("old".utf8))
        let result = Self.run(arguments + [directory.file("out.zip")])
        #expect(result.status == 64)
        #expect(result.stderrText == message + "\n")
        #expect(result.stdout.isEmpty)
        #expect(try directory.read("out.zip") == Array("old".utf8))
        #expect(try directory.contents() == ["out.zip"])
    }

    @Test("a malformed hex file is bad data (65) and leaves nothing behind")
    func badHex() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let input = try directory.write("app.hex", Array(":10000000FF\n".utf8))
        let result = Self.run([
            "--hw-version", "52", "--sd-req", "0x0101", "--application", input, "--application-version", "1",
            directory.file("out.zip"),
        ])
        #expect(result.status == 65)
        #expect(result.stderrText.hasPrefix("Error: "))
        #expect(result.stderrText.split(separator: "\n").count == 1)
        #expect(try directory.contents() == ["app.hex"])
    }

    @Test("an existing package is replaced whole")
    func replaces() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("out.zip", Array("old".utf8))
        let result = Self.run([
            "--hw-version", "52", "--sd-req", "0x0101", "--application", Self.blinky, "--application-version", "1",
            "--quiet", directory.file("out.zip"),
        ])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        #expect(try directory.read("out.zip").starts(with: [0x50, 0x4B, 0x03, 0x04]))
        #expect(try directory.contents() == ["out.zip"])
    }

    @Test("a signed package made by package uploads to the simulator with --verify-key, and info reads it back")
    func roundTrip() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let zip = directory.file("blinky.zip")
        let made = Self.run([
            "--hw-version", "52", "--sd-req", "0x0101", "--application", Self.blinky, "--application-version", "4",
            "--key-file", PackageCommandTests.key, zip,
        ])
        #expect(made.status == 0, "\(made.stderrText)")
        let publicKey = PackageCommandTests.packages + "/nrfutil-test-key.pub.pem"
        let upload = ProcessRunner().run(
            TestPaths.nrfloader,
            ["upload", "--target", "sim", zip, "--verify-key", publicKey, "--sim-speed", "0", "-q"])
        #expect(upload.status == 0, "\(upload.stderrText)")
        let info = ProcessRunner().run(TestPaths.nrfloader, ["info", zip, "--verify-key", publicKey])
        #expect(info.status == 0)
        #expect(info.stdoutText.contains("  fw_version: 4\n"))
        #expect(info.stdoutText.contains("  signature:  valid\n"))
    }
}
