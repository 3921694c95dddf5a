/// Where a conversion writes the image it makes: a file, standard output, or memory.
///
/// ``ImageConversion`` writes the image in pieces as it makes it, so that a large image is never held twice.
public protocol ConversionOutput: AnyObject {
    /// The output's name in the ``ConversionSummary``, such as its path.
    var displayName: String { get }

    /// Appends `bytes` to the output.
    ///
    /// - Parameter bytes: The next piece of the image; valid only during the call.
    /// - Throws: Whatever the output meets; the conversion stops and throws it as an ``UpdateError``. Throw an
    ///   ``UpdateError`` (``UpdateError/init(_:exitStatus:)``) to choose its message and exit status; any other error
    ///   ends as ``ExitStatus/software``.
    func write(_ bytes: UnsafeBufferPointer<UInt8>) throws
}
