import Foundation
import NRFLoaderKit
import TestSupport
import Testing

/// Intel HEX to binary and back, through the public API alone.
@Suite struct ImageConversionTests {
    @Test(
        "a HEX file becomes the binary image beside it in the firmware folder, byte for byte",
        arguments: ["blinky-pca10040", "blinky-pca10056", "selftest-pca10040"])
    func hexToBinary(_ name: String) throws {
        let folder = Fixtures.root + "/Resources/firmware/"
        let output = MemoryOutput(displayName: "image.bin")
        let summary = try ImageConversion.binary(fromHexFile: folder + name + ".hex", output: { output })
        let expected = try Fixtures.bytes(folder + name + ".bin")
        #expect(output.bytes == expected)
        #expect(summary.size == expected.count)
        #expect(summary.format == .bin)
        #expect(summary.input == folder + name + ".hex")
        #expect(summary.output == "image.bin")
    }

    @Test("with Nordic's rules the image is the one nrfutil put in its package: same size and SHA-256")
    func nordicRulesMatchNrfutil() throws {
        var options = BinaryImageOptions()
        options.followsNordicTools = true
        let output = MemoryOutput()
        let summary = try ImageConversion.binary(
            fromHexFile: Fixtures.packageBuilder + "/app-gaps-mbr-uicr.hex", options: options, output: { output })
        guard
            case .dfuPackage(let package) = try FirmwareInfo(inspecting: Fixtures.packageBuilder + "/nrfutil-gaps.zip")
        else {
            Issue.record("nrfutil-gaps.zip is not read as a DFU package")
            return
        }
        let part = try #require(package.parts.first)
        guard case .secure(let command?) = part.initPacket else {
            Issue.record("no Secure DFU init command in nrfutil-gaps.zip")
            return
        }
        #expect(output.bytes.count == 1032)
        #expect(summary.size == part.size)
        #expect(summary.sha256 == command.hash)
        #expect(summary.baseAddress == 0x26000)
        #expect(
            summary.regions == [MemoryRegion(start: 0x26000, end: 0x260FF), MemoryRegion(start: 0x26400, end: 0x26406)])
    }

    @Test("a binary image becomes Intel HEX at its base address, and converts back to the same bytes")
    func binaryRoundTrip() throws {
        let input = Fixtures.packageBuilder + "/app-raw.bin"
        let original = try Fixtures.bytes(input)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let hex = MemoryOutput()
        let summary = try ImageConversion.intelHex(fromBinaryFile: input, baseAddress: 0x26000, output: { hex })
        #expect(summary.format == .hex)
        #expect(summary.regions == [MemoryRegion(start: 0x26000, end: 0x26000 + UInt32(original.count) - 1)])
        #expect(summary.startAddress == nil)
        let path = try directory.write("app.hex", hex.bytes)
        let binary = MemoryOutput()
        let back = try ImageConversion.binary(fromHexFile: path, output: { binary })
        #expect(binary.bytes == original)
        #expect(back.baseAddress == 0x26000)
        #expect(back.sha256 == summary.sha256)
    }

    @Test("a missing input fails before the output is made, with the command line's message and status")
    func missingInput() {
        var madeOutput = false
        #expect {
            _ = try ImageConversion.binary(fromHexFile: "/nonexistent/app.hex") {
                madeOutput = true
                return MemoryOutput()
            }
        } throws: { error in
            let error = error as? UpdateError
            return error?.message == "'/nonexistent/app.hex': no such file" && error?.exitStatus == .noInput
        }
        #expect(!madeOutput)
    }
}
