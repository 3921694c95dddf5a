/// 64 KiB of image bytes with a bitmap of which of them a record has written.
///
/// Pages are allocated only where data lands, so an image with an application at 0x26000 and a few UICR words
/// costs two pages, not 256 MiB. Unwritten bytes read as 0xFF. A class because pages are shared by identity
/// between the parser that fills them and the ``HexImage`` it hands out; nothing mutates a page after
/// ``IntelHexParser/finish()``.
final class MemoryPage {
    /// Bytes per page; the index of a page is `address >> 16`.
    static let size = 1 << 16
    static let wordCount = size / 64

    let bytes: UnsafeMutablePointer<UInt8>
    let written: UnsafeMutablePointer<UInt64>

    init() {
        bytes = .allocate(capacity: Self.size)
        bytes.initialize(repeating: 0xFF, count: Self.size)
        written = .allocate(capacity: Self.wordCount)
        written.initialize(repeating: 0, count: Self.wordCount)
    }

    deinit {
        bytes.deallocate()
        written.deallocate()
    }

    func isWritten(_ offset: Int) -> Bool {
        written[offset >> 6] & (1 << UInt64(offset & 63)) != 0
    }

    /// Whether every byte of the page holds data.
    var isFull: Bool {
        (0..<Self.wordCount).allSatisfy { written[$0] == .max }
    }

    /// The offset of the first written byte at or after `offset` (or at or before it, searching down), if any.
    func firstWritten(from offset: Int, upward: Bool) -> Int? {
        scan(from: offset, upward: upward, for: true)
    }

    /// The offset of the first unwritten byte at or after `offset` (or at or before it, searching down), if any.
    func firstUnwritten(from offset: Int, upward: Bool) -> Int? {
        scan(from: offset, upward: upward, for: false)
    }

    private func scan(from offset: Int, upward: Bool, for wanted: Bool) -> Int? {
        var word = offset >> 6
        let bit = UInt64(offset & 63)
        var bits = wanted ? written[word] : ~written[word]
        if upward {
            bits &= ~0 << bit
            while true {
                if bits != 0 { return word << 6 + bits.trailingZeroBitCount }
                word += 1
                guard word < Self.wordCount else { return nil }
                bits = wanted ? written[word] : ~written[word]
            }
        } else {
            bits &= bit == 63 ? ~0 : (1 << (bit + 1)) - 1
            while true {
                if bits != 0 { return word << 6 + 63 - bits.leadingZeroBitCount }
                word -= 1
                guard word >= 0 else { return nil }
                bits = wanted ? written[word] : ~written[word]
            }
        }
    }
}
