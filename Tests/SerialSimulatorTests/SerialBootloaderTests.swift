import DFUSimulator
import SerialDFU
import SerialSimulator
import Testing

/// The Secure DFU bootloader behind the SDK 15 serial transport, sans-IO: SLIP frames in, SLIP frames out.
@Suite struct SerialBootloaderTests {
    static func bootloader(faults: SerialBootloader.LineFaults = SerialBootloader.LineFaults()) -> SerialBootloader {
        var options = SecureBootloaderOptions()
        options.softDeviceFWID = 0x101
        return SerialBootloader(
            device: SimulatedDevice(configuration: SimulatorConfiguration(bootloader: .secure(options))), faults: faults
        )
    }

    /// The frames in `bytes`.
    static func frames(_ bytes: [UInt8]) -> [[UInt8]] {
        var decoder = SLIPDecoder()
        return decoder.feed(bytes)
    }

    @Test("the transport's own requests: ping echoes its id, Get MTU gives the SLIP buffer, version 1")
    func transportRequests() {
        var bootloader = Self.bootloader()
        let wire = SLIP.encode([0x09, 0x2A]) + SLIP.encode([0x07]) + SLIP.encode([0x00])
        let output = bootloader.receive(wire, at: .zero)
        #expect(
            Self.frames(output.bytes) == [
                [0x60, 0x09, 0x01, 0x2A], [0x60, 0x07, 0x01, 131, 0], [0x60, 0x00, 0x01, 0x01],
            ])
        #expect(!output.vanishes)
        #expect(bootloader.transcript == ["> 092a", "< 6009012a", "> 07", "< 6007018300", "> 00", "< 60000101"])
        #expect(bootloader.firstFrameTime == .zero)
        #expect(bootloader.hostBytes == wire.count)
    }

    @Test("a control point request reaches the Secure DFU core, and its response comes back as a frame")
    func controlPoint() {
        var bootloader = Self.bootloader()
        let output = bootloader.receive(SLIP.encode([0x06, 0x01]), at: .milliseconds(5))  // Select command object
        let frames = Self.frames(output.bytes)
        #expect(frames.count == 1)
        #expect(frames.first?.starts(with: [0x60, 0x06, 0x01]) == true)
        #expect(frames.first?.count == 15)  // max size, offset, CRC: three 32-bit fields
    }

    @Test("a frame split across reads is answered once it is whole")
    func splitFrame() {
        var bootloader = Self.bootloader()
        let wire = SLIP.encode([0x09, 0x07])
        #expect(bootloader.receive(Array(wire.prefix(2)), at: .zero).bytes.isEmpty)
        #expect(
            Self.frames(bootloader.receive(Array(wire.dropFirst(2)), at: .zero).bytes) == [[0x60, 0x09, 0x01, 0x07]])
    }

    @Test("line faults: a mute device answers nothing, a noisy one sends garbage first, a vanishing one unplugs")
    func lineFaults() {
        var mute = SerialBootloader.LineFaults()
        mute.isMute = true
        var silent = Self.bootloader(faults: mute)
        #expect(silent.receive(SLIP.encode([0x09, 0x01]), at: .zero).bytes.isEmpty)
        #expect(silent.transcript == ["> 0901"])

        var noisy = SerialBootloader.LineFaults()
        noisy.sendsGarbage = true
        var chatty = Self.bootloader(faults: noisy)
        let bytes = chatty.receive(SLIP.encode([0x09, 0x01]), at: .zero).bytes
        #expect(!bytes.starts(with: SLIP.encode([0x60, 0x09, 0x01, 0x01])))
        #expect(Self.frames(bytes).last == [0x60, 0x09, 0x01, 0x01])

        var vanishing = SerialBootloader.LineFaults()
        vanishing.vanishAfterWrites = 2
        var unplugged = Self.bootloader(faults: vanishing)
        #expect(!unplugged.receive(SLIP.encode([0x08, 1, 2, 3, 4]), at: .zero).vanishes)
        #expect(unplugged.receive(SLIP.encode([0x08, 5, 6, 7, 8]), at: .zero).vanishes)
        #expect(unplugged.receive(SLIP.encode([0x09, 0x01]), at: .zero).bytes.isEmpty)
    }
}

/// The legacy (SDK 11 and Adafruit) serial bootloader: HCI link-layer packets, acknowledged by sequence number.
@Suite struct LegacySerialBootloaderTests {
    static func bootloader(faults: LegacySerialBootloader.LineFaults = LegacySerialBootloader.LineFaults())
        -> LegacySerialBootloader
    {
        LegacySerialBootloader(
            device: SimulatedDevice(
                configuration: SimulatorConfiguration(bootloader: .legacy(LegacyBootloaderOptions(generation: .sdk11)))),
            faults: faults)
    }

    /// A start packet (type 3) for an application of `size` bytes.
    static func start(sequence: UInt8, size: UInt32 = 1024) -> HCIPacket {
        let sizes = [UInt32(0), 0, size].flatMap { value in (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
        }
        return HCIPacket(sequence: sequence, payload: [3, 0, 0, 0, 4, 0, 0, 0] + sizes)
    }

    @Test("each reliable packet is acknowledged with the next sequence number; a repeat is acknowledged again only")
    func acknowledgements() throws {
        var bootloader = Self.bootloader()
        let first = bootloader.receive(Self.start(sequence: 0).wire, at: .zero)
        let acknowledgement = try #require(
            SerialBootloaderTests.frames(first.bytes).first.flatMap(HCIPacket.init(frame:)))
        #expect(acknowledgement == HCIPacket(acknowledging: 1))
        let repeated = bootloader.receive(Self.start(sequence: 0).wire, at: .milliseconds(10))
        #expect(
            SerialBootloaderTests.frames(repeated.bytes).compactMap(HCIPacket.init(frame:)) == [
                HCIPacket(acknowledging: 1)
            ])
        #expect(bootloader.transcript.filter { $0.hasPrefix(">") }.count == 2)
        #expect(bootloader.transcript.filter { $0.hasPrefix("<") }.count == 2)
    }

    @Test("a damaged packet is dropped unacknowledged; a mute device acknowledges nothing")
    func damagedAndMute() {
        var bootloader = Self.bootloader()
        var wire = Self.start(sequence: 0).wire
        wire[wire.count - 3] ^= 0x01  // inside the CRC-16
        #expect(bootloader.receive(wire, at: .zero).bytes.isEmpty)
        #expect(bootloader.transcript.first?.hasPrefix("# dropped damaged packet") == true)

        var faults = LegacySerialBootloader.LineFaults()
        faults.isMute = true
        var mute = Self.bootloader(faults: faults)
        #expect(mute.receive(Self.start(sequence: 0).wire, at: .zero).bytes.isEmpty)
    }

    @Test("a dropped acknowledgement fault withholds exactly that packet's acknowledgement")
    func droppedAcknowledgement() {
        var faults = LegacySerialBootloader.LineFaults()
        faults.droppedAcknowledgements = [1]
        var bootloader = Self.bootloader(faults: faults)
        #expect(bootloader.receive(Self.start(sequence: 0).wire, at: .zero).bytes.isEmpty)
        #expect(!bootloader.receive(Self.start(sequence: 0).wire, at: .milliseconds(10)).bytes.isEmpty)
    }
}
