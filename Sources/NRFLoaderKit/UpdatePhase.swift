package import DFUController
package import SMP

/// Where an update stands, in one vocabulary for both protocols.
///
/// nRF5 DFU goes through ``connecting``, ``enteringBootloader`` (buttonless), ``sendingInitPacket``,
/// ``sendingFirmware`` and ``validating``; an SMP update through ``connecting``, ``inspecting``, ``uploading``,
/// ``settingState``, ``resetting`` and ``verifying``. Its ``description`` is the word `nrfloader upload` prints and
/// its `--json` carries in `phase`: nRF5 DFU's five words, onto which SMP's phases map by the step they are (an
/// upload is "sending firmware"; setting the state, the reset and the check after it are "validating"), so that one
/// reader of the output serves both; ``name`` says exactly which phase it is.
public enum UpdatePhase: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Connecting to the device (or the bootloader it reset into).
    case connecting
    /// nRF5 DFU: asking the application to jump to its bootloader (buttonless).
    case enteringBootloader
    /// nRF5 DFU: sending and executing the init packet.
    case sendingInitPacket
    /// nRF5 DFU: sending the firmware image.
    case sendingFirmware
    /// nRF5 DFU: the bootloader validates and activates the image.
    case validating
    /// SMP: reading the device's parameters and image state.
    case inspecting
    /// SMP: uploading the image.
    case uploading
    /// SMP: marking the image for test, or confirming it.
    case settingState
    /// SMP: the device resets into the new image.
    case resetting
    /// SMP: reading the state afresh to check what runs.
    case verifying

    /// The phase's own name: `sending init packet`, `resetting`.
    public var name: String {
        switch self {
        case .connecting: "connecting"
        case .enteringBootloader: "entering bootloader"
        case .sendingInitPacket: "sending init packet"
        case .sendingFirmware: "sending firmware"
        case .validating: "validating"
        case .inspecting: "inspecting"
        case .uploading: "uploading"
        case .settingState: "setting state"
        case .resetting: "resetting"
        case .verifying: "verifying"
        }
    }

    /// The word `nrfloader upload` prints, and its `--json` carries in `phase`: one of nRF5 DFU's five.
    public var description: String {
        switch self {
        case .connecting, .inspecting: "connecting"
        case .enteringBootloader: "entering bootloader"
        case .sendingInitPacket: "sending init packet"
        case .sendingFirmware, .uploading: "sending firmware"
        case .validating, .settingState, .resetting, .verifying: "validating"
        }
    }

    /// Whether the firmware's bytes are moving.
    public var isTransferring: Bool { self == .sendingFirmware || self == .uploading }

    package init(_ phase: DFUPhase) {
        switch phase {
        case .connecting: self = .connecting
        case .enteringBootloader: self = .enteringBootloader
        case .sendingInitPacket: self = .sendingInitPacket
        case .sendingFirmware: self = .sendingFirmware
        case .validating: self = .validating
        }
    }

    package init(_ phase: SMPPhase) {
        switch phase {
        case .connecting: self = .connecting
        case .inspecting: self = .inspecting
        case .uploading: self = .uploading
        case .settingState: self = .settingState
        case .resetting: self = .resetting
        case .verifying: self = .verifying
        }
    }
}
