/// The iteration order CPython 3.10 gives a `set` of small non-negative integers.
///
/// nrfutil 6.1.7 writes `sd_req` as `list(set(sd_req))` and merges `--sd-id` into `--sd-req` with a set difference,
/// so its init packets list SoftDevice ids in hash-table order, not in the order given. Bootloaders treat the list as
/// a set, but a byte-identical packet needs the same order. An `int`'s hash is the value itself (below 2^61 - 1), and
/// the table is open addressing with 9 linear probes, then perturbed probing (`Objects/setobject.c`).
struct PythonIntSet {
    private var table: [UInt64?] = Array(repeating: nil, count: 8)
    private var used = 0

    /// A set built by adding `values` in order, as `set(list)` does.
    init(_ values: [UInt64]) {
        for value in values { add(value) }
    }

    /// The elements in iteration order.
    var elements: [UInt64] { table.compactMap { $0 } }

    func contains(_ value: UInt64) -> Bool { table.contains(value) }

    /// `self - other`: the elements not in `other`, added to a new set in this set's iteration order.
    func subtracting(_ other: PythonIntSet) -> PythonIntSet {
        PythonIntSet(elements.filter { !other.contains($0) })
    }

    mutating func add(_ value: UInt64) {
        let mask = table.count - 1
        var index = Int(value & UInt64(mask))
        var perturb = value
        while true {
            let probes = index + 9 <= mask ? 9 : 0
            for offset in 0...probes {
                if let present = table[index + offset] {
                    if present == value { return }
                    continue
                }
                table[index + offset] = value
                used += 1
                if used * 5 >= mask * 3 { resize(minimumUsed: used * 4) }
                return
            }
            perturb >>= 5
            index = Int((UInt64(index) &* 5 &+ 1 &+ perturb) & UInt64(mask))
        }
    }

    private mutating func resize(minimumUsed: Int) {
        var size = 8
        while size <= minimumUsed { size <<= 1 }
        let old = table.compactMap { $0 }
        table = Array(repeating: nil, count: size)
        let mask = size - 1
        for value in old {
            var index = Int(value & UInt64(mask))
            var perturb = value
            placing: while true {
                if table[index] == nil {
                    table[index] = value
                    break placing
                }
                if index + 9 <= mask {
                    for offset in 1...9 where table[index + offset] == nil {
                        table[index + offset] = value
                        break placing
                    }
                }
                perturb >>= 5
                index = Int((UInt64(index) &* 5 &+ 1 &+ perturb) & UInt64(mask))
            }
        }
    }
}
