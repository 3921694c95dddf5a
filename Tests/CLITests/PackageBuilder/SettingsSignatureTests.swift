import DFUPackage
import DFUSigning
import Foundation
import TestSupport
import Testing

/// `settings generate --app-boot-validation VALIDATE_ECDSA_P256_SHA256`: nrfutil's signature is random, so the page
/// is checked by verifying the stored signature and reading the page back.
@Suite struct SettingsSignatureTests {
    /// The bytes of an Intel HEX text (record types 00 and 04 only, as settings pages have).
    static func memory(_ text: String) -> [UInt32: UInt8] {
        var memory: [UInt32: UInt8] = [:]
        var upper: UInt32 = 0
        for line in text.split(separator: "\n") {
            let bytes = stride(from: 1, to: line.count - 1, by: 2).map { offset -> UInt8 in
                let start = line.index(line.startIndex, offsetBy: offset)
                return UInt8(line[start..<line.index(start, offsetBy: 2)], radix: 16) ?? 0
            }
            let address = UInt32(bytes[1]) << 8 | UInt32(bytes[2])
            switch bytes[3] {
            case 0:
                for (index, byte) in bytes[4..<4 + Int(bytes[0])].enumerated() {
                    memory[upper + address + UInt32(index)] = byte
                }
            case 4: upper = (UInt32(bytes[4]) << 8 | UInt32(bytes[5])) << 16
            default: break
            }
        }
        return memory
    }

    @Test("an ECDSA boot validation signature in the settings page verifies over the application")
    func ecdsaApplication() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let inputs = KeysAndSettingsCommandTests.inputs
        let result = ProcessRunner().run(
            TestPaths.nrfloader,
            [
                "settings", "generate", "--family", "NRF52", "--application", inputs + "/app-raw.bin",
                "--application-version", "1", "--bootloader-version", "1", "--bl-settings-version", "2",
                "--app-boot-validation", "VALIDATE_ECDSA_P256_SHA256", "--key-file", KeysAndSettingsCommandTests.key,
                directory.file("page.hex"),
            ])
        #expect(result.status == 0, "\(result.stderrText)")
        let memory = Self.memory(String(decoding: try directory.read("page.hex"), as: UTF8.self))
        #expect(memory[0x7F2A1] == 3)
        let signature = (0..<64).map { memory[0x7F2A2 + UInt32($0)] ?? 0 }
        let raw = [UInt8](try Data(contentsOf: URL(fileURLWithPath: inputs + "/app-raw.bin")))
        let image = raw + [0xFF, 0xFF, 0xFF]
        let verifier = try InitPacketVerifier(
            pem: try String(
                contentsOfFile: PackageCommandTests.packages + "/nrfutil-test-key.pub.pem", encoding: .utf8),
            file: "pub")
        let message = SignedMessage(
            message: image, signatureType: .ecdsaP256SHA256,
            signature: SignedMessage.swappingHalvesByteOrder(signature))
        #expect(try verifier.check(message, file: "page") == .valid)
        // The backup page is the same 804 bytes one page below.
        #expect((0..<804).allSatisfy { memory[0x7E000 + UInt32($0)] == memory[0x7F000 + UInt32($0)] })
        let display = ProcessRunner().run(TestPaths.nrfloader, ["settings", "display", directory.file("page.hex")])
        #expect(display.status == 0)
        #expect(display.stdoutText.contains("* App Boot Validation Type: 0x00000003 (3)\n"))
        #expect(display.stdoutText.contains("* Application Size:         0x000003EC (1004 bytes)\n"))
    }
}
