import Catalog
import DFUController
import DFUPackage
import DFUSigning
import HexConverter
import MCUbootImage
import MCUbootPackage
import PackageBuilder
import SMP

/// Why an update, or the loading of its firmware, failed: the message `nrfloader` prints after `Error:`, and the
/// exit status it exits with.
///
/// Every throwing call of this library throws this one type. The message names who failed (the input file, the
/// catalog, the device, BlueZ, the serial port) and what to do; ``exitStatus`` tells a program whether a retry can
/// help (``ExitStatus/temporaryFailure``) or the input must change (``ExitStatus/dataError``).
public struct UpdateError: Error, Sendable, CustomStringConvertible {
    /// The one-line message, such as `'app.zip': no such file` or
    /// `device rejected Create (data object): Insufficient resources`.
    public let message: String
    /// The exit status the error maps to.
    public let exitStatus: ExitStatus
    /// Whether a connection to the device succeeded at some point before the failure.
    public let deviceWasReached: Bool
    /// The engine's own error, for this package's command line.
    package let underlying: any Error & Sendable
    /// The option value or combination that package or settings generation refused, typed; `nil` for any other
    /// error.
    public let packagingProblem: PackagingProblem?
    /// The message cut into its own text and its mentions of settings, for ``message(naming:)``.
    let pieces: [Piece]

    /// The settings the message names, in order (see ``message(naming:)``).
    public var mentions: [Mention] {
        pieces.compactMap { piece in
            guard case .mention(let mention) = piece else { return nil }
            return mention
        }
    }

    /// The message.
    public var description: String { message }

    /// Whether the update was cancelled (its task was cancelled), after the device was told to abort.
    public var isCancellation: Bool { exitStatus == .interrupted }

    package init(_ error: any Error & Sendable, status: ExitStatus? = nil, deviceWasReached: Bool = false) {
        self.init(error, status: status, deviceWasReached: deviceWasReached, mentioning: [])
    }

    /// An engine error whose message names settings: `mentions`, searched for in order in the message, and those the
    /// engine error's type says it may hold.
    ///
    /// - Parameters:
    ///   - error: The error.
    ///   - status: The exit status; `nil` for the one the error's type maps to.
    ///   - deviceWasReached: Whether any connection succeeded.
    ///   - mentions: The settings the message names, in their order.
    package init(
        _ error: any Error & Sendable, status: ExitStatus? = nil, deviceWasReached: Bool = false,
        mentioning mentions: [Mention]
    ) {
        if let error = error as? UpdateError {
            self = error.mentioning(mentions)
            return
        }
        underlying = error
        message = "\(error)"
        if case PackageBuilderError.options(let problem) = error {
            packagingProblem = PackagingProblem(problem)
        } else {
            packagingProblem = nil
        }
        pieces = Self.pieces(of: message, mentioning: mentions + Mention.candidates(of: error))
        exitStatus = status ?? ExitStatus.of(error) ?? .software
        if let failure = error as? UpdateFailure {
            self.deviceWasReached = failure.deviceWasReached
        } else {
            self.deviceWasReached = deviceWasReached
        }
    }

    /// A failure met outside the library, reported through it: a ``ConversionOutput`` that cannot write, say.
    ///
    /// The library passes such an error on unchanged, so that its message and exit status reach the caller as they
    /// were thrown.
    ///
    /// - Parameters:
    ///   - message: The one-line message, such as `'out.bin': write failed: no space left on device`.
    ///   - exitStatus: The exit status it maps to.
    public init(_ message: String, exitStatus: ExitStatus) {
        self.init(Reported(message: message), status: exitStatus)
    }

    /// A failure reported with ``init(_:exitStatus:)``: its message alone.
    private struct Reported: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    /// The same error, with `mentions` searched for in its message where it names no setting yet.
    ///
    /// - Parameter mentions: The settings the message may name, in their order.
    /// - Returns: The error.
    package func mentioning(_ mentions: [Mention]) -> UpdateError {
        guard !mentions.isEmpty, self.mentions.isEmpty else { return self }
        return UpdateError(copying: self, pieces: Self.pieces(of: message, mentioning: mentions))
    }

    private init(copying error: UpdateError, pieces: [Piece]) {
        message = error.message
        exitStatus = error.exitStatus
        deviceWasReached = error.deviceWasReached
        underlying = error.underlying
        packagingProblem = error.packagingProblem
        self.pieces = pieces
    }

    /// Runs `body`, turning whatever it throws into an update error.
    package static func wrapping<T>(_ body: () throws -> T) throws(UpdateError) -> T {
        do { return try body() } catch { throw UpdateError(error) }
    }

}

extension ExitStatus {
    /// The status of an error of the engine's modules, or `nil` for an error this module does not know.
    package static func of(_ error: any Error) -> ExitStatus? {
        switch error {
        case let error as UpdateError: error.exitStatus
        case let error as FileFailure: error.exitStatus
        case CatalogError.unknownID: .noInput
        case FirmwareInputError.missingOption: .usage
        case FirmwareInputError.mcubootImage: .usage
        case let error as UpdateFailure: error.exitStatus
        case let error as PackageBuilderError: error.isUsage ? .usage : .dataError
        case is HexConverterError, is CatalogError, is FirmwareInputError, is DFUSigningError, is DFUPackageError,
            is MCUbootImageError, is MCUbootPackageError:
            .dataError
        default: nil
        }
    }
}
