/// Sizes image upload requests so that each frame fits the device's SMP buffer (`buf_size`, header included) and,
/// over BLE, does not end in a nearly empty write: the frame is cut to `k` whole ATT packets of MTU − 3 bytes when
/// the rest of the buffer would fill less than half a packet, and fills the buffer otherwise.
///
/// Zephyr's default
/// 384-byte buffer at MTU 247 thus takes 2 writes of 244 + 140 bytes (356 image bytes a request, not 222 in one
/// write): with requests waiting on answers a round trip apart, the bytes per request set the rate, not the packet
/// count (`scripts/bench-smp.sh`, 2M PHY: 14.7 → 23.9 kB/s with one request in flight, 43.9 → 63.7 with three).
package struct SMPChunkPlanner: Sendable, Equatable {
    /// The longest frame to send.
    package let frameLimit: Int
    /// The image's length.
    package let imageLength: Int
    /// The image number.
    package let image: Int

    /// Creates a planner.
    ///
    /// - Parameters:
    ///   - bufferSize: The device's `buf_size`: the longest request frame it takes.
    ///   - mtu: The ATT MTU (for serial transports, pass a value above `bufferSize + 3`).
    ///   - imageLength: The image's length.
    ///   - image: The image number.
    package init(bufferSize: Int, mtu: Int, imageLength: Int, image: Int = 0) {
        let packet = max(20, mtu - 3)
        let whole = bufferSize / packet
        let rest = bufferSize - whole * packet
        frameLimit = whole >= 1 && rest < packet / 2 ? whole * packet : bufferSize
        self.imageLength = imageLength
        self.image = image
    }

    /// How many image bytes the request at `offset` carries: as many as fit, never past the end.
    ///
    /// - Parameter offset: The chunk's offset; at 0 the request also carries `len` and `sha`.
    /// - Returns: The data length, 0 when not even one byte fits.
    package func dataLength(at offset: Int) -> Int {
        let remaining = imageLength - offset
        guard remaining > 0 else { return 0 }
        let isFirst = offset == 0
        func frameSize(_ length: Int) -> Int {
            SMPHeader.size
                + ImageUploadChunk.bodySize(
                    dataLength: length, offset: offset, isFirst: isFirst, imageLength: imageLength, image: image)
        }
        var length = min(remaining, max(0, frameLimit - frameSize(0)))
        while length > 0 && frameSize(length) > frameLimit { length -= 1 }
        return length
    }
}
