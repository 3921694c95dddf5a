import SMP

/// The statistics group (`stat_mgmt.c`, Zephyr 4.x): list and show (read).
///
/// As Zephyr's handlers: the list answer carries `"rc": 0` before `stat_list` (smpmgr 0.19.1 refuses that answer: its
/// model forbids the extra `rc`); show answers without it, and an unknown group is `STAT_MGMT_ERR_INVALID_STAT_NAME`
/// sent under the Zephyr basic group's id (`smp_add_cmd_err(zse, ZEPHYR_MGMT_GRP_BASIC, …)`), not the statistics
/// group's.
extension SimulatedManagementGroups {
    mutating func statistics(_ id: UInt8, isWrite: Bool, _ body: CBORValue) -> Answer? {
        guard !isWrite else { return nil }
        switch id {
        case 0:
            // stat_mgmt_show: a missing or empty name is MGMT_ERR_EINVAL, an unknown group MGMT_ERR_EUNKNOWN.
            guard case .text(let name)? = body["name"], !name.isEmpty, name.utf8.count < 32 else {
                return .mcumgr(.invalidValue)
            }
            guard let index = statistics.firstIndex(where: { $0.group == name }) else {
                return .group(SMPGroupRequest.Group.zephyrBasic, 3)
            }
            // The sample's `ticks` counts on its own; here it counts the reads.
            if let tick = statistics[index].fields.firstIndex(where: { $0.name == "ticks" }) {
                statistics[index].fields[tick].value += 1
            }
            let fields = statistics[index].fields.map { CBORMapEntry($0.name, .unsigned($0.value)) }
            return .ok(.map([CBORMapEntry("name", .text(name)), CBORMapEntry("fields", .map(fields))]))
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
