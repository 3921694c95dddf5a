import SMP

/// The OS group beyond echo, reset and parameters (`os_mgmt.c`): task statistics, date and time, application info,
/// bootloader info. Zephyr's os_mgmt has no mpstat handler: `OS_MGMT_ID_MPSTAT` answers rc 8.
extension SimulatedManagementGroups {
    /// The threads `os taskstat` lists, as `k_thread_foreach` walks a small Zephyr application's.
    static let threads: [(name: String, priority: Int, state: Int, stackSize: Int, stackUsed: Int)] = [
        ("idle", 15, 0, 80, 16), ("logging", 14, 0, 192, 80), ("main", 0, 0, 512, 220),
        ("smp_work", 7, 0, 528, 300), ("sysworkq", -1, 0, 256, 96),
    ]

    mutating func os(_ id: UInt8, isWrite: Bool, _ body: CBORValue) -> Answer? {
        switch (id, isWrite) {
        case (2, false): return taskStatistics()
        case (4, false):
            guard let dateTime else { return .group(SMPGroupRequest.Group.os, 4) }
            return .ok(.map([CBORMapEntry("datetime", .text(dateTime))]))
        case (4, true): return setDateTime(body)
        case (7, false): return info(body)
        case (8, false): return bootloaderInfo(body)
        default: return nil
        }
    }

    /// `os_mgmt_taskstat_read`: `{"tasks": {name: {prio, tid, state, stksiz, stkuse, runtime, cswcnt, last_checkin,
    /// next_checkin}}}` (stack sizes in 4-byte words).
    private func taskStatistics() -> Answer {
        let tasks = Self.threads.enumerated().map { index, thread in
            CBORMapEntry(
                thread.name,
                .map([
                    CBORMapEntry("prio", .int(thread.priority)), CBORMapEntry("tid", .int(index)),
                    CBORMapEntry("state", .int(thread.state)), CBORMapEntry("stksiz", .int(thread.stackSize)),
                    CBORMapEntry("stkuse", .int(thread.stackUsed)), CBORMapEntry("runtime", .int(0)),
                    CBORMapEntry("cswcnt", .int(0)), CBORMapEntry("last_checkin", .int(0)),
                    CBORMapEntry("next_checkin", .int(0)),
                ]))
        }
        return .ok(.map([CBORMapEntry("tasks", .map(tasks))]))
    }

    /// `os_mgmt_datetime_write`: `yyyy-MM-ddTHH:mm:ss`, each field in range, else `MGMT_ERR_EINVAL`; the simulated
    /// RTC then shows that time (it does not run).
    private mutating func setDateTime(_ body: CBORValue) -> Answer {
        guard case .text(let text)? = body["datetime"], (19..<26).contains(text.utf8.count) else {
            return .mcumgr(.invalidValue)
        }
        let ranges = [1900...11899, 1...12, 1...31, 0...23, 0...59, 0...59]
        var values: [Int] = []
        var rest = Substring(text)
        for range in ranges {
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            guard let value = Int(digits), range.contains(value) else { return .mcumgr(.invalidValue) }
            values.append(value)
            rest = rest.dropFirst(digits.count).dropFirst()
        }
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }
        dateTime =
            "\(values[0])-\(two(values[1]))-\(two(values[2]))T\(two(values[3])):\(two(values[4])):\(two(values[5]))"
        return .ok(.map([]))
    }

    /// `os_mgmt_info`: the format letters `s n r v m p i o` (and `a` for all), space-separated in that order;
    /// another letter is `OS_MGMT_ERR_INVALID_FORMAT`.
    private func info(_ body: CBORValue) -> Answer {
        var format = ""
        if case .text(let text)? = body["format"] { format = text }
        let fields: [(Character, String)] = [
            ("s", "Zephyr"), ("n", "unknown"), ("r", "v3.7.0"), ("v", "3.7.0"), ("m", "arm"), ("p", "cortex-m4"),
            ("i", "nrf52840dk/nrf52840"), ("o", "Zephyr"),
        ]
        let letters = Set(fields.map(\.0))
        guard format.allSatisfy({ letters.contains($0) || $0 == "a" }) else {
            return .group(SMPGroupRequest.Group.os, 2)
        }
        let wanted: Set<Character> = format.contains("a") ? letters : format.isEmpty ? ["s"] : Set(format)
        let output = fields.filter { wanted.contains($0.0) }.map(\.1).joined(separator: " ")
        return .ok(.map([CBORMapEntry("output", .text(output))]))
    }

    /// `os_mgmt_bootloader_info`: `{}` introduces the bootloader, `{"query": "mode"}` gives its mode; another query
    /// is `OS_MGMT_ERR_QUERY_YIELDS_NO_ANSWER`.
    private func bootloaderInfo(_ body: CBORValue) -> Answer {
        switch body["query"] {
        case nil: return .ok(.map([CBORMapEntry("bootloader", .text("MCUboot"))]))
        case .text("mode")?: return .ok(.map([CBORMapEntry("mode", .int(bootloaderMode))]))
        case .text?: return .group(SMPGroupRequest.Group.os, 3)
        case .some: return .mcumgr(.invalidValue)
        }
    }
}
