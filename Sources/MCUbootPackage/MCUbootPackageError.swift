package import DFUPackage
package import MCUbootImage

/// Why a `dfu_application.zip` cannot be used; every message names the archive and the place in it.
package enum MCUbootPackageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The zip container itself is broken (the DFU package reader's error, which names the archive).
    case zip(DFUPackageError)
    /// The archive has no `manifest.json`.
    case missingManifest(archive: String)
    /// The archive is an nrfutil DFU package (its `manifest.json` holds `manifest`), for nRF5 DFU, not SMP.
    case nrfutilPackage(archive: String)
    /// `manifest.json` is not a JSON object, or a field has an impossible value.
    case badManifest(archive: String, field: String, problem: String)
    /// The manifest lists a file the archive does not hold.
    case missingFile(archive: String, field: String, file: String)
    /// Two files are meant for the same image number.
    case duplicateImage(archive: String, image: Int, files: [String])
    /// A listed file is not a usable MCUboot image, or its hash or signature check failed (the file is named as
    /// `archive/entry`).
    case image(MCUbootImageError)

    package var description: String {
        switch self {
        case .zip(let error): "\(error)"
        case .missingManifest(let archive):
            "\(archive): no manifest.json; not an nRF Connect SDK dfu_application.zip"
        case .nrfutilPackage(let archive):
            "\(archive): an nrfutil DFU package (manifest.json holds 'manifest'), not an nRF Connect SDK "
                + "dfu_application.zip: an SMP device takes signed MCUboot images"
        case .badManifest(let archive, let field, let problem): "\(archive): manifest.json \(field) \(problem)"
        case .missingFile(let archive, let field, let file):
            "\(archive): manifest.json \(field) names '\(file)', which the archive does not hold"
        case .duplicateImage(let archive, let image, let files):
            "\(archive): manifest.json lists image \(image) twice ("
                + files.map { "'\($0)'" }.joined(separator: ", ")
                + "); a Direct-XIP package (one file per slot) is not supported"
        case .image(let error): "\(error)"
        }
    }
}
