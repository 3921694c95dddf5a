// libFuzzer harness for the Intel HEX parser. Not a package target: scripts/fuzz-hex.sh compiles it together with
// Sources/HexConverter/*.swift into one module, with -sanitize=fuzzer,address.

/// Parses the input in two chunks split where the first byte says, and checks the invariants a strict parser must
/// keep: no crash or sanitizer report on any input; a parsed image re-encodes as Intel HEX that parses back to the
/// same binary; the binary is exactly `binarySize()` long and starts at `lowestAddress`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIntelHex(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    let split = input.isEmpty ? 0 : min(Int(input[0]), input.count)
    // A 1 MiB span limit keeps each run fast: two records far apart would otherwise allocate up to 64 MiB.
    var parser = IntelHexParser(source: "fuzz", sizeLimit: 1 << 20)
    let image: HexImage
    do {
        try parser.consume(Array(input[..<split]))
        try parser.consume(Array(input[split...]))
        image = try parser.finish()
    } catch {
        _ = error.description
        return 0
    }
    guard let base = image.lowestAddress else { return 0 }
    let binary = image.binary()
    precondition(binary.count == image.binarySize(), "binary length differs from binarySize()")
    precondition(!image.regions.isEmpty && image.regions[0].start == base, "regions do not start at lowestAddress")
    do {
        let text = try IntelHexWriter.encode(binary, baseAddress: base)
        let again = try IntelHexParser.parse(text, source: "re-encoded")
        precondition(again.binary() == binary, "re-encoded image differs")
        precondition(again.lowestAddress == base, "re-encoded image moved")
    } catch {
        preconditionFailure("re-encoded image does not parse: \(error)")
    }
    return 0
}
