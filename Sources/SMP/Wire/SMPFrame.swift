/// One SMP message: the header and its CBOR body (a map).
package struct SMPFrame: Sendable, Equatable {
    /// The header; its `length` matches the encoded body.
    package var header: SMPHeader
    /// The body.
    package var body: CBORValue

    /// Creates a frame.
    ///
    /// - Parameters:
    ///   - header: The header (its `length` is recomputed when encoding).
    ///   - body: The body, a map.
    package init(header: SMPHeader, body: CBORValue) {
        self.header = header
        self.body = body
    }

    /// The frame's bytes, the body encoded with `style` (definite for a client's requests; Zephyr answers with
    /// indefinite-length maps).
    ///
    /// - Parameter style: How the body's maps and arrays are delimited.
    /// - Returns: Header and body.
    package func encoded(style: CBOREncoder.ContainerStyle = .definite) -> [UInt8] {
        let body = CBOREncoder(containerStyle: style).encode(body)
        precondition(body.count <= Int(UInt16.max), "SMP body of \(body.count) bytes exceeds the 16-bit length")
        var header = header
        header.length = UInt16(body.count)
        return header.encoded + body
    }

    /// Decodes exactly one frame.
    ///
    /// - Parameter bytes: Header and body, nothing more.
    /// - Throws: ``SMPFrameError``.
    package init(decoding bytes: [UInt8]) throws(SMPFrameError) {
        let header = try SMPHeader(decoding: bytes)
        let actual = bytes.count - SMPHeader.size
        guard Int(header.length) == actual else { throw .lengthMismatch(declared: Int(header.length), actual: actual) }
        let body: CBORValue
        do {
            body = try CBORDecoder().decode(bytes[SMPHeader.size...])
        } catch {
            throw .malformedBody(error)
        }
        guard case .map = body else { throw .bodyNotAMap(found: body.kindDescription) }
        self.init(header: header, body: body)
    }

    /// The total length of the frame that starts with `header` bytes, or `nil` when fewer than 8 bytes are given:
    /// what a BLE or serial receiver needs to reassemble a frame spread over several packets (`smp_reassembly.c`).
    ///
    /// - Parameter prefix: The first bytes received.
    /// - Returns: Header plus body length.
    package static func totalLength(ofFrameStartingWith prefix: some Collection<UInt8>) -> Int? {
        let header = Array(prefix.prefix(SMPHeader.size))
        guard header.count == SMPHeader.size else { return nil }
        return SMPHeader.size + (Int(header[2]) << 8 | Int(header[3]))
    }
}
