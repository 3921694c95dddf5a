import FoundationEssentials
import NRFLoaderKit

/// The devices of `--targets-from FILE`: one address per line, or the JSON Lines of `scan --json` (their
/// `address` and `name`), or `udp:HOST[:PORT]` lines; blank lines and lines starting with `#` are skipped.
struct FleetTargetList {
    struct Entry: Equatable {
        var address: BluetoothDeviceAddress
        var name: String?
    }

    var entries: [Entry] = []
    /// The `udp:` lines: devices with MCUmgr's UDP transport (a list holds these or Bluetooth devices, not both).
    var udpAddresses: [UDPDeviceAddress] = []

    /// Parses the text of a targets file.
    ///
    /// - Parameters:
    ///   - bytes: The file's contents.
    ///   - file: Its name in messages.
    /// - Throws: ``FleetTargetListError`` naming `FILE:LINE` and what is wrong (exit 64).
    init(_ bytes: [UInt8], file: String) throws {
        let text = String(decoding: bytes, as: UTF8.self)
        for (number, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(rawLine.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
            if line.isEmpty || line.hasPrefix("#") { continue }
            let place = "\(file):\(number + 1)"
            if UDPDeviceAddress.isUDPTarget(line) {
                let address: UDPDeviceAddress
                do { address = try UDPDeviceAddress(parsing: line) } catch {
                    throw FleetTargetListError(description: "\(place): \(error)")
                }
                guard !entries.isEmpty || !udpAddresses.contains(address) else {
                    throw FleetTargetListError(description: "\(place): \(address) is listed twice")
                }
                guard entries.isEmpty else {
                    throw FleetTargetListError(description: "\(place): udp: devices and Bluetooth devices in one list")
                }
                udpAddresses.append(address)
                continue
            }
            if !udpAddresses.isEmpty {
                throw FleetTargetListError(description: "\(place): udp: devices and Bluetooth devices in one list")
            }
            let entry: Entry
            if line.hasPrefix("{") {
                let scanned: ScanLine
                do {
                    scanned = try JSONDecoder().decode(ScanLine.self, from: Data(line.utf8))
                } catch {
                    throw FleetTargetListError(description: "\(place): not a JSON object with an \"address\" string")
                }
                entry = Entry(address: try Self.address(scanned.address, at: place), name: scanned.name)
            } else {
                entry = Entry(address: try Self.address(line, at: place), name: nil)
            }
            if entries.contains(where: { $0.address == entry.address }) {
                throw FleetTargetListError(description: "\(place): \(entry.address) is listed twice")
            }
            entries.append(entry)
        }
        if entries.isEmpty, udpAddresses.isEmpty {
            throw FleetTargetListError(description: "\(file): no device addresses")
        }
    }

    private static func address(_ text: String, at place: String) throws -> BluetoothDeviceAddress {
        do {
            return try BluetoothDeviceAddress(parsing: text)
        } catch {
            throw FleetTargetListError(description: "\(place): \(error)")
        }
    }

    /// The part of a `scan --json` line the list needs.
    private struct ScanLine: Decodable {
        var address: String
        var name: String?
    }
}

/// A line of a `--targets-from` file that is not a device: a usage error (exit 64), named `FILE:LINE`.
struct FleetTargetListError: Error, CustomStringConvertible {
    var description: String
}
