import Checksums
import HexConverter

/// Intel HEX to binary image and back, as `nrfloader convert` does: streamed, so that memory stays near the size of
/// the image, with the SHA-256 of the binary image computed on the way.
public enum ImageConversion {
    /// Converts an Intel HEX file to a binary image that runs from the lowest to the highest address with data.
    ///
    /// The input is opened before `output` is called, so that a missing input is reported before any output is
    /// created; the whole input is read and checked before the first byte is written.
    ///
    /// - Parameters:
    ///   - path: The HEX file's path, or `-` for standard input.
    ///   - options: The address window, the fill byte, and Nordic's rules.
    ///   - output: Makes the output, once the input is open.
    /// - Returns: The image's base address, size, SHA-256 and the regions kept.
    /// - Throws: ``UpdateError``: the input missing or unreadable, bad HEX records, no data in the window, or
    ///   what `output` throws.
    public static func binary(
        fromHexFile path: String, options: BinaryImageOptions = BinaryImageOptions(),
        output: () throws -> any ConversionOutput
    ) throws(UpdateError) -> ConversionSummary {
        try UpdateError.wrapping {
            let source = try InputFile(path: path)
            let destination = try output()
            var window = AddressWindow(start: options.start, end: options.end)
            if options.followsNordicTools {
                guard let narrowed = window.intersection(.nordic) else {
                    throw HexConverterError.noData(source: source.displayName, range: window)
                }
                window = narrowed
            }
            var parser = IntelHexParser(source: source.displayName, window: window)
            try source.forEachChunk { try parser.consume($0) }
            let image = try parser.finish()
            guard let base = image.lowestAddress else {
                throw HexConverterError.noData(source: source.displayName, range: window)
            }
            var digest = SHA256()
            var size = 0
            try image.forEachChunk(fill: options.fill, alignment: options.followsNordicTools ? 4 : 1) { chunk in
                digest.update(chunk)
                size += chunk.count
                try destination.write(chunk)
            }
            return ConversionSummary(
                input: source.displayName, output: destination.displayName, format: .bin, baseAddress: base,
                size: size, regions: image.regions.map(MemoryRegion.init),
                startAddress: image.startAddress.map(
                    HexStartAddress.init), sha256: digest.finalize())
        }
    }

    /// Converts a binary image to Intel HEX, its first byte at `baseAddress`.
    ///
    /// - Parameters:
    ///   - path: The binary file's path, or `-` for standard input.
    ///   - baseAddress: The address of the image's first byte.
    ///   - output: Makes the output, once the input is open.
    /// - Returns: The image's base address, size and SHA-256, and its one region.
    /// - Throws: ``UpdateError``: the input missing, unreadable or empty, an image past the 32-bit address space,
    ///   or what `output` throws.
    public static func intelHex(
        fromBinaryFile path: String, baseAddress: UInt32, output: () throws -> any ConversionOutput
    ) throws(UpdateError) -> ConversionSummary {
        try UpdateError.wrapping {
            let source = try InputFile(path: path)
            let destination = try output()
            var writer = IntelHexWriter(baseAddress: baseAddress)
            var digest = SHA256()
            var size = 0
            try source.forEachChunk { chunk in
                digest.update(chunk)
                size += chunk.count
                try writer.append(chunk).withUnsafeBufferPointer { try destination.write($0) }
            }
            guard size > 0 else { throw FileFailure.emptyBinary(path: source.displayName) }
            try writer.finish().withUnsafeBufferPointer { try destination.write($0) }
            return ConversionSummary(
                input: source.displayName, output: destination.displayName, format: .hex, baseAddress: baseAddress,
                size: size, regions: [MemoryRegion(start: baseAddress, end: baseAddress + UInt32(size - 1))],
                startAddress: nil, sha256: digest.finalize())
        }
    }
}
