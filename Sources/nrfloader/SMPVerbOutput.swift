import NRFLoaderKit

/// The results of the mcumgr-style verbs: a line or a table on stdout, or with `--json` one object.
///
/// Every object carries `schema`, `command`, `target` and `attempts` (how many times the request was sent: more than
/// 1 after lost answers). Text that comes from the device (versions, the echo) is escaped before it reaches a
/// terminal.
enum SMPVerbOutput {
    /// `image list`, and `image test|confirm` with the state read after the change.
    static func imageState(_ reply: ManagementReply<ImageState>, command: String, device: SMPTargetOptions) {
        let slots = reply.value.slots
        if device.output.json {
            Console.json(object(command, device, reply.attempts, ["images": .array(slots.map(json))]))
            return
        }
        let header = ["IMAGE", "SLOT", "VERSION", "FLAGS", "HASH"]
        let rows = slots.map { slot in
            [String(slot.image), String(slot.slot), slot.version, flags(slot), hexDigits(slot.hash)]
        }
        // `table` escapes every cell (the version is the device's text).
        Console.result(table([header] + rows))
    }

    /// `image erase`.
    static func erased(slot: Int?, device: SMPTargetOptions, attempts: Int) {
        if device.output.json {
            Console.json(object("image erase", device, attempts, ["slot": .optional(slot) { .int($0) }]))
        } else {
            Console.result(slot.map { "slot \($0) erased" } ?? "slot erased (the device's default, slot 1)")
        }
    }

    /// `reset`.
    static func reset(_ reply: ManagementReply<ResetOutcome>, device: SMPTargetOptions) {
        let answered = reply.value == .answered
        if device.output.json {
            Console.json(object("reset", device, reply.attempts, ["answered": .bool(answered)]))
        } else {
            Console.result(answered ? "device reset" : "device reset (the link dropped before its answer arrived)")
        }
    }

    /// `echo`: what the device echoed.
    static func echoed(_ reply: ManagementReply<String>, device: SMPTargetOptions) {
        if device.output.json {
            Console.json(object("echo", device, reply.attempts, ["echo": .string(reply.value)]))
        } else {
            Console.result(reply.value.escapedForTerminal)
        }
    }

    /// The flags a slot has, in mcumgr's order, with `bootable` last; `-` for none.
    static func flags(_ slot: ImageSlot) -> String {
        let names = [
            (slot.isActive, "active"), (slot.isConfirmed, "confirmed"), (slot.isPending, "pending"),
            (slot.isPermanent, "permanent"), (slot.isBootable, "bootable"),
        ].filter(\.0).map(\.1)
        return names.isEmpty ? "-" : names.joined(separator: " ")
    }

    /// The hash as mcumgr shows it: two lowercase hex digits per byte.
    private static func hexDigits(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] })
    }

    private static func json(_ slot: ImageSlot) -> JSONValue {
        .object([
            "image": .int(slot.image), "slot": .int(slot.slot), "version": .string(slot.version),
            "hash": .string(hexDigits(slot.hash)), "active": .bool(slot.isActive),
            "confirmed": .bool(slot.isConfirmed), "pending": .bool(slot.isPending),
            "permanent": .bool(slot.isPermanent), "bootable": .bool(slot.isBootable),
        ])
    }

    private static func object(
        _ command: String, _ device: SMPTargetOptions, _ attempts: Int, _ members: [String: JSONValue]
    ) -> JSONValue {
        .object(
            members.merging([
                "schema": .int(JSONValue.schemaVersion), "command": .string(command), "target": .string(device.label),
                "attempts": .int(attempts),
            ]) { own, _ in own })
    }
}
