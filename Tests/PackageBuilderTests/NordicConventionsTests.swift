import PackageBuilder
import TestSupport
import Testing

/// nrfutil's conventions for integer options and for turning a firmware file into a package's `.bin`, in-process
/// (the `nrfloader package` command itself is checked against nrfutil's output in CLITests).
@Suite struct NordicIntegerTests {
    @Test(
        "0x is hexadecimal, a leading 0 octal, anything else decimal",
        arguments: [("0x0101", UInt64(0x101)), ("0XfF", 0xFF), ("010", 8), ("0", 0), ("257", 257)])
    func parses(text: String, value: UInt64) throws {
        #expect(try NordicInteger.parse(text) == value)
    }

    @Test("a bad or too large value is refused naming the text; the option it was given as names the usage error")
    func refused() {
        #expect(throws: NumberFault.notAnInteger("0xZZ")) { try NordicInteger.parse("0xZZ") }
        #expect(throws: NumberFault.notAnInteger("09")) { try NordicInteger.parse("09") }
        #expect(throws: NumberFault.tooLarge("0x10000", limit: 0xFFFF)) {
            try NordicInteger.parse("0x10000", limit: 0xFFFF)
        }
        let error = PackageBuilderError.options(.invalidNumber(.hwVersion, .notAnInteger("09")))
        #expect(error.isUsage)
        #expect(
            error.description
                == "hardwareVersion: 09 is not a valid integer (0x for hexadecimal, a leading 0 for octal)")
        #expect(
            "\(NumberFault.tooLarge("0x10000", limit: 0xFFFF))"
                == "0x10000 is larger than the field holds (at most 0xFFFF)")
        #expect(PackageBuilderError.usage("x").isUsage)
    }

    @Test("x.y.z is x * 10000 + y * 100 + z; anything else is refused")
    func versionString() throws {
        #expect(try NordicInteger.versionString("1.2.3") == 10203)
        #expect(try NordicInteger.versionString("0.0.0") == 0)
        #expect(throws: NumberFault.notAVersionString("1.2")) { try NordicInteger.versionString("1.2") }
        #expect("\(NumberFault.notAVersionString("1.2"))" == "1.2 must be on the format x.y.z")
        #expect(throws: NumberFault.versionNotDecimal("1.-2.3")) { try NordicInteger.versionString("1.-2.3") }
        #expect(throws: NumberFault.versionTooLarge("429497.0.0", total: 4_294_970_000)) {
            try NordicInteger.versionString("429497.0.0")
        }
    }
}

@Suite struct NordicBinaryTests {
    @Test("a .bin is taken as it is, padded with 0xFF to a multiple of 4; an empty one is refused")
    func binary() throws {
        #expect(try NordicBinary.image([1, 2, 3, 4, 5], path: "app.bin") == [1, 2, 3, 4, 5, 0xFF, 0xFF, 0xFF])
        #expect(try NordicBinary.image([1, 2, 3, 4], path: "app.bin") == [1, 2, 3, 4])
        #expect(throws: PackageBuilderError.emptyImage(path: "empty.bin")) {
            try NordicBinary.image([], path: "empty.bin")
        }
    }

    @Test("Intel HEX: MBR data dropped, gaps filled with 0xFF, the image starting at its first byte above the MBR")
    func hex() throws {
        let file = HexRecords.file([
            HexRecords.data(0x0000, [0xAA, 0xAA]),  // MBR: dropped
            HexRecords.data(0x1004, [1, 2, 3, 4]),
            HexRecords.data(0x100A, [5]),
            HexRecords.endOfFile,
        ])
        #expect(
            try NordicBinary.image(file, path: "app.hex")
                == [1, 2, 3, 4, 0xFF, 0xFF, 5, 0xFF])
        // adafruit-nrfutil keeps the MBR bytes for the lowest address: the image then starts at the MBR's end.
        #expect(
            try NordicBinary.image(file, path: "app.hex", dropsMBR: false)
                == [0xFF, 0xFF, 0xFF, 0xFF, 1, 2, 3, 4, 0xFF, 0xFF, 5, 0xFF])
    }

    @Test("a HEX file with nothing between the MBR and the UICR is empty; a malformed one is bad data")
    func refusedHex() {
        let mbrOnly = HexRecords.file([HexRecords.data(0x0000, [1, 2, 3, 4]), HexRecords.endOfFile])
        #expect(throws: PackageBuilderError.emptyImage(path: "mbr.hex")) {
            try NordicBinary.image(mbrOnly, path: "mbr.hex")
        }
        let broken = HexRecords.file([
            HexRecords.line(type: 0, offset: 0x1000, data: [1], checksum: 0), HexRecords.endOfFile,
        ])
        #expect {
            try NordicBinary.image(broken, path: "broken.hex")
        } throws: { error in
            guard let error = error as? PackageBuilderError, case .badHex = error else { return false }
            return !error.isUsage
        }
    }

    @Test("entry names: the last path component with .hex made .bin, and the init packet's .dat beside it")
    func names() {
        #expect(NordicBinary.binName(for: "build/app.hex") == "app.bin")
        #expect(NordicBinary.binName(for: "a.hex.hex") == "a.bin.bin")
        #expect(NordicBinary.datName(for: "app.bin") == "app.dat")
    }
}
