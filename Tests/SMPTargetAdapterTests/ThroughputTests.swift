import DFUSimulator
import DeviceLink
import MCUbootImage
import SMP
import SMPSimulator
import Testing

/// Upload rates in virtual time against the link model's ceiling: measured, not asserted against a figure (style
/// §37); the only assertion is the direction pipelining must move them, which the simulation decides exactly.
@Suite struct ThroughputTests {
    @Test("pipelining moves the upload closer to the link's ceiling")
    func pipelining() async throws {
        let body = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let image = UnsignedImageBuilder.image(
            version: MCUbootVersion(major: 1, minor: 0, revision: 0, build: 0), body: body)
        let link = LinkModel()
        let ceiling = link.ceiling(valueLength: link.mtu - 3)
        var rates: [String: Double] = [:]
        for (name, parameters, window) in [
            ("384x4 window 1", MCUmgrParameters(bufferSize: 384, bufferCount: 4), 1),
            ("384x4 window 3", MCUmgrParameters(bufferSize: 384, bufferCount: 4), 3),
            ("2475x4 window 1", MCUmgrParameters(bufferSize: 2475, bufferCount: 4), 1),
            ("2475x4 window 3", MCUmgrParameters(bufferSize: 2475, bufferCount: 4), 3),
        ] {
            let run = try await SimulatedUploadTests.upload(
                image, answersParameters: true, parameters: parameters,
                configure: {
                    $0.maximumRequestsInFlight = window
                    $0.mode = .uploadOnly
                }, link: link)
            _ = try SimulatedUploadTests.result(run)
            let start = try #require(run.uploadStarted)
            let end = try #require(run.uploadEnded)
            let seconds = Double((end - start).components.attoseconds) / 1e18 + Double((end - start).components.seconds)
            rates[name] = Double(image.count) / seconds
            print(
                "sim:smp \(name): \(Int(rates[name] ?? 0)) B/s of image, \(Int(ceiling)) B/s link ceiling "
                    + "(\(Int((rates[name] ?? 0) / ceiling * 100)) %)")
        }
        #expect((rates["384x4 window 3"] ?? 0) > (rates["384x4 window 1"] ?? 0))
        #expect((rates["2475x4 window 3"] ?? 0) > (rates["2475x4 window 1"] ?? 0))
        #expect(rates.values.allSatisfy { $0 < ceiling })
    }
}
