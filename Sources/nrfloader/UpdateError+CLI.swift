import NRFLoaderKit

extension UpdateError {
    /// The message as the command line says it: each setting of the library it mentions as the option that sets it.
    var commandLineMessage: String { message(naming: Self.commandLineWords) }

    /// The command line's words for each mention of a library setting: one table for every command, as the options
    /// are spelled alike in all of them.
    ///
    /// - Parameter mention: The mention.
    /// - Returns: Its words, naming the option.
    static func commandLineWords(for mention: Mention) -> String {
        switch mention {
        case .longerTimeout: "give a longer --timeout"
        case .smallerSMPWindowOrLongerTimeout: "try --smp-window 1 or a longer --timeout"
        case .bootloaderTouch: "--touch 1200 or double-tap reset"
        case .longerSearch: "--wait waits longer"
        case .deviceAddress: "choose one with --target ADDRESS"
        case .automaticSerialPort: "--port auto"
        case .serialPortScan: "nrfloader scan --serial"
        case .serialPortPath: "give one with --port PATH"
        case .touch: "--touch"
        case .simulatedImageCount(let count): "--sim-images \(count)"
        case .simulatedDFUTargets: "--target sim, sim:legacy or sim:buttonless"
        case .dfuProtocol: "--dfu"
        case .smpTargets: "--target sim:smp, --port PATH, or a device that offers the SMP service"
        case .softDeviceRequirements: "--sd-req ID[,ID…]"
        case .cropOrDropNordicRegions(let end):
            "crop it with --end \(hex(end, width: 8)) or use --nordic to drop the MBR and UICR regions"
        case .catalogReplace: "--catalog-replace"
        }
    }
}
