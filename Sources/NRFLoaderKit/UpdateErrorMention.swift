import Catalog
import HexConverter
import PackageBuilder

extension UpdateError {
    /// A place where a message names a setting of this library: the one the caller gave, or one that would help.
    ///
    /// ``UpdateError/message`` says each in this library's words, such as `give a longer timeout
    /// (UpdateOptions.timeout)`; a front end that names its settings otherwise (a command line's flags) renders the
    /// message with ``UpdateError/message(naming:)``.
    public enum Mention: Sendable, Hashable, CustomStringConvertible {
        /// A longer ``UpdateOptions/timeout`` would let the device answer.
        case longerTimeout
        /// Fewer SMP requests in flight (``UpdateOptions/smpWindow``) or a longer timeout would.
        case smallerSMPWindowOrLongerTimeout
        /// A board with an Adafruit bootloader enters it on a touch at 1200 baud or a double tap of reset.
        case bootloaderTouch
        /// A longer search for the device would find it.
        case longerSearch
        /// One device must be chosen by its address.
        case deviceAddress
        /// The serial port `auto`, the one Nordic or Adafruit USB serial port plugged in.
        case automaticSerialPort
        /// The scan that lists the serial ports.
        case serialPortScan
        /// One serial port must be given by its path.
        case serialPortPath
        /// The touch at a baud rate that asks an Adafruit board for its bootloader.
        case touch
        /// The number of images the simulated SMP device updates.
        case simulatedImageCount(Int)
        /// The simulated devices that speak nRF5 DFU.
        case simulatedDFUTargets
        /// The nRF5 DFU protocol the firmware is prepared for.
        case dfuProtocol
        /// The targets that speak SMP.
        case smpTargets
        /// The SoftDevices a bare image runs on, for its Secure DFU init packet.
        case softDeviceRequirements
        /// Cropping a HEX file's image below `end`, or dropping the MBR and UICR regions.
        case cropOrDropNordicRegions(end: UInt32)
        /// Letting a user catalog entry replace an embedded one.
        case catalogReplace

        /// The words of this library's messages.
        public var description: String {
            switch self {
            case .longerTimeout: "give a longer timeout (UpdateOptions.timeout)"
            case .smallerSMPWindowOrLongerTimeout:
                "try an SMP window of 1 (UpdateOptions.smpWindow) or a longer timeout (UpdateOptions.timeout)"
            case .bootloaderTouch: "a touch at 1200 baud (SerialPortOptions.touchBaudRate) or double-tap reset"
            case .longerSearch: "a longer BluetoothOptions.searchTimeout waits longer"
            case .deviceAddress: "choose one by its address"
            case .automaticSerialPort: "serial port 'auto'"
            case .serialPortScan: "SerialScanner"
            case .serialPortPath: "give one by its path"
            case .touch: "SerialPortOptions.touchBaudRate"
            case .simulatedImageCount(let count): "SimulatedDeviceOptions.smpImages \(count)"
            case .simulatedDFUTargets: "a simulated DFU device: sim, sim:legacy or sim:buttonless"
            case .dfuProtocol: "FirmwareOptions.dfuProtocol"
            case .smpTargets:
                "the simulated SMP device (sim:smp), a serial port, or a device that offers the SMP service"
            case .softDeviceRequirements: "FirmwareOptions.softDeviceRequirements"
            case .cropOrDropNordicRegions(let end):
                "crop it at \(hex(end, width: 8)) (BinaryImageOptions.end) or drop the MBR and UICR regions "
                    + "(BinaryImageOptions.followsNordicTools)"
            case .catalogReplace: "FirmwareOptions.catalogReplacesEmbedded"
            }
        }

        /// The mentions an engine error's message may hold, in order.
        static func candidates(of error: any Error) -> [Mention] {
            switch error {
            case let failure as UpdateFailure:
                guard case .smpUpload(.unanswered) = failure.cause else { return [] }
                return [.smallerSMPWindowOrLongerTimeout, .longerTimeout]
            case HexConverterError.imageTooLarge(_, _, let high, _):
                return [.cropOrDropNordicRegions(end: high.start & 0xF000_0000)]
            case PackageBuilderError.badHex(let error): return candidates(of: error)
            case CatalogError.overridesEmbedded: return [.catalogReplace]
            case FirmwareInputError.protocolNotInCatalog: return [.dfuProtocol]
            case FirmwareInputError.mcubootImage: return [.smpTargets]
            case FirmwareInputError.missingOption: return [.softDeviceRequirements]
            default: return []
            }
        }
    }

    /// A run of a message: its own text, or a mention of a setting.
    enum Piece: Sendable {
        case text(String)
        case mention(Mention)
    }

    /// The message with each mention in the caller's words: a command line's flags, say.
    ///
    /// - Parameter name: The words for a mention, such as `give a longer --timeout` for
    ///   ``Mention/longerTimeout``.
    /// - Returns: The message, its other text unchanged.
    public func message(naming name: (Mention) -> String) -> String {
        pieces.map { piece in
            switch piece {
            case .text(let text): text
            case .mention(let mention): name(mention)
            }
        }.joined()
    }

    /// The message cut into text and the `candidates` it holds, searched for in order; a candidate the message does
    /// not hold is left out.
    static func pieces(of message: String, mentioning candidates: [Mention]) -> [Piece] {
        var pieces: [Piece] = []
        var rest = message[...]
        for mention in candidates {
            guard let range = rest.firstRange(of: mention.description) else { continue }
            if range.lowerBound > rest.startIndex { pieces.append(.text(String(rest[..<range.lowerBound]))) }
            pieces.append(.mention(mention))
            rest = rest[range.upperBound...]
        }
        if !rest.isEmpty { pieces.append(.text(String(rest))) }
        return pieces
    }
}
