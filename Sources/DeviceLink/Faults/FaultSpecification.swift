/// Faults written as text, for command lines: `nrfloader upload --target sim --sim-fault disconnect@6000`.
///
/// | text | fault |
/// | --- | --- |
/// | `drop-packet@N`, `duplicate-packet@N`, `corrupt-packet@N` | the Nth data packet (1-based); `@N+` from the Nth on; `~P` each with probability P |
/// | `drop-notification@N`, `duplicate-notification@N`, `corrupt-notification@N` | the same for notifications |
/// | `disconnect@BYTES`, `reboot@BYTES` | after that many packet bytes |
/// | `stall@WRITES` | stop answering after that many control point writes |
/// | `respond@OPCODE:RESULT[:EXTENDED]` | answer the first request with that opcode with that result (hex bytes) |
/// | `misaligned` | drop misaligned writes silently (SDK 15+) |
/// | `mtu@N` | grant at most ATT MTU N |
package enum FaultSpecification {
    /// Why a fault text was not understood.
    package struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        package var text: String
        package var reason: String
        package var description: String { "fault '\(text)': \(reason)" }
    }

    /// Parses one fault.
    ///
    /// - Parameter text: The fault, as in the table above.
    /// - Returns: The fault.
    /// - Throws: ``ParseError``.
    package static func parse(_ text: String) throws(ParseError) -> Fault {
        func fail(_ reason: String) -> ParseError { ParseError(text: text, reason: reason) }
        if text == "misaligned" { return .rejectMisalignedWrites }
        let separator = text.firstIndex { $0 == "@" || $0 == "~" }
        guard let separator else { throw fail("expected NAME@VALUE (or NAME~PROBABILITY)") }
        let name = String(text[..<separator])
        let value = String(text[text.index(after: separator)...])
        let isProbability = text[separator] == "~"
        func trigger() throws(ParseError) -> FaultTrigger {
            if isProbability {
                guard let probability = Double(value), (0...1).contains(probability) else {
                    throw fail("probability must be a number from 0 to 1")
                }
                return .random(probability: probability)
            }
            let fromOn = value.hasSuffix("+")
            guard let count = Int(fromOn ? String(value.dropLast()) : value), count >= 1 else {
                throw fail("occurrence must be a whole number from 1")
            }
            return fromOn ? .fromOccurrence(count) : .occurrence(count)
        }
        func number() throws(ParseError) -> Int {
            guard !isProbability, let count = Int(value), count >= 0 else { throw fail("expected a whole number") }
            return count
        }
        switch name {
        case "drop-packet": return .dropPacket(try trigger())
        case "duplicate-packet": return .duplicatePacket(try trigger())
        case "corrupt-packet": return .corruptPacket(try trigger())
        case "drop-notification": return .dropNotification(try trigger())
        case "duplicate-notification": return .duplicateNotification(try trigger())
        case "corrupt-notification": return .corruptNotification(try trigger())
        case "disconnect": return .disconnect(afterPacketBytes: try number())
        case "reboot": return .reboot(afterPacketBytes: try number())
        case "stall": return .stall(afterControlPointWrites: try number())
        case "mtu":
            let mtu = try number()
            guard (23...517).contains(mtu) else { throw fail("MTU must be 23 to 517") }
            return .capMTU(mtu)
        case "respond":
            let fields = value.split(separator: ":").map { UInt8($0, radix: 16) }
            guard !isProbability, (2...3).contains(fields.count), fields.allSatisfy({ $0 != nil }) else {
                throw fail("expected respond@OPCODE:RESULT[:EXTENDED] in hex, e.g. respond@04:0B:05")
            }
            let bytes = fields.compactMap { $0 }
            return .respond(
                opcode: bytes[0], result: bytes[1], extendedError: bytes.count == 3 ? bytes[2] : nil,
                trigger: .occurrence(1))
        default:
            throw fail("unknown fault '\(name)'")
        }
    }
}
