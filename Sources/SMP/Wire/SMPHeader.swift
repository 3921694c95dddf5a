/// The 8-byte SMP header, all fields big-endian (Zephyr `include/zephyr/mgmt/mcumgr/smp/smp.h`, `struct smp_hdr`).
///
/// | byte | field |
/// | --- | --- |
/// | 0 | bits 0–2 `op`, bits 3–4 `version` (0: v1, 1: v2), bits 5–7 reserved |
/// | 1 | `flags` |
/// | 2–3 | `len`: the CBOR body's length in bytes |
/// | 4–5 | `group` |
/// | 6 | `seq` |
/// | 7 | `id`: the command within the group |
package struct SMPHeader: Sendable, Equatable {
    /// The header's size in bytes (`MGMT_HDR_SIZE`).
    package static let size = 8

    /// Read, write, or the answer to one.
    package var operation: SMPOperation
    /// The protocol version.
    package var version: SMPVersion
    /// Flags; no flag is defined for the image and OS groups, so a client sends 0.
    package var flags: UInt8
    /// The body's length in bytes.
    package var length: UInt16
    /// The management group.
    package var group: UInt16
    /// The sequence number a response echoes.
    package var sequence: UInt8
    /// The command within the group.
    package var command: UInt8

    /// Creates a header.
    ///
    /// - Parameters:
    ///   - operation: The operation.
    ///   - version: The protocol version.
    ///   - flags: The flags byte.
    ///   - length: The body length.
    ///   - group: The group.
    ///   - sequence: The sequence number.
    ///   - command: The command id.
    package init(
        operation: SMPOperation, version: SMPVersion, flags: UInt8 = 0, length: UInt16, group: UInt16,
        sequence: UInt8, command: UInt8
    ) {
        self.operation = operation
        self.version = version
        self.flags = flags
        self.length = length
        self.group = group
        self.sequence = sequence
        self.command = command
    }

    /// The header's 8 bytes.
    package var encoded: [UInt8] {
        [
            operation.rawValue | version.rawValue << 3, flags, UInt8(length >> 8), UInt8(length & 0xFF),
            UInt8(group >> 8), UInt8(group & 0xFF), sequence, command,
        ]
    }

    /// Decodes the first 8 bytes of `bytes`.
    ///
    /// - Parameter bytes: At least 8 bytes.
    /// - Throws: ``SMPFrameError`` when there are fewer than 8 bytes, or the operation or version is unknown.
    package init(decoding bytes: some Collection<UInt8>) throws(SMPFrameError) {
        let header = Array(bytes.prefix(Self.size))
        guard header.count == Self.size else { throw .tooShort(received: header) }
        guard let operation = SMPOperation(rawValue: header[0] & 0x07) else {
            throw .unknownOperation(header[0] & 0x07, header: header)
        }
        guard let version = SMPVersion(rawValue: (header[0] >> 3) & 0x03) else {
            throw .unknownVersion((header[0] >> 3) & 0x03, header: header)
        }
        self.init(
            operation: operation, version: version, flags: header[1],
            length: UInt16(header[2]) << 8 | UInt16(header[3]),
            group: UInt16(header[4]) << 8 | UInt16(header[5]), sequence: header[6], command: header[7])
    }
}

/// The `op` field (`enum mcumgr_op_t`, `mgmt_defines.h`).
package enum SMPOperation: UInt8, Sendable, Equatable, CaseIterable, CustomStringConvertible {
    /// `MGMT_OP_READ`.
    case read = 0
    /// `MGMT_OP_READ_RSP`.
    case readResponse = 1
    /// `MGMT_OP_WRITE`.
    case write = 2
    /// `MGMT_OP_WRITE_RSP`.
    case writeResponse = 3

    /// The response operation that answers this request operation (itself for a response).
    package var response: SMPOperation {
        switch self {
        case .read, .readResponse: .readResponse
        case .write, .writeResponse: .writeResponse
        }
    }

    /// Whether this is a response operation.
    package var isResponse: Bool { self == .readResponse || self == .writeResponse }

    package var description: String {
        switch self {
        case .read: "read"
        case .readResponse: "read response"
        case .write: "write"
        case .writeResponse: "write response"
        }
    }
}

/// The header's version field (`smp.c`: 0 is the original protocol, 1 is SMP version 2 with group errors).
package enum SMPVersion: UInt8, Sendable, Equatable, CaseIterable, CustomStringConvertible {
    /// The original protocol: errors are a bare `rc`.
    case v1 = 0
    /// Version 2: group errors come as `err {group, rc}`.
    case v2 = 1

    package var description: String { self == .v1 ? "v1" : "v2" }
}
