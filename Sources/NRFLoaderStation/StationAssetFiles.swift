internal import StationAssets

/// The page's files compiled into the executable, by name.
enum StationAssetFiles {
    /// Every asset, by its name under `web/`.
    static let all: [String: [UInt8]] = {
        var files: [String: [UInt8]] = [:]
        for index in 0..<nrf_station_asset_count() {
            guard let file = nrf_station_asset_get(index), let name = file.pointee.name, let data = file.pointee.data
            else { continue }
            files[String(cString: name)] = Array(UnsafeBufferPointer(start: data, count: Int(file.pointee.size)))
        }
        return files
    }()
}
