package import HexConverter

/// The execution start address an Intel HEX file declares: metadata, never part of a binary image.
public enum HexStartAddress: Sendable, Equatable, CustomStringConvertible {
    /// Record type 03: an 8086 code segment and instruction pointer.
    case segment(codeSegment: UInt16, instructionPointer: UInt16)
    /// Record type 05: a 32-bit linear address (on Cortex-M, the reset handler with its Thumb bit).
    case linear(UInt32)

    package init(_ address: StartAddress) {
        switch address {
        case .segment(let codeSegment, let instructionPointer):
            self = .segment(codeSegment: codeSegment, instructionPointer: instructionPointer)
        case .linear(let address): self = .linear(address)
        }
    }

    /// `0x0000:0x1000` for a segment address, `0x00001001` for a linear one.
    public var description: String {
        switch self {
        case .segment(let codeSegment, let instructionPointer):
            StartAddress.segment(codeSegment: codeSegment, instructionPointer: instructionPointer).description
        case .linear(let address): StartAddress.linear(address).description
        }
    }
}
