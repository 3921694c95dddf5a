import Foundation
import TestSupport
import Testing

/// The catalog's 130 KiB signed MCUboot image (`selftest-nrf52840dk-mcuboot`, 132,496 bytes) named by its catalog id,
/// test-and-confirmed on the in-process SMP device and on `simulate-serial --protocol smp`: the state the device
/// shows, and slot 0 compared byte for byte. (Over BlueZ: Tests/CLITests/BlueZ/SMPOverBlueZTests.swift; on the
/// real-bluetoothd tier: the `smp` scenario of Tests/VM/guest.sh.)
@Suite(.serialized) struct SMPLargeImageTests {
    static let image = TestPaths.repositoryRoot.appendingPathComponent(
        "Resources/firmware/selftest-nrf52840dk-mcuboot.bin")
    static let confirmed =
        "image 1.0.0 (hash 2d933845d2e1d376…) confirmed by the device: slot 0, active confirmed; 132496 bytes uploaded\n"

    static func slot0(_ directory: TemporaryDirectory) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: directory.file("slot0.bin"))))
    }

    @Test("--target sim:smp: the catalog id is confirmed and slot 0 holds the image")
    func inProcess() throws {
        let images = try TemporaryDirectory()
        defer { images.remove() }
        let result = nrfloader([
            "upload", "--target", "sim:smp", "selftest-nrf52840dk-mcuboot", "--sim-speed", "0", "--sim-save-images",
            images.path,
        ])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText == Self.confirmed)
        let expected = [UInt8](try Data(contentsOf: Self.image))
        #expect(try Self.slot0(images).prefix(expected.count) == ArraySlice(expected))
    }

    @Test("upload --port on simulate-serial --protocol smp: the catalog id is confirmed and slot 0 holds the image")
    func overSerial() throws {
        let images = try TemporaryDirectory()
        defer { images.remove() }
        let simulator = try SerialSimulator(["--protocol", "smp", "--save-images", images.path])
        defer { simulator.directory.remove() }
        let result = nrfloader(["upload", "--port", simulator.port, "selftest-nrf52840dk-mcuboot"])
        let served = simulator.stop()
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText == Self.confirmed)
        #expect(served.stderrText == "simulate-serial: 1 activation(s)\n")
        let expected = [UInt8](try Data(contentsOf: Self.image))
        #expect(try Self.slot0(images).prefix(expected.count) == ArraySlice(expected))
    }
}
