/// 64 KiB of image bytes, with a bitmap of which of them a record has written while the page is partly written.
///
/// Pages are allocated only where data lands, so an image with an application at 0x26000 and a few UICR words
/// costs two pages, not 256 MiB. Unwritten bytes read as 0xFF. Once every byte of a page is written its bitmap is
/// freed, so a large contiguous image costs its own size plus a bitmap for the few pages at its edges: this keeps
/// `convert`'s peak memory under twice the size of its output. A class because pages are shared by identity
/// between the parser that fills them and the ``HexImage`` it hands out; nothing mutates a page after
/// ``IntelHexParser/finish()``.
final class MemoryPage {
    /// Bytes per page; the index of a page is `address >> 16`.
    static let size = 1 << 16
    static let wordCount = size / 64

    let bytes: UnsafeMutablePointer<UInt8>
    /// One bit per byte; `nil` once every byte is written.
    private var written: UnsafeMutablePointer<UInt64>?
    private var writtenCount = 0

    init() {
        bytes = .allocate(capacity: Self.size)
        bytes.initialize(repeating: 0xFF, count: Self.size)
        let bitmap = UnsafeMutablePointer<UInt64>.allocate(capacity: Self.wordCount)
        bitmap.initialize(repeating: 0, count: Self.wordCount)
        written = bitmap
    }

    deinit {
        bytes.deallocate()
        written?.deallocate()
    }

    func isWritten(_ offset: Int) -> Bool {
        guard let written else { return true }
        return written[offset >> 6] & (1 << UInt64(offset & 63)) != 0
    }

    /// Whether none of the `count` bytes from `offset` (within the page) has been written.
    func isUnwritten(_ offset: Int, count: Int) -> Bool {
        guard let written else { return false }
        var result = true
        forEachWordMask(offset, count: count) { word, mask in
            if written[word] & mask != 0 { result = false }
        }
        return result
    }

    /// Marks the `count` bytes from `offset` (within the page) as written; none of them may be written already.
    func markWritten(_ offset: Int, count: Int) {
        guard let written else { preconditionFailure("page is already full") }
        forEachWordMask(offset, count: count) { word, mask in written[word] |= mask }
        writtenCount += count
        if writtenCount == Self.size {
            written.deallocate()
            self.written = nil
        }
    }

    private func forEachWordMask(_ offset: Int, count: Int, _ body: (Int, UInt64) -> Void) {
        var position = offset
        let end = offset + count
        while position < end {
            let bit = position & 63
            let take = min(64 - bit, end - position)
            let mask: UInt64 = take == 64 ? .max : ((1 << UInt64(take)) - 1) << UInt64(bit)
            body(position >> 6, mask)
            position += take
        }
    }

    /// The offset of the first written byte at or after `offset` (or at or before it, searching down), if any.
    func firstWritten(from offset: Int, upward: Bool) -> Int? {
        guard written != nil else { return offset }
        return scan(from: offset, upward: upward, for: true)
    }

    /// The offset of the first unwritten byte at or after `offset` (or at or before it, searching down), if any.
    func firstUnwritten(from offset: Int, upward: Bool) -> Int? {
        guard written != nil else { return nil }
        return scan(from: offset, upward: upward, for: false)
    }

    private func scan(from offset: Int, upward: Bool, for wanted: Bool) -> Int? {
        guard let written else { preconditionFailure("scan of a full page") }
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
