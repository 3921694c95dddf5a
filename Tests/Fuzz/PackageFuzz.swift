// libFuzzer harness for the zip reader and the whole package reader (manifest, init packets, cross-checks). Not a
// package target: scripts/fuzz.sh compiles it together with Sources/Checksums and Sources/DFUPackage into one
// module, with -sanitize=fuzzer,address.

/// Reads the input as a `.zip` package and checks what a strict reader must keep: no crash, trap or sanitizer report
/// on any input; every error has a description; an archive that opens lists only entries it can return; a package that
/// reads has at least one part, and each part's sizes add up to its image (the split legacy DFU sends).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPackage(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    // Small limits keep each run fast; the checks are the same as with the defaults.
    let limits = ZipArchive.Limits(maximumEntrySize: 1 << 20, maximumTotalSize: 4 << 20)
    do {
        let archive = try ZipArchive(bytes: input, name: "fuzz.zip", limits: limits)
        for name in archive.entryNames { precondition(archive.contents(of: name) != nil, "listed entry missing") }
        let package = try DFUPackage(archive: archive)
        precondition(!package.parts.isEmpty, "a package without parts")
        for part in package.parts {
            let sizes = part.sizes
            precondition(sizes.softdevice >= 0 && sizes.bootloader >= 0 && sizes.application >= 0, "negative size")
            if part.imageType == .softdeviceBootloader, case .legacy = package.format {
                precondition(sizes.softdevice + sizes.bootloader == part.firmware.count, "SD+BL sizes do not add up")
            }
        }
    } catch {
        _ = error.description
    }
    return 0
}
