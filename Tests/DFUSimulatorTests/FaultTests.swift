import Checksums
import DFUSimulator
import DeviceLink
import Testing

@Suite("Seeded fault injection")
struct FaultTests {
    static let image = testImage(4096 + 600, seed: 9)
    static let initPacket = InitPacketBuilder.application(for: image).unsigned

    func run(_ faults: [Fault], seed: UInt64 = 7, mtu: Int = 23) -> DeviceDriver {
        var driver = DeviceDriver(.secure(faults: FaultPlan(seed: seed, faults: faults)))
        driver.connect(mtu: mtu)
        driver.subscribe(.secureControlPoint)
        _ = driver.secureTransfer(initPacket: Self.initPacket, image: Self.image, prn: 4)
        return driver
    }

    static let randomPlan: [Fault] = [
        .dropPacket(.random(probability: 0.02)), .duplicatePacket(.random(probability: 0.02)),
        .corruptPacket(.random(probability: 0.02)), .dropNotification(.random(probability: 0.05)),
        .duplicateNotification(.random(probability: 0.05)), .corruptNotification(.random(probability: 0.05)),
    ]

    @Test("the same seed replays the same faults; another seed differs")
    func deterministic() {
        let first = run(Self.randomPlan, seed: 42)
        let second = run(Self.randomPlan, seed: 42)
        let other = run(Self.randomPlan, seed: 43)
        #expect(first.trace == second.trace)
        #expect(first.device.log == second.device.log)
        #expect(!first.device.log.filter { $0.kind == .fault }.isEmpty)
        #expect(first.trace != other.trace)
    }

    @Test(
        "each counted fault is deterministic for a seed",
        arguments: [
            Fault.dropPacket(.occurrence(10)), .duplicatePacket(.occurrence(10)), .corruptPacket(.occurrence(10)),
            .dropNotification(.occurrence(3)), .duplicateNotification(.occurrence(3)),
            .corruptNotification(.occurrence(3)),
            .disconnect(afterPacketBytes: 3000), .reboot(afterPacketBytes: 3000),
            .respond(opcode: 0x04, result: 0x0B, extendedError: 0x0C, trigger: .occurrence(2)),
            .stall(afterControlPointWrites: 6), .capMTU(50),
        ])
    func replays(fault: Fault) {
        let first = run([fault], mtu: 247)
        let second = run([fault], mtu: 247)
        #expect(first.trace == second.trace)
        #expect(first.device.log == second.device.log)
        #expect(first.device.log.contains { $0.kind == .fault })
    }

    func transferToFirstChecksum(_ faults: [Fault]) -> (driver: DeviceDriver, checksum: [[UInt8]]) {
        var driver = DeviceDriver(.secure(faults: FaultPlan(seed: 1, faults: faults)))
        driver.connect()
        driver.subscribe(.secureControlPoint)
        _ = driver.secureTransfer(initPacket: Self.initPacket, image: [])
        _ = driver.request([0x01, 0x02] + le32(4096))
        driver.wait(.milliseconds(400))
        _ = driver.send(Array(Self.image[..<200]), chunk: 20)
        return (driver, driver.request([0x03]))
    }

    @Test("a dropped packet shows as a short offset; a duplicate as a long one")
    func packetLossAndDuplication() {
        let packets = Self.initPacket.count / 20 + 1  // the init packet's writes come first
        let dropped = transferToFirstChecksum([.dropPacket(.occurrence(packets + 3))]).checksum
        #expect(dropped == [checksumResponse(Array(Self.image[..<40] + Self.image[60..<200]))])
        let duplicated = transferToFirstChecksum([.duplicatePacket(.occurrence(packets + 3))]).checksum
        #expect(duplicated == [checksumResponse(Array(Self.image[..<60] + Self.image[40..<200]))])
    }

    @Test("a corrupted packet keeps the offset and breaks the CRC")
    func packetCorruption() throws {
        let packets = Self.initPacket.count / 20 + 1
        let checksum = try #require(transferToFirstChecksum([.corruptPacket(.occurrence(packets + 1))]).checksum.first)
        #expect(Array(checksum[3..<7]) == le32(200))
        #expect(checksum != checksumResponse(Array(Self.image[..<200])))
    }

    @Test("notification faults drop, duplicate or corrupt the response")
    func notificationFaults() throws {
        // Notifications in order: Create 1, PRN 2, Checksum 3 (the init packet's), ...
        let dropped = transferToFirstChecksum([.dropNotification(.occurrence(3))]).driver
        #expect(
            !dropped.trace.contains {
                $0.output == .notification(.secureControlPoint, checksumResponse(Self.initPacket))
            })
        let duplicated = transferToFirstChecksum([.duplicateNotification(.occurrence(3))]).driver
        #expect(
            duplicated.trace.filter {
                $0.output == .notification(.secureControlPoint, checksumResponse(Self.initPacket))
            }.count == 2)
        let corrupted = transferToFirstChecksum([.corruptNotification(.occurrence(3))]).driver
        let notes = corrupted.device.log.filter { $0.kind == .fault }
        #expect(notes.count == 1)
        #expect(
            !corrupted.trace.contains {
                $0.output == .notification(.secureControlPoint, checksumResponse(Self.initPacket))
            })
    }

    @Test("a link loss after N bytes keeps the device's progress")
    func disconnectAfterBytes() {
        let threshold = Self.initPacket.count + 100
        var driver = transferToFirstChecksum([.disconnect(afterPacketBytes: threshold)]).driver
        #expect(driver.outputs.contains(.disconnected(.linkLost)))
        driver.connect()
        driver.subscribe(.secureControlPoint)
        #expect(
            driver.request([0x06, 0x02]) == [
                [0x60, 0x06, 0x01] + le32(4096) + Array(checksumResponse(Array(Self.image[..<100])).dropFirst(3))
            ])
    }

    @Test("a forced response replaces the device's answer")
    func forcedResponse() {
        let driver = run([.respond(opcode: 0x04, result: 0x0B, extendedError: 0x0C, trigger: .occurrence(1))])
        #expect(driver.outputs.contains(.notification(.secureControlPoint, [0x60, 0x04, 0x0B, 0x0C])))
    }

    @Test("a stalled device answers nothing until the central disconnects")
    func stall() {
        var driver = DeviceDriver(.secure(faults: FaultPlan(faults: [.stall(afterControlPointWrites: 2)])))
        driver.connect()
        driver.subscribe(.secureControlPoint)
        #expect(driver.request([0x06, 0x01]).count == 1)
        #expect(driver.write(.secureControlPoint, [0x06, 0x02], withResponse: true).isEmpty)
        #expect(driver.settle().isEmpty)
    }

    @Test("the MTU cap and forced misalignment rejection apply")
    func mtuAndAlignment() {
        var driver = DeviceDriver(.secure(faults: FaultPlan(faults: [.capMTU(50)])))
        #expect(driver.connect(mtu: 247) == [.connected(mtu: 50)])
        var options = SecureBootloaderOptions()
        options.dropsMisalignedWrites = false
        var accepting = DeviceDriver(.secure(options: options))
        accepting.connect()
        accepting.subscribe(.secureControlPoint)
        _ = accepting.secureTransfer(initPacket: Self.initPacket, image: [])
        _ = accepting.request([0x01, 0x02] + le32(4096))
        _ = accepting.send(Array(Self.image[..<18]), chunk: 18)
        #expect(accepting.request([0x03]) == [checksumResponse(Array(Self.image[..<18]))])
        var rejecting = DeviceDriver(.secure(options: options, faults: FaultPlan(faults: [.rejectMisalignedWrites])))
        rejecting.connect()
        rejecting.subscribe(.secureControlPoint)
        _ = rejecting.secureTransfer(initPacket: Self.initPacket, image: [])
        _ = rejecting.request([0x01, 0x02] + le32(4096))
        _ = rejecting.send(Array(Self.image[..<18]), chunk: 18)
        #expect(rejecting.request([0x03]) == [checksumResponse([])])
    }
}
