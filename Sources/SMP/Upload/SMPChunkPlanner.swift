/// Sizes image upload requests so that each frame fits the device's SMP buffer (`buf_size`, header included) and,
/// over BLE, fills whole ATT packets: a frame of `k` × (MTU − 3) bytes goes out in `k` full writes, where a frame
/// one byte longer would need a nearly empty extra write.
public struct SMPChunkPlanner: Sendable, Equatable {
    /// The longest frame to send.
    public let frameLimit: Int
    /// The image's length.
    public let imageLength: Int
    /// The image number.
    public let image: Int

    /// Creates a planner.
    ///
    /// - Parameters:
    ///   - bufferSize: The device's `buf_size`: the longest request frame it takes.
    ///   - mtu: The ATT MTU (for serial transports, pass a value above `bufferSize + 3`).
    ///   - imageLength: The image's length.
    ///   - image: The image number.
    public init(bufferSize: Int, mtu: Int, imageLength: Int, image: Int = 0) {
        let packet = max(20, mtu - 3)
        let whole = bufferSize / packet
        frameLimit = whole >= 1 ? whole * packet : bufferSize
        self.imageLength = imageLength
        self.image = image
    }

    /// How many image bytes the request at `offset` carries: as many as fit, never past the end.
    ///
    /// - Parameter offset: The chunk's offset; at 0 the request also carries `len` and `sha`.
    /// - Returns: The data length, 0 when not even one byte fits.
    public func dataLength(at offset: Int) -> Int {
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
