internal import SystemZlib

/// Inflates raw deflate data (RFC 1951, no zlib or gzip wrapper) as zip method 8 stores it, with a hard output cap.
enum RawInflater {
    /// What became of one inflation.
    enum Outcome: Equatable {
        /// The stream ended exactly at the end of the input; the output is complete.
        case inflated([UInt8])
        /// More than `limit` bytes came out; inflation stopped there.
        case exceededLimit
        /// zlib rejected the data, the stream ended before the input did, or the input ended before the stream.
        case corrupt
    }

    /// Inflates `input`, producing at most `limit` bytes.
    ///
    /// The output buffer holds `limit + 1` bytes, so a stream that would produce more is detected after at most one
    /// extra byte and never allocates beyond that: the defence against zip bombs.
    ///
    /// - Parameters:
    ///   - input: The compressed bytes.
    ///   - limit: The declared uncompressed size.
    /// - Returns: The inflated bytes or why there are none.
    static func inflate(_ input: ArraySlice<UInt8>, limit: Int) -> Outcome {
        var stream = z_stream()
        let status = inflateInit2_(&stream, -MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else { return .corrupt }
        defer { inflateEnd(&stream) }

        var output = [UInt8](repeating: 0, count: limit + 1)
        let input = Array(input)
        let result: Int32 = input.withUnsafeBufferPointer { inputBuffer in
            output.withUnsafeMutableBufferPointer { outputBuffer in
                // zlib never writes through next_in; the C declaration lacks const (z_const is off by default).
                stream.next_in = UnsafeMutablePointer(mutating: inputBuffer.baseAddress)
                stream.avail_in = UInt32(inputBuffer.count)
                stream.next_out = outputBuffer.baseAddress
                stream.avail_out = UInt32(outputBuffer.count)
                return SystemZlib.inflate(&stream, Z_FINISH)
            }
        }
        let produced = Int(stream.total_out)
        if produced > limit { return .exceededLimit }
        guard result == Z_STREAM_END, stream.avail_in == 0 else { return .corrupt }
        output.removeLast(output.count - produced)
        return .inflated(output)
    }
}
