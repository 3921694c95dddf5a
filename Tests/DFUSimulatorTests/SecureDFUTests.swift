import Checksums
import DFUSimulator
import DeviceLink
import Testing

@Suite("Secure DFU bootloader")
struct SecureDFUTests {
    let image = testImage(100)
    var initPacket: [UInt8] { InitPacketBuilder.application(for: image).unsigned }

    func connectedBootloader(
        options: SecureBootloaderOptions = SecureBootloaderOptions(),
        faults: FaultPlan = FaultPlan(),
        mtu: Int = 23
    ) -> DeviceDriver {
        var driver = DeviceDriver(.secure(options: options, faults: faults))
        driver.connect(mtu: mtu)
        driver.subscribe(.secureControlPoint)
        return driver
    }

    @Test("updates a small application with a hand-written script")
    func smallApplication() {
        var driver = connectedBootloader()
        #expect(driver.device.deviceMode == .secureBootloader)
        // Select command: max 256, offset 0, CRC 0.
        #expect(driver.request([0x06, 0x01]) == [[0x60, 0x06, 0x01, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]])
        // Create command object of the init packet's size.
        #expect(driver.request([0x01, 0x01] + le32(initPacket.count)) == [[0x60, 0x01, 0x01]])
        // Set PRN 0.
        #expect(driver.request([0x02, 0x00, 0x00]) == [[0x60, 0x02, 0x01]])
        #expect(driver.send(initPacket, chunk: 20).isEmpty)
        // Calculate checksum: offset and CRC-32 of the init packet.
        #expect(driver.request([0x03]) == [checksumResponse(initPacket)])
        // Execute: init packet valid.
        #expect(driver.request([0x04]) == [[0x60, 0x04, 0x01]])
        // Select data: max 4096, nothing received.
        #expect(driver.request([0x06, 0x02]) == [[0x60, 0x06, 0x01, 0x00, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]])
        // Create data object of 100 bytes (0x64).
        #expect(driver.request([0x01, 0x02, 0x64, 0x00, 0x00, 0x00]) == [[0x60, 0x01, 0x01]])
        driver.wait(.milliseconds(400))
        #expect(driver.send(image, chunk: 20).isEmpty)
        #expect(driver.request([0x03]) == [checksumResponse(image)])
        // Execute the last object: validate, respond, reset into the application.
        let outputs = driver.write(.secureControlPoint, [0x04], withResponse: true) + driver.settle()
        #expect(driver.notifications(outputs, on: .secureControlPoint) == [[0x60, 0x04, 0x01]])
        #expect(outputs.contains(.disconnected(.terminatedByDevice)))
        #expect(
            outputs.last
                == .rebooted(
                    Advertisement(mode: .application, address: driver.device.configuration.address, name: "Nordic_App"))
        )
        #expect(driver.device.activatedImage(.application) == image)
        #expect(driver.device.violations.isEmpty)
    }

    @Test("updates a multi-object image with 244-byte packets and PRN 12")
    func multiObjectImage() throws {
        let image = testImage(4096 * 2 + 1000, seed: 3)
        var driver = connectedBootloader(mtu: 247)
        let initPacket = InitPacketBuilder.application(for: image).unsigned
        let seen = driver.secureTransfer(initPacket: initPacket, image: image, payload: 244, prn: 12)
        let checksums = seen.filter { $0.count == 11 && $0.starts(with: [0x60, 0x03, 0x01]) }
        // 17 writes per full object (16 × 244 + 192), 5 for the last: one PRN (after write 12) in each full
        // object, plus the Calculate Checksum answers for the init packet and the three objects.
        #expect(checksums.contains(checksumResponse(Array(image[..<(12 * 244)]))))
        #expect(checksums.contains(checksumResponse(Array(image[..<(4096 + 12 * 244)]))))
        #expect(checksums.count == 2 + 4)
        #expect(driver.device.deviceMode == .application)
        #expect(driver.device.activatedImage(.application) == image)
        #expect(driver.device.violations.isEmpty)
    }

    @Test("negotiates word-aligned MTUs", arguments: [(23, 23), (185, 183), (100, 99), (247, 247), (517, 247)])
    func mtuExchange(requested: Int, expected: Int) {
        var driver = DeviceDriver(.secure())
        #expect(driver.connect(mtu: requested) == [.connected(mtu: expected)])
    }

    @Test("resumes a data object after a disconnect from the offset received")
    func resumeAfterDisconnect() {
        let image = testImage(4096 + 400)
        var driver = connectedBootloader()
        _ = driver.secureTransfer(initPacket: InitPacketBuilder.application(for: image).unsigned, image: [])
        _ = driver.request([0x01, 0x02] + le32(4096))  // Create data 4096
        driver.wait(.milliseconds(400))
        _ = driver.send(Array(image[..<2000]), chunk: 20)
        driver.disconnect()
        driver.wait(.seconds(1))
        driver.connect()
        driver.subscribe(.secureControlPoint)
        // Select data: offset 2000 and the CRC of those bytes; the object is still open.
        let select = driver.request([0x06, 0x02])
        #expect(
            select == [[0x60, 0x06, 0x01] + le32(4096) + Array(checksumResponse(Array(image[..<2000])).dropFirst(3))])
        _ = driver.send(Array(image[2000..<4096]), chunk: 20)
        #expect(driver.request([0x03]) == [checksumResponse(Array(image[..<4096]))])
        #expect(driver.request([0x04]) == [[0x60, 0x04, 0x01]])
        #expect(driver.device.violations.isEmpty)
    }

    @Test("after a reset, Select reports the last executed object boundary (SDK 15–17)")
    func resumeAfterReboot() {
        let image = testImage(3 * 4096)
        let initPacket = InitPacketBuilder.application(for: image).unsigned
        let plan = FaultPlan(seed: 1, faults: [.reboot(afterPacketBytes: initPacket.count + 4096 + 2000)])
        var driver = connectedBootloader(faults: plan)
        _ = driver.secureTransfer(initPacket: initPacket, image: Array(image[..<4096]))
        _ = driver.request([0x01, 0x02] + le32(4096))
        driver.wait(.milliseconds(400))
        _ = driver.send(Array(image[4096..<8192]), chunk: 20)
        let outputs = driver.settle(within: .seconds(10))
        #expect(outputs.contains(.disconnected(.supervisionTimeout)))
        #expect(driver.device.deviceMode == .secureBootloader)
        driver.connect()
        driver.subscribe(.secureControlPoint)
        // The init packet survives: Select command reports it complete.
        #expect(
            driver.request([0x06, 0x01]) == [
                [0x60, 0x06, 0x01] + le32(256) + Array(checksumResponse(initPacket).dropFirst(3))
            ])
        // Data falls back to the end of the first executed object.
        #expect(
            driver.request([0x06, 0x02]) == [
                [0x60, 0x06, 0x01] + le32(4096) + Array(checksumResponse(Array(image[..<4096])).dropFirst(3))
            ])
    }

    @Test("Create rewinds offset and CRC to the last executed object")
    func createRewinds() {
        let image = testImage(8192)
        var driver = connectedBootloader()
        _ = driver.secureTransfer(
            initPacket: InitPacketBuilder.application(for: image).unsigned, image: Array(image[..<4096]))
        _ = driver.request([0x01, 0x02] + le32(4096))
        driver.wait(.milliseconds(400))
        _ = driver.send(Array(repeating: 0xAA, count: 400), chunk: 20)  // Wrong bytes.
        #expect(
            driver.request([0x03]) == [checksumResponse(Array(image[..<4096]) + Array(repeating: 0xAA, count: 400))])
        // Create the same object again: back to 4096.
        #expect(driver.request([0x01, 0x02] + le32(4096)) == [[0x60, 0x01, 0x01]])
        #expect(driver.request([0x03]) == [checksumResponse(Array(image[..<4096]))])
    }

    @Test("answers client violations with the SDK's result codes and logs them")
    func violations() {
        let image = testImage(10_000)
        var driver = connectedBootloader()
        #expect(driver.request([0x01, 0x02] + le32(4096)) == [[0x60, 0x01, 0x08]])  // data before init
        #expect(driver.request([0x01, 0x01] + le32(0)) == [[0x60, 0x01, 0x03]])  // command of size 0
        #expect(driver.request([0x01, 0x01] + le32(257)) == [[0x60, 0x01, 0x04]])  // command > 256
        #expect(driver.request([0x06, 0x07]) == [[0x60, 0x06, 0x05]])  // select unknown type
        #expect(driver.request([0x03]) == [[0x60, 0x03, 0x05]])  // checksum of invalid object
        #expect(driver.request([0x0E]) == [[0x60, 0x0E, 0x02]])  // unknown opcode
        let initPacket = InitPacketBuilder.application(for: image).unsigned
        _ = driver.request([0x01, 0x01] + le32(initPacket.count))
        _ = driver.send(Array(initPacket.dropLast()), chunk: 20)
        #expect(driver.request([0x04]) == [[0x60, 0x04, 0x08]])  // execute incomplete command
        _ = driver.send(Array(initPacket.suffix(1)), chunk: 20)
        #expect(driver.request([0x04]) == [[0x60, 0x04, 0x01]])
        #expect(driver.request([0x01, 0x02] + le32(1000)) == [[0x60, 0x01, 0x03]])  // not page aligned, not last
        #expect(driver.request([0x01, 0x02] + le32(8192)) == [[0x60, 0x01, 0x04]])  // > 4096
        #expect(driver.request([0x01, 0x02] + le32(4096)) == [[0x60, 0x01, 0x01]])
        #expect(driver.request([0x04]) == [[0x60, 0x04, 0x08]])  // execute incomplete data object
        #expect(driver.device.violations.count == 9)
        #expect(driver.device.violations.contains("execute of data object with 0 of 4096 bytes"))
    }

    @Test("refuses control point writes before notifications are enabled")
    func cccdRequired() {
        var driver = DeviceDriver(.secure())
        driver.connect()
        #expect(
            driver.write(.secureControlPoint, [0x06, 0x01], withResponse: true) == [
                .writeFailed(.secureControlPoint, .att(.cccdImproperlyConfigured))
            ])
    }

    @Test("drops misaligned data writes silently; a due PRN reports offset 0 and CRC 0")
    func misalignedWrites() {
        let image = testImage(4096)
        var driver = connectedBootloader()
        _ = driver.secureTransfer(initPacket: InitPacketBuilder.application(for: image).unsigned, image: [])
        _ = driver.request([0x01, 0x02] + le32(4096))
        driver.wait(.milliseconds(400))
        #expect(driver.send(Array(image[..<18]), chunk: 18).isEmpty)
        #expect(driver.request([0x03]) == [checksumResponse([])])
        _ = driver.request([0x02, 0x01, 0x00])  // PRN 1
        #expect(driver.send(Array(image[..<18]), chunk: 18) == [[0x60, 0x03, 0x01, 0, 0, 0, 0, 0, 0, 0, 0]])
    }

    @Test("the Execute response waits for queued flash writes")
    func executeWaitsForFlash() throws {
        let image = testImage(4096 * 2)
        var driver = connectedBootloader(mtu: 247)
        _ = driver.secureTransfer(initPacket: InitPacketBuilder.application(for: image).unsigned, image: [])
        let created = driver.time
        _ = driver.request([0x01, 0x02] + le32(4096))
        // No delay after Create: the 85 ms erase is still running, the 17 writes queue behind it.
        _ = driver.send(Array(image[..<4096]), chunk: 244)
        _ = driver.write(.secureControlPoint, [0x04], withResponse: true)
        driver.settle()
        let response = try #require(
            driver.trace.last { $0.output == .notification(.secureControlPoint, [0x60, 0x04, 0x01]) })
        // 85 ms erase + 1024 words × 41 µs.
        #expect(response.time == created + .milliseconds(85) + .microseconds(41) * 1024)
    }

    @Test("Create answers after the erase when configured to")
    func createWaitsForErase() throws {
        var options = SecureBootloaderOptions()
        options.createWaitsForErase = true
        var driver = connectedBootloader(options: options)
        _ = driver.secureTransfer(initPacket: InitPacketBuilder.application(for: testImage(4096)).unsigned, image: [])
        let start = driver.time
        _ = driver.request([0x01, 0x02] + le32(4096))
        let response = try #require(
            driver.trace.last { $0.output == .notification(.secureControlPoint, [0x60, 0x01, 0x01]) })
        #expect(response.time == start + .milliseconds(85))
    }

    @Test("packets beyond the buffer pool are lost while the erase runs")
    func bufferExhaustion() {
        let image = testImage(4096)
        var driver = connectedBootloader(mtu: 23)
        _ = driver.secureTransfer(initPacket: InitPacketBuilder.application(for: image).unsigned, image: [])
        _ = driver.request([0x01, 0x02] + le32(4096))
        _ = driver.send(image, chunk: 20, interval: .zero)
        // The pool is sized for the maximum MTU (4096 / 244 + 1 = 17 buffers) whatever MTU was negotiated; with
        // no pause after Create, only 17 20-byte writes fit while the 85 ms erase runs.
        #expect(driver.request([0x03]) == [checksumResponse(Array(image[..<(17 * 20)]))])
    }

    @Test("Abort answers and resets into the installed application")
    func abort() {
        var driver = DeviceDriver(.secure(application: testImage(64)))
        driver.connect()
        driver.subscribe(.buttonlessWithoutBonds)
        _ = driver.request([0x01], on: .buttonlessWithoutBonds)
        driver.connect()
        driver.subscribe(.secureControlPoint)
        let outputs = driver.write(.secureControlPoint, [0x0C], withResponse: true) + driver.settle()
        #expect(driver.notifications(outputs, on: .secureControlPoint) == [[0x60, 0x0C, 0x01]])
        #expect(driver.device.deviceMode == .application)
    }
}
