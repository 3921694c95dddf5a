import Checksums
import DFUSimulator
import Testing

@Suite("Legacy DFU bootloader")
struct LegacyDFUTests {
    static let address = DeviceAddress(bytes: [0xC0, 0xDE, 0x00, 0x00, 0x12, 0x34])

    func bootloader(_ generation: LegacyGeneration, application: [UInt8]? = nil) -> DeviceDriver {
        var configuration = SimulatorConfiguration(
            address: Self.address,
            bootloader: .legacy(LegacyBootloaderOptions(generation: generation)),
            buttonless: .legacy,
            installedApplication: application
        )
        configuration.applicationName = "HRM"
        var driver = DeviceDriver(configuration)
        driver.connect(mtu: 247)
        driver.subscribe(.legacyControlPoint)
        return driver
    }

    /// SDK 11 init packet: type FFFF, revision FFFF, app version FFFFFFFF, one SoftDevice (FFFE), CRC16.
    func initPacket(for image: [UInt8]) -> [UInt8] {
        let crc = CRC16.checksum(image)
        return [
            0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x00, 0xFE, 0xFF, UInt8(crc & 0xFF), UInt8(crc >> 8),
        ]
    }

    @Test("SDK 11 (version 0.8): full application update")
    func sdk11Flow() throws {
        let image = testImage(1000)
        var driver = bootloader(.sdk11)
        #expect(driver.trace.first?.output == .connected(mtu: 23))  // legacy never raises the MTU
        #expect(driver.read(.legacyVersion) == [.readValue(.legacyVersion, [0x08, 0x00])])
        // Start DFU, application; then the 12-byte size packet. The answer waits for the erase.
        #expect(driver.request([0x01, 0x04], on: .legacyControlPoint).isEmpty)
        let start = driver.time
        #expect(driver.send([0, 0, 0, 0, 0, 0, 0, 0, 0xE8, 0x03, 0, 0], chunk: 20, on: .legacyPacket).isEmpty)
        driver.settle()
        let startResponse = try #require(driver.trace.last)
        #expect(startResponse.output == .notification(.legacyControlPoint, [0x10, 0x01, 0x01]))
        #expect(startResponse.time == start + .milliseconds(22))  // one 1 KiB nRF51 page
        // Init packet between 02 00 and 02 01.
        #expect(driver.request([0x02, 0x00], on: .legacyControlPoint).isEmpty)
        _ = driver.send(initPacket(for: image), chunk: 20, on: .legacyPacket)
        #expect(driver.request([0x02, 0x01], on: .legacyControlPoint) == [[0x10, 0x02, 0x01]])
        // PRN every 5 packets, then Receive Firmware Image.
        #expect(driver.request([0x08, 0x05, 0x00], on: .legacyControlPoint).isEmpty)
        #expect(driver.request([0x03], on: .legacyControlPoint).isEmpty)
        var seen = driver.send(image, chunk: 20, on: .legacyPacket)
        seen += driver.notifications(driver.settle(), on: .legacyControlPoint)
        let prns = (1...9).map { [0x11] + le32($0 * 100) }
        #expect(seen == prns + [[0x10, 0x03, 0x01]])  // the last packet answers 10 03 01, not a PRN
        #expect(driver.request([0x07], on: .legacyControlPoint) == [[0x10, 0x07, 0x01] + le32(1000)])
        #expect(driver.request([0x04], on: .legacyControlPoint) == [[0x10, 0x04, 0x01]])
        let outputs = driver.write(.legacyControlPoint, [0x05], withResponse: true) + driver.settle()
        #expect(outputs.contains(.disconnected(.terminatedByDevice)))
        #expect(outputs.last == .rebooted(Advertisement(mode: .application, address: Self.address, name: "HRM")))
        #expect(driver.device.activatedImage(.application) == image)
        #expect(driver.device.violations.isEmpty)
    }

    @Test("v1 (SDK ≤ 5): bare Start, 4-byte size, no init packet, no Version characteristic")
    func v1Flow() {
        let image = testImage(400)
        var driver = bootloader(.v1)
        #expect(driver.read(.legacyVersion) == [.readFailed(.legacyVersion, .characteristicNotFound)])
        #expect(driver.request([0x08, 0x01, 0x00], on: .legacyControlPoint).isEmpty)  // PRN 1
        #expect(driver.request([0x01], on: .legacyControlPoint).isEmpty)  // Start DFU
        _ = driver.send(le32(400), chunk: 20, on: .legacyPacket)  // size packet
        #expect(driver.notifications(driver.settle(), on: .legacyControlPoint) == [[0x10, 0x01, 0x01]])
        #expect(driver.request([0x03], on: .legacyControlPoint).isEmpty)  // Receive Firmware Image
        var seen = driver.send(image, chunk: 20, on: .legacyPacket)
        seen += driver.notifications(driver.settle(), on: .legacyControlPoint)
        #expect(seen.count == 20)
        #expect(seen.last == [0x10, 0x03, 0x01])
        #expect(driver.request([0x04], on: .legacyControlPoint) == [[0x10, 0x04, 0x01]])  // Validate
        let outputs = driver.write(.legacyControlPoint, [0x05], withResponse: true) + driver.settle()
        #expect(outputs.last == .rebooted(Advertisement(mode: .application, address: Self.address, name: "HRM")))
        #expect(driver.device.activatedImage(.application) == image)
    }

    @Test("answers protocol errors with the SDK 11 status codes")
    func errors() {
        let image = testImage(40)
        var driver = bootloader(.sdk11)
        #expect(driver.request([0x01], on: .legacyControlPoint) == [[0x10, 0x01, 0x06]])  // Start without type
        #expect(driver.request([0x09], on: .legacyControlPoint) == [[0x10, 0x09, 0x03]])  // unknown opcode
        _ = driver.request([0x01, 0x04], on: .legacyControlPoint)
        #expect(driver.send(le32(40), chunk: 20, on: .legacyPacket) == [[0x10, 0x01, 0x03]])  // 4-byte size packet
        _ = driver.request([0x01, 0x05], on: .legacyControlPoint)  // application with SoftDevice
        #expect(driver.send(le32(4) + le32(0) + le32(40), chunk: 20, on: .legacyPacket) == [[0x10, 0x01, 0x03]])
        _ = driver.request([0x01, 0x04], on: .legacyControlPoint)
        _ = driver.send(le32(0) + le32(0) + le32(40), chunk: 20, on: .legacyPacket)
        driver.settle()
        _ = driver.request([0x03], on: .legacyControlPoint)
        #expect(driver.send(Array(image[..<20]), chunk: 20, on: .legacyPacket) == [[0x10, 0x03, 0x02]])  // before init
        _ = driver.request([0x02, 0x00], on: .legacyControlPoint)
        var badCRC = initPacket(for: image)
        badCRC[12] ^= 0xFF
        _ = driver.send(badCRC, chunk: 20, on: .legacyPacket)
        #expect(driver.request([0x02, 0x01], on: .legacyControlPoint) == [[0x10, 0x02, 0x01]])
        _ = driver.request([0x03], on: .legacyControlPoint)
        #expect(driver.send(Array(image[..<18]), chunk: 18, on: .legacyPacket) == [[0x10, 0x03, 0x03]])  // not words
        #expect(driver.write(.legacyPacket, Array(repeating: 0, count: 24), withResponse: false).isEmpty)  // > 20
        _ = driver.send(image, chunk: 20, on: .legacyPacket)
        driver.settle()
        #expect(driver.request([0x04], on: .legacyControlPoint) == [[0x10, 0x04, 0x05]])  // CRC error
        #expect(driver.device.violations.contains("write of 24 bytes to legacy packet; limit 20"))
    }
}
