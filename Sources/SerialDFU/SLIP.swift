/// SLIP framing (RFC 1055) as Nordic's serial DFU transports use it (dfu-protocols.md §5.1).
///
/// Encoding escapes END (0xC0) and ESC (0xDB) and appends one END; it sends no leading END, because the SDK 15
/// bootloader hands an empty frame to its request parser.
package enum SLIP {
    /// The frame delimiter.
    package static let end: UInt8 = 0xC0
    /// The escape byte.
    package static let escape: UInt8 = 0xDB
    /// What an escaped END becomes after ``escape``.
    package static let escapedEnd: UInt8 = 0xDC
    /// What an escaped ESC becomes after ``escape``.
    package static let escapedEscape: UInt8 = 0xDD

    /// One frame on the wire: `payload` escaped, then END.
    ///
    /// - Parameter payload: The frame's bytes.
    /// - Returns: The wire bytes.
    package static func encode(_ payload: some Sequence<UInt8>) -> [UInt8] {
        var wire: [UInt8] = []
        wire.reserveCapacity(payload.underestimatedCount + 8)
        for byte in payload {
            switch byte {
            case end: wire += [escape, escapedEnd]
            case escape: wire += [escape, escapedEscape]
            default: wire.append(byte)
            }
        }
        wire.append(end)
        return wire
    }

    /// The wire size of `payload` once encoded, END included.
    ///
    /// - Parameter payload: The frame's bytes.
    /// - Returns: Wire bytes.
    package static func encodedSize(_ payload: some Sequence<UInt8>) -> Int {
        payload.reduce(1) { $0 + ($1 == end || $1 == escape ? 2 : 1) }
    }
}

/// A SLIP decoder fed with whatever bytes arrive, in any slices.
///
/// A frame with a bad escape (ESC followed by anything but 0xDC or 0xDD) is dropped up to the next END, as the
/// SDK's decoder does; so is a frame longer than ``maximumFrameSize``. Empty frames (END END) produce nothing.
package struct SLIPDecoder: Sendable {
    /// The longest frame kept, in decoded bytes.
    package let maximumFrameSize: Int
    /// Frames dropped so far because of a bad escape or their length.
    package private(set) var droppedFrames = 0
    private var frame: [UInt8] = []
    private var isEscaping = false
    private var isDiscarding = false

    /// Creates a decoder.
    ///
    /// - Parameter maximumFrameSize: The longest frame kept, in decoded bytes.
    package init(maximumFrameSize: Int = 4096) {
        self.maximumFrameSize = maximumFrameSize
    }

    /// Takes more bytes from the line.
    ///
    /// - Parameter bytes: The bytes, as read.
    /// - Returns: The frames they completed, in order.
    package mutating func feed(_ bytes: some Sequence<UInt8>) -> [[UInt8]] {
        var frames: [[UInt8]] = []
        for byte in bytes {
            if byte == SLIP.end {
                if !isDiscarding && !isEscaping && !frame.isEmpty { frames.append(frame) }
                if isEscaping && !isDiscarding { droppedFrames += 1 }
                frame.removeAll(keepingCapacity: true)
                isEscaping = false
                isDiscarding = false
                continue
            }
            guard !isDiscarding else { continue }
            var decoded = byte
            if isEscaping {
                isEscaping = false
                switch byte {
                case SLIP.escapedEnd: decoded = SLIP.end
                case SLIP.escapedEscape: decoded = SLIP.escape
                default:
                    discard()
                    continue
                }
            } else if byte == SLIP.escape {
                isEscaping = true
                continue
            }
            guard frame.count < maximumFrameSize else {
                discard()
                continue
            }
            frame.append(decoded)
        }
        return frames
    }

    private mutating func discard() {
        droppedFrames += 1
        isDiscarding = true
        frame.removeAll(keepingCapacity: true)
    }
}
