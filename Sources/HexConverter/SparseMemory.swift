/// The bytes of an image by address, in 64 KiB pages allocated where data lands.
struct SparseMemory {
    /// What ``store(_:at:)`` found when a byte was already written with another value.
    struct Conflict {
        var address: UInt32
        var existing: UInt8
        var incoming: UInt8
    }

    private(set) var pages: [UInt32: MemoryPage] = [:]
    /// The lowest and highest written addresses, `nil` while nothing is written.
    private(set) var bounds: (low: UInt32, high: UInt32)?
    private var cachedIndex: UInt32 = .max
    private var cachedPage: MemoryPage?

    /// Writes `data` at `address`; a byte already written must be written again with the same value.
    ///
    /// The caller has checked that `address + data.count` stays within 4 GiB.
    mutating func store(_ data: UnsafeBufferPointer<UInt8>, at address: UInt32) -> Conflict? {
        guard let source = data.baseAddress, !data.isEmpty else { return nil }
        var done = 0
        while done < data.count {
            let current = address + UInt32(done)
            let page = page(at: current >> 16)
            let offset = Int(current & 0xFFFF)
            let length = min(data.count - done, MemoryPage.size - offset)
            if page.isUnwritten(offset, count: length) {
                (page.bytes + offset).update(from: source + done, count: length)
                page.markWritten(offset, count: length)
                done += length
                continue
            }
            for i in 0..<length {
                let slot = offset + i
                let value = source[done + i]
                if page.isWritten(slot) {
                    if page.bytes[slot] != value {
                        return Conflict(address: current + UInt32(i), existing: page.bytes[slot], incoming: value)
                    }
                } else {
                    page.bytes[slot] = value
                    page.markWritten(slot, count: 1)
                }
            }
            done += length
        }
        let last = address + UInt32(data.count - 1)
        if let bounds {
            self.bounds = (min(bounds.low, address), max(bounds.high, last))
        } else {
            bounds = (address, last)
        }
        return nil
    }

    private mutating func page(at index: UInt32) -> MemoryPage {
        if index == cachedIndex, let cachedPage { return cachedPage }
        let page: MemoryPage
        if let existing = pages[index] {
            page = existing
        } else {
            page = MemoryPage()
            pages[index] = page
        }
        cachedIndex = index
        cachedPage = page
        return page
    }

    /// Whether the byte at `address` has been written.
    func isWritten(_ address: UInt32) -> Bool {
        pages[address >> 16]?.isWritten(Int(address & 0xFFFF)) ?? false
    }

    /// The contiguous written region that contains `address`, which must be written.
    func region(containing address: UInt32) -> HexRegion {
        precondition(isWritten(address), "no data at \(address)")
        return HexRegion(start: edge(of: address, upward: false), end: edge(of: address, upward: true))
    }

    private func edge(of address: UInt32, upward: Bool) -> UInt32 {
        var index = address >> 16
        var offset = Int(address & 0xFFFF)
        while true {
            guard let page = pages[index] else {
                return upward ? index << 16 - 1 : (index + 1) << 16
            }
            if let gap = page.firstUnwritten(from: offset, upward: upward) {
                return upward ? index << 16 + UInt32(gap) - 1 : index << 16 + UInt32(gap) + 1
            }
            if upward ? index == 0xFFFF : index == 0 { return upward ? .max : 0 }
            index = upward ? index + 1 : index - 1
            offset = upward ? 0 : MemoryPage.size - 1
        }
    }

    /// Every contiguous written region, lowest first.
    func regions() -> [HexRegion] {
        var result: [HexRegion] = []
        for index in pages.keys.sorted() {
            guard let page = pages[index] else { continue }
            var offset = 0
            while let start = page.firstWritten(from: offset, upward: true) {
                let stop = page.firstUnwritten(from: start, upward: true) ?? MemoryPage.size
                let region = HexRegion(start: index << 16 + UInt32(start), end: index << 16 + UInt32(stop - 1))
                if let last = result.last, UInt64(last.end) + 1 == UInt64(region.start) {
                    result[result.count - 1].end = region.end
                } else {
                    result.append(region)
                }
                guard stop < MemoryPage.size else { break }
                offset = stop
            }
        }
        return result
    }
}
