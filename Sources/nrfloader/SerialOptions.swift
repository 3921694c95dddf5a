import ArgumentParser
import NRFLoaderKit

/// `upload --port`: DFU over a serial port instead of Bluetooth.
struct SerialOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Update over this serial port (/dev/ttyACM0), or 'auto' for the only Nordic/Adafruit port plugged in; "
                + "a signed MCUboot image goes over SMP (MCUmgr), anything else over nRF5 serial DFU."))
    var port: String?

    @Option(help: "Serial line speed (default 115200; USB CDC bootloaders ignore it).")
    var baud: Int = 115_200

    @Flag(help: "Use RTS/CTS hardware flow control (the SDK's UART bootloader enables it).")
    var flowControl = false

    @Option(help: "Before the update, open the port at this speed and close it (1200: Adafruit's bootloader entry).")
    var touch: Int?

    func validate() throws {
        if baud < 1 { throw ValidationError("--baud must be positive") }
        if port == nil, touch != nil { throw ValidationError("--touch needs --port") }
        if port == nil, baud != 115_200 || flowControl {
            throw ValidationError("--baud and --flow-control need --port")
        }
    }
}
