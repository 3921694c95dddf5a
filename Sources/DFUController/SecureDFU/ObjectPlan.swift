import Checksums

/// How an image splits into Secure DFU data objects of the target's maximum object size (§2.8 step 2).
struct ObjectPlan: Equatable, Sendable {
    /// The target's maximum data object size from Select (data), in payload bytes.
    let objectSize: Int
    /// The image size in payload bytes.
    let imageSize: Int

    /// The number of objects; the last may be shorter.
    var count: Int { (imageSize + objectSize - 1) / objectSize }

    /// The image bytes object `index` covers.
    ///
    /// - Parameter index: A 0-based object index below ``count``.
    /// - Returns: The byte range.
    func range(of index: Int) -> Range<Int> {
        let start = index * objectSize
        return start..<min(start + objectSize, imageSize)
    }
}

/// Where the transfer of data objects stands.
struct DataCursor: Equatable, Sendable {
    /// The object split.
    let plan: ObjectPlan
    /// The current object's index.
    var object: Int
    /// How many times the current object has been created, counting this one.
    var attempt: Int
    /// Payload bytes of the image written so far (an absolute image offset).
    var sent: Int
    /// CRC-32 of the image up to ``sent``.
    var crc: CRC32
    /// The lowest offset the target may report for this object.
    ///
    /// The end of the objects it executed before it, or more of this object once it confirmed that (a matching
    /// receipt, checksum or Select). Only Create (command)
    /// and a new connection's Select start lower (§2.6); a report below it within the connection is a protocol
    /// violation.
    var confirmed: Int
}
