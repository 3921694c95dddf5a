import SerialDFU
import Testing

@Suite struct SLIPTests {
    @Test("encoding escapes END and ESC, appends one END and sends no leading END")
    func encoding() {
        #expect(SLIP.encode([0x09, 0x01]) == [0x09, 0x01, 0xC0])
        #expect(SLIP.encode([0xC0, 0xDB, 0x00]) == [0xDB, 0xDC, 0xDB, 0xDD, 0x00, 0xC0])
        #expect(SLIP.encode([]) == [0xC0])
        #expect(SLIP.encodedSize([0xC0, 0xDB, 0x00]) == 6)
    }

    @Test("a decoder fed byte by byte returns every frame of any content", arguments: [1, 2, 3, 7, 64])
    func roundTrip(slice: Int) {
        let frames: [[UInt8]] = [
            [0x60, 0x09, 0x01, 0xC0], [0xDB], Array(0...255).map(UInt8.init), [0x08, 0xDB, 0xDC],
        ]
        let wire = frames.flatMap(SLIP.encode)
        var decoder = SLIPDecoder()
        var decoded: [[UInt8]] = []
        var index = 0
        while index < wire.count {
            decoded += decoder.feed(wire[index..<min(wire.count, index + slice)])
            index += slice
        }
        #expect(decoded == frames)
        #expect(decoder.droppedFrames == 0)
    }

    @Test("a bad escape drops its frame up to the next END; empty frames produce nothing; the next frame survives")
    func badEscape() {
        var decoder = SLIPDecoder()
        let frames = decoder.feed([0xC0, 0xC0, 0x01, 0xDB, 0x99, 0x02, 0xC0, 0x60, 0x01, 0x01, 0xC0])
        #expect(frames == [[0x60, 0x01, 0x01]])
        #expect(decoder.droppedFrames == 1)
    }

    @Test("a frame longer than the limit is dropped, the decoder does not grow without bound")
    func overlong() {
        var decoder = SLIPDecoder(maximumFrameSize: 8)
        #expect(decoder.feed([UInt8](repeating: 0x55, count: 100) + [0xC0, 0x01, 0xC0]) == [[0x01]])
        #expect(decoder.droppedFrames == 1)
    }

    @Test("data per write object frame follows the device's SLIP buffer: UART 131 -> 64, USB CDC 2051 -> 1024")
    func dataPerFrame() {
        #expect(SerialDFUTransport.dataPerFrame(deviceMTU: 131) == 64)
        #expect(SerialDFUTransport.dataPerFrame(deviceMTU: 2051) == 1024)
        // A whole word less when (mtu - 1) / 2 - 1 is not a multiple of 4.
        #expect(SerialDFUTransport.dataPerFrame(deviceMTU: 100) == 48)
    }
}
