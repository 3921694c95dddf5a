import DeviceLink
import SMP
import SMPTargetAdapter
import SMPUDP

/// The address of a device with Zephyr's MCUmgr UDP transport (`CONFIG_MCUMGR_TRANSPORT_UDP`): an nRF70 Wi-Fi
/// board, or any networked Zephyr device.
///
/// It reads as `HOST`, `HOST:PORT`, `[ADDR]` or `[ADDR]:PORT` (an IPv6 address in brackets), after an optional
/// `udp:`; the port is 1337 (`CONFIG_MCUMGR_TRANSPORT_UDP_PORT`'s default) when none is given.
public struct UDPDeviceAddress: Sendable, Hashable, CustomStringConvertible {
    let endpoint: UDPEndpoint

    /// Parses `udp:HOST[:PORT]`, `udp:[ADDR]:PORT`, or the same without `udp:`.
    ///
    /// - Parameter text: The text.
    /// - Throws: ``UpdateError`` with ``ExitStatus/usage`` naming what is wrong.
    public init(parsing text: String) throws(UpdateError) {
        let body = text.hasPrefix("udp:") ? String(text.dropFirst(4)) : text
        do { endpoint = try UDPEndpoint(parsing: body) } catch {
            throw UpdateError(OptionError(message: "udp target \(error.description)"), status: .usage)
        }
    }

    /// An address from its parts.
    ///
    /// - Parameters:
    ///   - host: An IPv4 or IPv6 address (without brackets), or a host name.
    ///   - port: The port.
    public init(host: String, port: UInt16 = 1337) {
        endpoint = UDPEndpoint(host: host, port: port)
    }

    /// The host: an address (IPv6 without brackets) or a name.
    public var host: String { endpoint.host }
    /// The port.
    public var port: UInt16 { endpoint.port }
    /// `udp:HOST:PORT`, or `udp:[ADDR]:PORT` for IPv6.
    public var description: String { "udp:\(endpoint)" }

    /// Whether `text` names a UDP target (starts with `udp:`).
    ///
    /// - Parameter text: A target as the command line takes it.
    /// - Returns: Whether it is one for ``init(parsing:)``.
    public static func isUDPTarget(_ text: String) -> Bool { text.hasPrefix("udp:") }
}

/// How a UDP target is reached.
public struct UDPTargetOptions: Sendable {
    /// The largest datagram the device takes: Zephyr's `CONFIG_MCUMGR_TRANSPORT_UDP_MTU`, 1500 by default.
    ///
    /// Requests are sized from the device's MCUmgr parameters (`buf_size`) and never exceed it.
    public var datagramLimit = 1500

    /// The defaults.
    public init() {}
}

extension UpdateTarget {
    /// A device that speaks SMP over UDP (Zephyr's `smp_udp.c`): one SMP frame per datagram.
    ///
    /// MCUboot firmware is uploaded as over any SMP transport. Each answer is awaited for 2 seconds unless
    /// ``UpdateOptions`` gives a timeout: a lost datagram (request or answer) is sent again after that, and the upload
    /// goes on from the offset the device reports. The answer to OS reset stands for the link's loss (UDP has none),
    /// and the device is asked again until it answers once it is back. nRF5 DFU firmware is refused.
    ///
    /// The target takes management requests (``SMPDevice``) the same way.
    ///
    /// - Parameters:
    ///   - address: The device's address and port.
    ///   - options: The datagram limit.
    /// - Returns: The target; nothing is sent until an update or a request runs.
    public static func udp(_ address: UDPDeviceAddress, options: UDPTargetOptions = UDPTargetOptions()) -> UpdateTarget
    {
        var settings = UDPSMPTransport.Options(endpoint: address.endpoint)
        settings.datagramLimit = options.datagramLimit
        let transport = settings
        let name = address.description
        // One lane per host: a fleet updates at most its `maximumConcurrentUpdates` devices of a host at once.
        return UpdateTarget(
            description: name, lane: "udp:\(address.host)",
            openManagementLink: { _ throws(UpdateError) in UDPSMPTransport(options: transport) },
            dfu: nil,
            smp: { firmware, updateOptions, onEvent throws(UpdateError) in
                let (images, package) = try firmware.mcubootImages(for: name)
                var configuration = updateOptions.smpConfiguration
                if updateOptions.timeout == nil { configuration.responseTimeout = .seconds(2) }
                if let timeout = updateOptions.timeoutSeconds { configuration.connectionTimeout = .seconds(timeout) }
                return try await SMPSession.run(
                    images, package: package, named: name, over: UDPSMPTransport(options: transport),
                    configuration: configuration, onEvent: onEvent)
            })
    }
}
