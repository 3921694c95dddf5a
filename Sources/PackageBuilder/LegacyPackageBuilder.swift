import Checksums
import DFUPackage

/// The options of adafruit-nrfutil 0.5.3.post16 `dfu genpkg`, as given on the command line.
///
/// Defaults are that tool's: device type and revision 0xFFFF, application version 0xFFFFFFFF, `sd_req` 0xFFFE,
/// `dfu_version` 0.5 (a bare CRC-16 after the SoftDevice list).
package struct LegacyPackageOptions: Sendable {
    package var application: InputImage?
    package var bootloader: InputImage?
    package var softdevice: InputImage?
    package var applicationVersion = "4294967295"
    package var devType = "65535"
    package var devRevision = "65535"
    /// `none` writes an empty list.
    package var sdReq = "65534"
    /// 0.5 (CRC-16) or 0.6 (extension id 0, then CRC-16).
    package var dfuVersion = "0.5"

    package init() {}
}

/// Builds legacy DFU packages as adafruit-nrfutil `dfu genpkg` does.
package enum LegacyPackageBuilder {
    /// Checks the options and builds the package.
    ///
    /// - Parameter options: The command-line options.
    /// - Returns: The entries.
    /// - Throws: ``PackageBuilderError``.
    package static func build(_ options: LegacyPackageOptions) throws(PackageBuilderError) -> BuiltPackage {
        let format: LegacyInitPacket.Format
        switch options.dfuVersion {
        case "0.5": format = .crc16
        case "0.6": format = .extendedCRC16
        default:
            throw .options(.unsupportedDFUVersion(options.dfuVersion))
        }
        guard options.application != nil || options.bootloader != nil || options.softdevice != nil else {
            throw .options(.noImage)
        }
        let deviceType = UInt16(
            try number(.devType) { () throws(NumberFault) in try NordicInteger.parse(options.devType, limit: 0xFFFF) })
        let deviceRevision = UInt16(
            try number(.devRevision) { () throws(NumberFault) in
                try NordicInteger.parse(options.devRevision, limit: 0xFFFF)
            })
        let applicationVersion = UInt32(
            try number(.applicationVersion) { () throws(NumberFault) in
                try NordicInteger.parse(options.applicationVersion)
            })
        let sdReq: [UInt16] =
            options.sdReq.lowercased() == "none"
            ? []
            : try number(.sdReq) { () throws(NumberFault) in try NordicInteger.parseList(options.sdReq, limit: 0xFFFF) }
                .map(UInt16.init)

        var images: [(binName: String, bytes: [UInt8], softdeviceSize: Int?)] = []
        if let application = options.application {
            images.append(
                (
                    NordicBinary.binName(for: application.path),
                    try NordicBinary.image(application.contents, path: application.path, dropsMBR: false), nil
                ))
        }
        switch (options.softdevice, options.bootloader) {
        case (let softdevice?, let bootloader?):
            let sdBytes = try NordicBinary.image(softdevice.contents, path: softdevice.path, dropsMBR: false)
            let blBytes = try NordicBinary.image(bootloader.contents, path: bootloader.path, dropsMBR: false)
            images.append(("sd_bl.bin", sdBytes + blBytes, sdBytes.count))
        case (nil, let bootloader?):
            images.append(
                (
                    NordicBinary.binName(for: bootloader.path),
                    try NordicBinary.image(bootloader.contents, path: bootloader.path, dropsMBR: false), nil
                ))
        case (let softdevice?, nil):
            images.append(
                (
                    NordicBinary.binName(for: softdevice.path),
                    try NordicBinary.image(softdevice.contents, path: softdevice.path, dropsMBR: false), nil
                ))
        case (nil, nil): break
        }

        var entries: [(name: String, bytes: [UInt8])] = []
        var manifest: [String: PythonJSON] = ["dfu_version": .float(options.dfuVersion)]
        for (index, image) in images.enumerated() {
            let datName = NordicBinary.datName(for: image.binName)
            for name in [image.binName, datName]
            where name == "manifest.json" || entries.contains(where: { $0.name == name }) {
                throw .duplicateEntryName(name)
            }
            guard UInt32(exactly: image.bytes.count) != nil else { throw .packageTooLarge }
            let packet = LegacyInitPacket(
                deviceType: deviceType, deviceRevision: deviceRevision, applicationVersion: applicationVersion,
                softdeviceReq: sdReq, image: image.bytes, format: format)
            entries.append((image.binName, image.bytes))
            entries.append((datName, packet.encoded()))
            var data: [String: PythonJSON] = [
                "application_version": .integer(UInt64(applicationVersion)),
                "device_revision": .integer(UInt64(deviceRevision)),
                "device_type": .integer(UInt64(deviceType)),
                "firmware_crc16": .integer(UInt64(CRC16.checksum(image.bytes))),
                "softdevice_req": .array(sdReq.map { .integer(UInt64($0)) }),
            ]
            if format == .extendedCRC16 { data["ext_packet_id"] = .integer(0) }
            var member: [String: PythonJSON] = [
                "bin_file": .string(image.binName), "dat_file": .string(datName), "init_packet_data": .object(data),
            ]
            let key: String
            if let sdSize = image.softdeviceSize {
                key = "softdevice_bootloader"
                member["bl_size"] = .integer(UInt64(image.bytes.count - sdSize))
                member["sd_size"] = .integer(UInt64(sdSize))
            } else if index == 0 && options.application != nil {
                key = "application"
            } else {
                key = options.bootloader != nil ? "bootloader" : "softdevice"
            }
            manifest[key] = .object(member)
        }
        entries.append(("manifest.json", Array(PythonJSON.object(["manifest": .object(manifest)]).text.utf8)))
        return BuiltPackage(entries: entries, warnings: [])
    }
}
