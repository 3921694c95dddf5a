/// Which line wrote which addresses, kept compactly so that a conflict can name the earlier line.
///
/// Consecutive lines whose equal-length records follow each other in memory (what every tool writes) fold into
/// one run, so a 16 MiB image written by objcopy costs a few hundred runs, not a million records.
struct RecordLog {
    private struct Run {
        var address: UInt32
        var recordLength: UInt32
        var count: UInt32
        var firstLine: Int
    }

    private var runs: [Run] = []

    mutating func append(address: UInt32, length: Int, line: Int) {
        let length = UInt32(length)
        if let last = runs.last, last.recordLength == length,
            UInt64(last.address) + UInt64(last.count) * UInt64(length) == UInt64(address),
            last.firstLine + Int(last.count) == line
        {
            runs[runs.count - 1].count += 1
        } else {
            runs.append(Run(address: address, recordLength: length, count: 1, firstLine: line))
        }
    }

    /// The first line that wrote `address`, if any line did.
    func firstLine(writing address: UInt32) -> Int? {
        for run in runs {
            let end = UInt64(run.address) + UInt64(run.count) * UInt64(run.recordLength)
            guard address >= run.address, UInt64(address) < end else { continue }
            return run.firstLine + Int((address - run.address) / run.recordLength)
        }
        return nil
    }
}
