package import DFUPackage
package import HexConverter

/// Why a package, key or settings page could not be made.
///
/// Each case names the option or file at fault.
package enum PackageBuilderError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An option combination or value nrfutil refuses (a usage error: exit 64), naming the options.
    case options(PackageOptionProblem)
    /// Another input nrfutil refuses as a usage error (exit 64); the text is the reason.
    case usage(String)
    /// An input file that is not valid Intel HEX.
    case badHex(HexConverterError)
    /// An input file with no data left after nrfutil's conversion (nothing between the MBR and the UICR).
    case emptyImage(path: String)
    /// Two inputs that nrfutil would store under one entry name, silently packaging the first twice.
    case duplicateEntryName(String)
    /// An image or the whole package past what the classic zip format or the init packet fields hold.
    case packageTooLarge
    /// The init packet generator refused the image.
    case initPacket(DFUPackageError)

    /// True for option mistakes (exit 64); false for bad input data (exit 65).
    package var isUsage: Bool {
        switch self {
        case .options, .usage, .duplicateEntryName: true
        case .badHex, .emptyImage, .packageTooLarge, .initPacket: false
        }
    }

    package var description: String {
        switch self {
        case .options(let problem): problem.description
        case .usage(let reason): reason
        case .badHex(let error): error.description
        case .emptyImage(let path): "\(path): no firmware data (after dropping the MBR and UICR)"
        case .duplicateEntryName(let name): "two images would both be stored as \(name) in the package"
        case .packageTooLarge: "the package is too large for a zip file (4 GiB or 65535 entries)"
        case .initPacket(let error): error.description
        }
    }
}
