// libFuzzer harness for the catalog parser (JSON and schema). Not a package target: scripts/fuzz.sh compiles it with
// the catalog's decoding sources (not the embedded files) into one module.

/// Decodes the input as a user catalog and checks: no crash, stack overflow or sanitizer report; every error has a
/// description; every decoded entry satisfies the schema's promises (valid id, positive size within Int32, an image that
/// ends inside the 4 GiB address space, at least one board and one DFU block).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCatalog(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    do {
        for decoded in try CatalogDecoder(source: "fuzz.json").decode(input) {
            let entry = decoded.entry
            precondition(CatalogDecoder.isValidID(entry.id), "invalid id accepted")
            precondition(entry.size >= 1 && entry.size <= Int(Int32.max), "size out of range accepted")
            precondition(Int(entry.loadAddress) + entry.size <= 1 << 32, "image past 4 GiB accepted")
            precondition(!entry.boards.isEmpty, "entry without boards")
            precondition(entry.legacyDFU != nil || entry.secureDFU != nil, "entry without DFU fields")
        }
    } catch {
        _ = error.description
    }
    return 0
}
