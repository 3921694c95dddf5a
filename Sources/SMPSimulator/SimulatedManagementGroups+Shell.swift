import SMP

/// The shell group (`shell_mgmt.c`): `{"argv": [...]}` runs on a dummy shell backend and answers `{"o": output,
/// "ret": status}`. The simulated shell knows `echo ARGS…` and `kernel version`; another command prints
/// `CMD: command not found` and returns −ENOEXEC (−8), as Zephyr's shell does.
extension SimulatedManagementGroups {
    /// `CONFIG_SHELL_CMD_BUFF_SIZE`, Zephyr's default.
    static let shellLineLength = 256

    func shell(_ body: CBORValue) -> Answer {
        let group = SMPGroupRequest.Group.shell
        guard case .array(let values)? = body["argv"] else { return .mcumgr(.invalidValue) }
        var arguments: [String] = []
        for value in values {
            guard case .text(let text) = value else { break }
            arguments.append(text)
        }
        let line = arguments.joined(separator: " ")
        guard line.utf8.count + 1 < Self.shellLineLength else { return .group(group, 2) }
        guard let command = arguments.first else { return .group(group, 3) }
        let output: String
        let status: Int
        switch command {
        case "echo":
            output = arguments.dropFirst().joined(separator: " ") + "\r\n"
            status = 0
        case "kernel" where arguments.dropFirst() == ["version"]:
            output = "Zephyr version 3.7.0\r\n"
            status = 0
        default:
            output = "\(command): command not found\r\n"
            status = -8
        }
        return .ok(.map([CBORMapEntry("o", .text(output)), CBORMapEntry("ret", .int(status))]))
    }
}
