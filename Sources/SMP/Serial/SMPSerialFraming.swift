/// The SMP console framing of Zephyr's UART and shell transports (`serial_util.c`, `smp-console.md`), sans-IO.
///
/// A packet is the frame's length + 2 (big-endian u16), the frame, and CRC-16/XMODEM of the frame (big-endian),
/// base64-encoded and cut into lines: the first starts with the raw bytes `06 09`, the others with `04 14`, and each
/// ends with `\n`. Each line's base64 decodes on its own (whole quads). Zephyr's lines are at most 127 bytes
/// (`MCUMGR_SERIAL_MAX_FRAME`): 93 raw bytes in the first, 90 in the others; the CRC is never split across two lines; Zephyr drops a
/// longer line. Log lines of the console may sit between packets.
package enum SMPSerialFraming {
    /// The first line's marker, `MCUMGR_SERIAL_HDR_PKT`.
    package static let packetMarker: [UInt8] = [0x06, 0x09]
    /// A continuation line's marker, `MCUMGR_SERIAL_HDR_FRAG`.
    package static let fragmentMarker: [UInt8] = [0x04, 0x14]
    /// `MCUMGR_SERIAL_MAX_FRAME`: the longest line, marker and newline included.
    package static let maximumLineLength = 127
    /// The bytes a packet adds to its frame inside the device's SMP buffer: the length field and the CRC.
    ///
    /// Zephyr decodes all three into one `CONFIG_MCUMGR_TRANSPORT_NETBUF_SIZE` buffer
    /// (`mcumgr_serial_decode_frag`) and pulls the length off its front, which does not give the two bytes back
    /// (`mcumgr_serial_extract_len`).
    package static let packetOverhead = 4

    /// The largest SMP frame (header and body) a device with an SMP buffer of `bufferSize` bytes takes over the
    /// console framing.
    ///
    /// - Parameter bufferSize: The device's `buf_size`.
    /// - Returns: `bufferSize` − ``packetOverhead``.
    package static func largestFrame(bufferSize: Int) -> Int {
        bufferSize - packetOverhead
    }

    /// The largest SMP frame (header and body) whose packet takes at most `lines` console lines.
    ///
    /// The lines are laid out as ``lines(for:maximumLineLength:)`` lays them out: 179 bytes fit 2 lines of 127.
    ///
    /// - Parameters:
    ///   - lines: The most lines (at least 1).
    ///   - maximumLineLength: The longest line, marker and newline included (at least 11).
    /// - Returns: The frame size.
    package static func largestFrame(lines: Int, maximumLineLength: Int = maximumLineLength) -> Int {
        precondition(lines >= 1, "a packet takes at least one line")
        // Each line carries at most (maximumLineLength - 3) / 4 * 3 raw bytes; the packet adds 4 to the frame.
        var size = lines * ((maximumLineLength - 3) / 4 * 3)
        func lineCount(_ size: Int) -> Int {
            Self.lines(for: [UInt8](repeating: 0, count: size), maximumLineLength: maximumLineLength).count
        }
        while size > 1 && lineCount(size) > lines { size -= 1 }
        return size
    }

    /// The lines that carry `frame`, laid out as Zephyr's `mcumgr_serial_tx_pkt` lays them out.
    ///
    /// - Parameters:
    ///   - frame: An SMP frame (header and body).
    ///   - maximumLineLength: The longest line, marker and newline included (at least 11).
    /// - Returns: The lines, each ending with `\n`.
    package static func lines(for frame: [UInt8], maximumLineLength: Int = maximumLineLength) -> [[UInt8]] {
        precondition(!frame.isEmpty, "an empty SMP frame has no serial encoding")
        precondition(maximumLineLength >= 11, "a line of \(maximumLineLength) bytes holds no data and CRC")
        let crc = CRC16XMODEM.checksum(frame)
        let length = UInt16(frame.count + 2)
        var lines: [[UInt8]] = []
        var offset = 0
        var isFirst = true
        var crcSent = false
        while !crcSent {
            var raw: [UInt8] = []
            // Zephyr takes the first line's length field and first byte out of the per-line budget once and never
            // puts them back (`max_input -= 3` on the first pass only), so every line carries 90 raw bytes
            // of data at 127, the first line also the 3 of the length field and first byte.
            let room = (maximumLineLength - 3) / 4 * 3 - 3
            if isFirst {
                raw = [UInt8(length >> 8), UInt8(length & 0xFF), frame[0]]
                offset = 1
            }
            // Whole triples of the frame, leaving room for the CRC in this line when the rest fits; the CRC is
            // never split (Zephyr holds a byte back for the next line instead).
            let left = frame.count - offset
            var take = min(room, left)
            let finishes = room - left >= 2
            if !finishes && take == left { take -= 1 }
            if !finishes { take -= take % 3 }
            raw += frame[offset..<offset + take]
            offset += take
            if finishes {
                raw += [UInt8(crc >> 8), UInt8(crc & 0xFF)]
                crcSent = true
            }
            lines.append((isFirst ? packetMarker : fragmentMarker) + Base64.encode(raw) + [0x0A])
            isFirst = false
        }
        return lines
    }
}

/// Reassembles SMP frames from a serial byte stream: packets in console framing, and the log lines between them.
///
/// Both forms of the length field are accepted: the frame and CRC (Zephyr 3.0 and later, what ``SMPSerialFraming``
/// writes), and the frame alone (Zephyr 2.7.1 and older, Zephyr issue #39546). A packet is complete once its lines
/// hold the declared length; the older form's last line brings the 2 CRC bytes beyond it (Zephyr's old encoder
/// always puts the CRC in the line of the frame's last bytes), and the CRC check decides.
///
/// A line that breaks the framing (bad base64, wrong length, CRC mismatch, a continuation with no packet open) is
/// reported and the packet in progress is dropped, as Zephyr's receiver drops it; the stream goes on.
package struct SMPSerialDecoder: Sendable {
    /// What the stream held.
    package enum Event: Sendable, Equatable {
        /// A complete SMP frame, CRC checked.
        case frame([UInt8])
        /// A console line that is not SMP (a log line), without its line ending.
        case consoleLine([UInt8])
        /// A packet dropped, and why.
        case discarded(SMPSerialError)
    }

    /// The longest line kept; a longer one is dropped whole, so a stream without newlines costs bounded memory.
    package let maximumLineLength: Int
    private var line: [UInt8] = []
    private var isOverlong = false
    private var packet: (expected: Int, bytes: [UInt8])?

    /// Creates a decoder.
    ///
    /// - Parameter maximumLineLength: The longest line accepted (Zephyr sends at most 127 bytes).
    package init(maximumLineLength: Int = 4096) {
        self.maximumLineLength = maximumLineLength
    }

    /// Feeds bytes as they arrive.
    ///
    /// - Parameter bytes: The next bytes of the stream.
    /// - Returns: What they completed, in order.
    package mutating func receive(_ bytes: some Sequence<UInt8>) -> [Event] {
        var events: [Event] = []
        for byte in bytes {
            if byte == 0x0A {
                if isOverlong {
                    events.append(.discarded(.lineTooLong(limit: maximumLineLength)))
                    packet = nil
                } else if let event = finishLine() {
                    events.append(event)
                }
                line = []
                isOverlong = false
            } else if line.count < maximumLineLength {
                line.append(byte)
            } else {
                isOverlong = true
            }
        }
        return events
    }

    private mutating func finishLine() -> Event? {
        let isPacketStart = line.starts(with: SMPSerialFraming.packetMarker)
        let isFragment = line.starts(with: SMPSerialFraming.fragmentMarker)
        guard isPacketStart || isFragment else {
            let text = line.last == 0x0D ? Array(line.dropLast()) : line
            return .consoleLine(text)
        }
        var encoded = line.dropFirst(2)
        if encoded.last == 0x0D { encoded = encoded.dropLast() }
        guard let decoded = Base64.decode(encoded) else {
            packet = nil
            return .discarded(.badBase64)
        }
        var current: (expected: Int, bytes: [UInt8])
        if isPacketStart {
            guard decoded.count >= 2 else {
                packet = nil
                return .discarded(.badLength(declared: nil, received: decoded.count))
            }
            current = (Int(decoded[0]) << 8 | Int(decoded[1]), Array(decoded.dropFirst(2)))
        } else {
            guard let open = packet else { return .discarded(.continuationWithoutStart) }
            current = (open.expected, open.bytes + decoded)
        }
        if current.bytes.count < current.expected {
            packet = current
            return nil
        }
        packet = nil
        // The length field counts the CRC (Zephyr 3.0 and later), or not (Zephyr 2.7.1 and older: issue #39546, fixed
        // by #40127): a packet that ends 2 bytes past its declared length is the older form. Either way the last two
        // bytes are the CRC, and it decides.
        let isCurrentForm = current.bytes.count == current.expected && current.expected >= 2
        let isPre30Form = current.bytes.count == current.expected + 2
        guard isCurrentForm || isPre30Form else {
            return .discarded(.badLength(declared: current.expected, received: current.bytes.count))
        }
        let frame = Array(current.bytes.dropLast(2))
        let received =
            UInt16(current.bytes[current.bytes.count - 2]) << 8 | UInt16(current.bytes[current.bytes.count - 1])
        let computed = CRC16XMODEM.checksum(frame)
        guard received == computed else { return .discarded(.crcMismatch(received: received, computed: computed)) }
        return .frame(frame)
    }
}

/// Why a serial packet was dropped.
package enum SMPSerialError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A line's base64 is not whole, padded quads of the alphabet.
    case badBase64
    /// The decoded length disagrees with the packet's length field (`nil`: no length field at all).
    case badLength(declared: Int?, received: Int)
    /// The CRC-16/XMODEM does not match.
    case crcMismatch(received: UInt16, computed: UInt16)
    /// A `04 14` line with no packet open.
    case continuationWithoutStart
    /// A line longer than the decoder accepts.
    case lineTooLong(limit: Int)

    package var description: String {
        switch self {
        case .badBase64: "SMP serial line is not valid base64"
        case .badLength(nil, let received): "SMP serial packet of \(received) bytes has no length field"
        case .badLength(let declared?, let received):
            "SMP serial packet declares \(declared) bytes but \(received) arrived"
        case .crcMismatch(let received, let computed):
            "SMP serial packet CRC is 0x\(hex2(UInt8(received >> 8)))\(hex2(UInt8(received & 0xFF))), computed "
                + "0x\(hex2(UInt8(computed >> 8)))\(hex2(UInt8(computed & 0xFF)))"
        case .continuationWithoutStart: "SMP serial continuation line with no packet started"
        case .lineTooLong(let limit): "serial line longer than \(limit) bytes"
        }
    }
}
