import DFUSimulator
import Testing

@Suite("Buttonless DFU in the application")
struct ButtonlessTests {
    static let address = DeviceAddress(bytes: [0xC0, 0xDE, 0x00, 0x00, 0x12, 0xFF])

    func application(_ service: ButtonlessService, bootloader: BootloaderKind = .secure(SecureBootloaderOptions()))
        -> DeviceDriver
    {
        var driver = DeviceDriver(
            SimulatorConfiguration(
                address: Self.address, bootloader: bootloader, buttonless: service, installedApplication: testImage(64))
        )
        driver.connect(mtu: 247)
        return driver
    }

    @Test("Secure without bonds: set name, enter bootloader at address + 1 without carry")
    func unbonded() throws {
        var driver = application(.secureWithoutBonds)
        #expect(
            driver.write(.buttonlessWithoutBonds, [0x01], withResponse: true) == [
                .writeFailed(.buttonlessWithoutBonds, .att(.cccdImproperlyConfigured))
            ])
        driver.subscribe(.buttonlessWithoutBonds)
        // Set advertisement name "DfuTest": answered once stored in flash.
        let start = driver.time
        #expect(
            driver.request([0x02, 0x07] + Array("DfuTest".utf8), on: .buttonlessWithoutBonds) == [[0x20, 0x02, 0x01]])
        #expect(try #require(driver.trace.last).time == start + .milliseconds(85) + .microseconds(41) * 1024)
        #expect(driver.request([0x02, 0x00], on: .buttonlessWithoutBonds) == [[0x20, 0x02, 0x05]])  // empty name
        let outputs = driver.write(.buttonlessWithoutBonds, [0x01], withResponse: true) + driver.settle()
        #expect(
            outputs == [
                .writeAcknowledged(.buttonlessWithoutBonds),
                .notification(.buttonlessWithoutBonds, [0x20, 0x01, 0x01]),
                .disconnected(.terminatedByDevice),
                .rebooted(
                    Advertisement(
                        mode: .secureBootloader, address: try #require(DeviceAddress("C0:DE:00:00:12:00")),
                        name: "DfuTest")),
            ])
    }

    @Test("Secure with bonds: same address; refuses without a bond and has no name request")
    func bonded() {
        var refused = application(.secureWithBonds(isPeerBonded: false))
        refused.subscribe(.buttonlessWithBonds)
        #expect(refused.request([0x01], on: .buttonlessWithBonds) == [[0x20, 0x01, 0x07]])
        var driver = application(.secureWithBonds(isPeerBonded: true))
        driver.subscribe(.buttonlessWithBonds)
        #expect(driver.request([0x02, 0x01, 0x41], on: .buttonlessWithBonds) == [[0x20, 0x02, 0x02]])
        let outputs = driver.write(.buttonlessWithBonds, [0x01], withResponse: true) + driver.settle()
        #expect(
            outputs.last == .rebooted(Advertisement(mode: .secureBootloader, address: Self.address, name: "DfuTarg")))
    }

    @Test("legacy: version 0.1, 01 04 jumps without answering; the link dies by supervision timeout")
    func legacy() throws {
        var driver = application(.legacy, bootloader: .legacy(LegacyBootloaderOptions(generation: .sdk11)))
        #expect(driver.read(.legacyVersion) == [.readValue(.legacyVersion, [0x01, 0x00])])
        driver.subscribe(.legacyControlPoint)
        let jump = driver.time
        #expect(driver.request([0x01, 0x04], on: .legacyControlPoint).isEmpty)
        let events = driver.trace.suffix(2)
        #expect(
            events.map(\.output) == [
                .rebooted(Advertisement(mode: .legacyBootloader, address: Self.address, name: "DfuTarg")),
                .disconnected(.supervisionTimeout),
            ])
        #expect(try #require(events.last).time == jump + .seconds(4))
    }

    @Test(
        "addresses round-trip through text", arguments: ["00:11:22:33:44:55", "C0:DE:00:00:12:FF", "FF:FF:FF:FF:FF:FF"])
    func addressText(text: String) throws {
        let address = try #require(DeviceAddress(text))
        #expect(address.description == text)
        #expect(DeviceAddress(text.lowercased()) == address)
    }

    @Test(
        "malformed address text is rejected",
        arguments: ["", "00:11:22:33:44", "00:11:22:33:44:5G", "0:11:22:33:44:55"])
    func addressRejected(text: String) {
        #expect(DeviceAddress(text) == nil)
    }

    @Test(
        "the bootloader address increments only the last byte",
        arguments: [
            ("C0:DE:00:00:12:34", "C0:DE:00:00:12:35"), ("C0:DE:00:00:12:FF", "C0:DE:00:00:12:00"),
        ])
    func bootloaderAddress(application: String, bootloader: String) {
        #expect(DeviceAddress(application)?.bootloaderAddress == DeviceAddress(bootloader))
    }
}
