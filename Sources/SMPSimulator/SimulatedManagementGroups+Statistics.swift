import SMP

/// The statistics group (`stat_mgmt.c`): list and show (read). Both answers carry `"rc": 0`, as Zephyr's do.
extension SimulatedManagementGroups {
    mutating func statistics(_ id: UInt8, isWrite: Bool, _ body: CBORValue) -> Answer? {
        guard !isWrite else { return nil }
        switch id {
        case 0:
            // stat_mgmt_show: a missing or empty name is MGMT_ERR_EINVAL, an unknown group MGMT_ERR_EUNKNOWN.
            guard case .text(let name)? = body["name"], !name.isEmpty, name.utf8.count < 32 else {
                return .mcumgr(.invalidValue)
            }
            guard let index = statistics.firstIndex(where: { $0.group == name }) else { return .mcumgr(.unknown) }
            // The sample's `ticks` counts on its own; here it counts the reads.
            if let tick = statistics[index].fields.firstIndex(where: { $0.name == "ticks" }) {
                statistics[index].fields[tick].value += 1
            }
            let fields = statistics[index].fields.map { CBORMapEntry($0.name, .unsigned($0.value)) }
            return .ok(
                .map([
                    CBORMapEntry("rc", .int(0)), CBORMapEntry("name", .text(name)),
                    CBORMapEntry("fields", .map(fields)),
                ]))
        case 1:
            return .ok(
                .map([
                    CBORMapEntry("rc", .int(0)),
                    CBORMapEntry("stat_list", .array(statistics.map { .text($0.group) })),
                ]))
        default: return nil
        }
    }
}
