import Checksums
import DFUController
import SerialDFU
import Testing

@Suite struct LegacySerialDFUTests {
    private func part(imageSize: Int) throws -> DFUFirmware.Part {
        try DFUFirmware.Part(
            imageType: .application,
            initPacket: [0x52, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x01],
            image: (0..<imageSize).map { UInt8(truncatingIfNeeded: $0) })
    }

    private func sent(_ actions: [LegacySerialDFU.Action]) -> [[UInt8]] {
        actions.compactMap { if case .send(let bytes) = $0 { bytes } else { nil } }
    }

    /// The device's acknowledgement of a host packet with sequence number `sequence`, SLIP-decoded.
    private func acknowledgement(of sequence: UInt8) -> [UInt8] {
        HCIPacket(acknowledging: sequence + 1).unframed
    }

    @Test("transcript: start (mode 4, sizes), erase pause, init + 2 zero bytes, 512-byte data, stop; seq from 1")
    func transcript() throws {
        var machine = LegacySerialDFU(parts: [try part(imageSize: 600)])
        var actions = machine.start()
        var packets: [HCIPacket] = []
        var sequence: UInt8 = 1
        while true {
            for bytes in sent(actions) {
                var decoder = SLIPDecoder()
                let frame = try #require(decoder.feed(bytes).first)
                packets.append(try #require(HCIPacket(frame: frame)))
            }
            if actions.contains(.finished) { break }
            if actions.contains(where: { if case .pause = $0 { true } else { false } }) {
                actions = machine.timerFired()
                continue
            }
            actions = machine.receive(frame: acknowledgement(of: sequence))
            sequence = (sequence + 1) & 7
        }
        #expect(packets.map(\.sequence) == [1, 2, 3, 4, 5])
        #expect(packets.map(\.acknowledgement) == [2, 3, 4, 5, 6])
        #expect(packets.allSatisfy { $0.isReliable && $0.hasIntegrityCheck && $0.type == 14 })
        #expect(packets[0].payload == [3, 0, 0, 0, 4, 0, 0, 0] + [0, 0, 0, 0, 0, 0, 0, 0] + [0x58, 0x02, 0, 0])
        #expect(packets[1].payload == [1, 0, 0, 0] + (try part(imageSize: 600)).initPacket + [0, 0])
        #expect(packets[2].payload.count == 4 + 512)
        #expect(packets[3].payload.count == 4 + 88)
        #expect(packets[4].payload == [5, 0, 0, 0])
    }

    @Test("a missing acknowledgement resends the same bytes; a wrong one too; after three sends the update fails")
    func resend() throws {
        var machine = LegacySerialDFU(parts: [try part(imageSize: 8)])
        let first = sent(machine.start())
        #expect(sent(machine.timerFired()) == first)
        #expect(sent(machine.receive(frame: acknowledgement(of: 5))) == first)
        #expect(machine.timerFired() == [.failed(.noAnswer(attempts: 3))])
    }

    @Test("only a later part's unacknowledged Start may be resent as a first attempt (the device reset meanwhile)")
    func laterStart() throws {
        var machine = LegacySerialDFU(parts: [try part(imageSize: 8), try part(imageSize: 8)])
        var actions = machine.start()
        #expect(!machine.isAwaitingLaterStart)
        #expect(machine.resendStart().isEmpty)
        var sequence: UInt8 = 1
        // Part 1: start, init, one data packet, stop; pauses after start, data and stop.
        while !machine.isAwaitingLaterStart {
            if actions.contains(where: { if case .pause = $0 { true } else { false } }) {
                actions = machine.timerFired()
                continue
            }
            try #require(!sent(actions).isEmpty)
            actions = machine.receive(frame: acknowledgement(of: sequence))
            sequence = (sequence + 1) & 7
        }
        let start = sent(actions)
        try #require(start.count == 1)
        // Three silent waits would end the update; a resend after each starts the count again.
        for _ in 0..<5 {
            #expect(sent(machine.resendStart()) == start)
        }
        #expect(machine.isAwaitingLaterStart)
        _ = machine.receive(frame: acknowledgement(of: sequence))
        #expect(!machine.isAwaitingLaterStart)
        #expect(machine.resendStart().isEmpty)
    }

    @Test("damaged frames (bad header checksum or CRC) are not acknowledgements")
    func damaged() throws {
        var machine = LegacySerialDFU(parts: [try part(imageSize: 8)])
        _ = machine.start()
        var frame = acknowledgement(of: 1)
        frame[3] &+= 1
        #expect(machine.receive(frame: frame).isEmpty)
        var data = HCIPacket(sequence: 1, payload: [1, 2, 3]).unframed
        data[5] ^= 0xFF
        #expect(HCIPacket(frame: data) == nil)
        #expect(CRC16.checksum(Array("123456789".utf8)) == 0x29B1)
    }
}
