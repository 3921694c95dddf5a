import SMP

/// The settings group (`settings_mgmt.c`): read and write the running values (`settings_runtime_get/set`), delete
/// from storage, commit, load and save. Names of 32 bytes or more are `SETTINGS_MGMT_ERR_KEY_TOO_LONG`
/// (`CONFIG_MCUMGR_GRP_SETTINGS_NAME_LEN`), a read gives at most 32 bytes (`_VALUE_LEN`), a root without a
/// handler is `SETTINGS_MGMT_ERR_ROOT_KEY_NOT_FOUND`.
extension SimulatedManagementGroups {
    /// `CONFIG_MCUMGR_GRP_SETTINGS_NAME_LEN` and `_VALUE_LEN`.
    static let settingsNameLength = 32
    static let settingsValueLength = 32

    mutating func settings(_ id: UInt8, isWrite: Bool, _ body: CBORValue) -> Answer? {
        let group = SMPGroupRequest.Group.settings
        switch (id, isWrite) {
        case (0, false):
            guard case .text(let name)? = body["name"], !name.isEmpty else { return .mcumgr(.invalidValue) }
            guard name.utf8.count < Self.settingsNameLength else { return .group(group, 2) }
            var maximum = Self.settingsValueLength
            var limited = false
            if let asked = body["max_size"]?.intValue {
                if asked > Self.settingsValueLength { limited = true } else { maximum = max(0, asked) }
            }
            guard settingsRoots.contains(Self.root(name)) else { return .group(group, 5) }
            guard let value = settings[name] else { return .group(group, 3) }
            var entries = [CBORMapEntry("val", .bytes(Array(value.prefix(maximum))))]
            if limited { entries.append(CBORMapEntry("max_size", .int(Self.settingsValueLength))) }
            return .ok(.map(entries))
        case (0, true):
            guard case .text(let name)? = body["name"], !name.isEmpty, case .bytes(let value)? = body["val"] else {
                return .mcumgr(.invalidValue)
            }
            guard name.utf8.count < Self.settingsNameLength else { return .group(group, 2) }
            guard settingsRoots.contains(Self.root(name)) else { return .group(group, 5) }
            settings[name] = value
            return .ok(.map([]))
        case (1, true):
            guard case .text(let name)? = body["name"], !name.isEmpty else { return .mcumgr(.invalidValue) }
            guard name.utf8.count < Self.settingsNameLength else { return .group(group, 2) }
            // settings_delete removes the saved value (a missing one is no error); the running value stays.
            storedSettings[name] = nil
            return .ok(.map([]))
        case (2, true):
            return .ok(.map([]))
        case (3, false):
            for (name, value) in storedSettings { settings[name] = value }
            return .ok(.map([]))
        case (3, true):
            storedSettings = settings
            return .ok(.map([]))
        default:
            return nil
        }
    }

    private static func root(_ name: String) -> String {
        String(name.prefix { $0 != "/" })
    }
}
