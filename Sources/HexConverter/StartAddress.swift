/// The execution start address an Intel HEX file declares: metadata, never part of the binary.
package enum StartAddress: Sendable, Equatable, CustomStringConvertible {
    /// Record type 03: an 8086 code segment and instruction pointer.
    case segment(codeSegment: UInt16, instructionPointer: UInt16)
    /// Record type 05: a 32-bit linear address (on Cortex-M, the reset handler with its Thumb bit).
    case linear(UInt32)

    package var description: String {
        switch self {
        case .segment(let codeSegment, let instructionPointer):
            return "\(hex(codeSegment, width: 4)):\(hex(instructionPointer, width: 4))"
        case .linear(let address):
            return hex(address, width: 8)
        }
    }
}
