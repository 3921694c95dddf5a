/// Why bytes are not an SMP frame, or not the answer that was expected.
package enum SMPFrameError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Fewer than the 8 header bytes.
    case tooShort(received: [UInt8])
    /// An `op` value above 3.
    case unknownOperation(UInt8, header: [UInt8])
    /// A version field of 2 or 3.
    case unknownVersion(UInt8, header: [UInt8])
    /// The header's `len` and the bytes after the header differ.
    case lengthMismatch(declared: Int, actual: Int)
    /// The body is not well-formed CBOR.
    case malformedBody(CBORDecodingError)
    /// The body is CBOR but not a map.
    case bodyNotAMap(found: String)
    /// A field the answer needs is missing or of the wrong type.
    case badField(name: String, problem: String)

    package var description: String {
        switch self {
        case .tooShort(let received): "frame of \(received.count) bytes is shorter than the 8-byte SMP header"
        case .unknownOperation(let op, let header): "unknown SMP op \(op) in header '\(hexString(header))'"
        case .unknownVersion(let version, let header): "unknown SMP version \(version) in header '\(hexString(header))'"
        case .lengthMismatch(let declared, let actual):
            "SMP header declares a \(declared)-byte body but \(actual) bytes follow"
        case .malformedBody(let error): "SMP body: \(error)"
        case .bodyNotAMap(let found): "SMP body is \(found), not a map"
        case .badField(let name, let problem): "SMP field '\(name)' \(problem)"
        }
    }
}

/// Bytes as space-separated uppercase hex.
func hexString(_ bytes: some Sequence<UInt8>) -> String {
    bytes.map(hex2).joined(separator: " ")
}
