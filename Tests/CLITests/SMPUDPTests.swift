import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

private let mcuboot = TestPaths.repositoryRoot.appendingPathComponent("Tests/Data/mcuboot").path

/// `nrfloader simulate-udp` on a loopback port of this test's choosing, stopped by pid.
struct UDPSimulator {
    let running: ProcessRunner.Running
    /// `udp:127.0.0.1:PORT` of the first device.
    let target: String
    /// The first device's port.
    let port: UInt16

    /// Starts the simulator on a port free a moment ago (the system picks it for a socket the test closes), IPv4 or
    /// IPv6 loopback, and waits until the first device answers an echo.
    init(_ arguments: [String] = [], ipv6: Bool = false) throws {
        port = try Self.freePort(ipv6: ipv6)
        let host = ipv6 ? "::1" : "127.0.0.1"
        target = ipv6 ? "udp:[::1]:\(port)" : "udp:127.0.0.1:\(port)"
        running = ProcessRunner().start(
            TestPaths.nrfloader, ["simulate-udp", "--host", host, "--port", String(port)] + arguments)
        // The echo's own probe waits for the device (up to its connection timeout) as a real network device would.
        let echo = nrfloader(["echo", "up", "--target", target])
        try #require(echo.status == 0, "simulate-udp did not answer: \(echo.stderrText)")
    }

    /// Stops the simulator (SIGTERM unless it exits by itself) and returns its output.
    func stop(signal: Bool = true) -> ProcessResult {
        if signal { running.send(SIGTERM) }
        return running.wait()
    }

    /// A UDP port nothing is bound to: the one the system gives a socket bound to port 0, which is then closed.
    static func freePort(ipv6: Bool = false) throws -> UInt16 {
        let descriptor = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        var storage = sockaddr_storage()
        var length: socklen_t
        if ipv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_addr = in6addr_loopback
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            withUnsafeMutableBytes(of: &storage) { target in
                withUnsafeBytes(of: address) { target.copyMemory(from: $0) }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
            withUnsafeMutableBytes(of: &storage) { target in
                withUnsafeBytes(of: address) { target.copyMemory(from: $0) }
            }
        }
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        try #require(bound == 0)
        var actual = sockaddr_storage()
        var actualLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &actualLength) }
        }
        return withUnsafeBytes(of: actual) { bytes in
            // sin_port and sin6_port both sit at offset 2, in network order.
            UInt16(bytes[2]) << 8 | UInt16(bytes[3])
        }
    }
}

/// SMP over UDP as a user runs it: `nrfloader simulate-udp` serving Zephyr-like devices on loopback ports, and the
/// verbs and `upload` reaching them with `--target udp:HOST:PORT` and `udp:[::1]:PORT`.
@Suite(.serialized) struct SMPUDPTests {
    private let runningHash = "1927c74c30bcb311a8f6108cb9b4c610284e23330b4da5918bc02adb63044b4a"
    private let uploadedHash = "b1697c9210ad081fa641230219ea92f6ceb46fae6a4902fb93d74ad5f0a2ce90"

    @Test("upload over udp:127.0.0.1: the default test-and-confirm ends with the new image running confirmed")
    func uploadIPv4() throws {
        let simulator = try UDPSimulator()
        defer { _ = simulator.stop() }
        var result = nrfloader(["upload", "--target", simulator.target, "\(mcuboot)/ed25519.bin"])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(
            result.stdoutText
                == "image 2.0.0 (hash b1697c9210ad081f…) confirmed by the device: slot 0, active confirmed; "
                + "9656 bytes uploaded\n")
        #expect(
            result.stderrText.hasPrefix(
                "uploading \(mcuboot)/ed25519.bin (MCUboot image 2.0.0+0, 9656 bytes) to \(simulator.target) over SMP\n"
            ), "\(result.stderrText)")
        result = nrfloader(["image", "list", "--target", simulator.target])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(
            result.stdoutText
                == "IMAGE  SLOT  VERSION  FLAGS                      HASH\n"
                + "0      0     2.0.0    active confirmed bootable  \(uploadedHash)\n"
                + "0      1     0.0.1    bootable                   \(runningHash)\n")
    }

    @Test("upload over udp:[::1] with a request datagram lost: sent again after 2 s, and the update completes")
    func uploadIPv6LostDatagram() throws {
        let simulator = try UDPSimulator(["--drop", "8"], ipv6: true)
        defer { _ = simulator.stop() }
        let result = nrfloader(["upload", "--target", simulator.target, "\(mcuboot)/ed25519.bin", "--json"])
        #expect(result.status == 0, "\(result.stderrText)")
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        #expect(
            lines.contains { $0.contains("no answer within 2.0 seconds waiting for the answer to image upload") },
            "\(result.stdoutText)")
        let last = try #require(lines.last)
        #expect(last.hasPrefix("{\"bytes_uploaded\":9656,\"event\":\"result\""), "\(last)")
        #expect(last.contains("\"confirmed\":true") && last.contains("\"version\":\"2.0.0\""), "\(last)")
    }

    @Test("echo and reset over UDP: the reset's answer stands for the link's loss, and the device is back after")
    func echoAndReset() throws {
        let simulator = try UDPSimulator()
        defer { _ = simulator.stop() }
        var result = nrfloader(["echo", "hello over UDP", "--target", simulator.target])
        #expect(result.status == 0 && result.stdoutText == "hello over UDP\n", "\(result.stderrText)")
        result = nrfloader(["reset", "--target", simulator.target])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText == "device reset\n")
        result = nrfloader(["echo", "back", "--target", simulator.target, "--json"])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText.hasSuffix("\"text\":\"back\"}\n") || result.stdoutText.contains("\"back\""))
    }

    @Test("nothing listening on the port: exit 69, naming the endpoint and the refusal")
    func nothingListening() throws {
        let port = try UDPSimulator.freePort()
        let result = nrfloader(["echo", "x", "--target", "udp:127.0.0.1:\(port)", "--timeout", "1"])
        #expect(result.status == 69, "\(result.stderrText)")
        #expect(
            result.stderrText.contains(
                "no answer to SMP echo at udp 127.0.0.1:\(port) (its port refused the datagrams"),
            "\(result.stderrText)")
    }

    @Test(
        "malformed UDP targets are usage errors (64) naming the text",
        arguments: [
            ("udp:", "'': no host"),
            ("udp:::1", "an IPv6 address goes in brackets, as [ADDR]:PORT"),
            ("udp:[::1", "'[' without ']'"),
            ("udp:host:0", "the port must be 1 to 65535"),
            ("udp:host:70000", "the port must be 1 to 65535"),
        ])
    func malformedTargets(target: String, problem: String) {
        for verb in [["echo", "x"], ["upload", "\(mcuboot)/ed25519.bin"]] {
            let result = nrfloader(verb + ["--target", target])
            #expect(result.status == 64, "\(verb) \(target): \(result.stderrText)")
            #expect(result.stderrText.contains(problem), "\(result.stderrText)")
        }
    }

    @Test("an nRF5 .hex for a UDP target is refused before anything is sent: not an MCUboot image (65)")
    func dfuFirmwareRefused() throws {
        let firmware = TestPaths.repositoryRoot.appendingPathComponent("Resources/firmware").path
        let result = nrfloader(["upload", "--target", "udp:127.0.0.1:9", "\(firmware)/blinky-pca10040.hex"])
        #expect(result.status == 65, "\(result.stderrText)")
        #expect(
            result.stderrText
                == "Error: \(firmware)/blinky-pca10040.hex: header magic is 0x3032303A, not MCUboot's 0x96F3B83D (not a "
                + "signed MCUboot image: sign it with imgtool)\n")
    }

    @Test("a fleet of UDP devices: three --target udp:… and a --targets-from list, each confirmed, in the summary")
    func fleet() throws {
        let simulator = try UDPSimulator(["--devices", "3"])
        defer { _ = simulator.stop() }
        let targets = (0..<3).map { "udp:127.0.0.1:\(Int(simulator.port) + $0)" }
        var result = nrfloader(["upload", "\(mcuboot)/ed25519.bin"] + targets.flatMap { ["--target", $0] })
        #expect(result.status == 0, "\(result.stderrText)")
        let width = targets[0].count
        func row(_ target: String, _ uploaded: String) -> String {
            target.padding(toLength: max(width, 6), withPad: " ", startingAt: 0)
                + "  udp:127.0.0.1  confirmed     0  \(uploaded)  image 2.0.0 in slot 0, active confirmed\n"
        }
        #expect(
            result.stdoutText
                == "DEVICE".padding(toLength: width, withPad: " ", startingAt: 0)
                + "  ADAPTER        STATUS     EXIT  UPLOADED  MESSAGE\n"
                + targets.map { row($0, "    9656") }.joined(),
            "\(result.stdoutText)")
        let lastLine = result.stderrText.split(separator: "\n").last ?? ""
        #expect(lastLine.hasPrefix("3 of 3 devices updated in "), "\(result.stderrText)")

        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let list = directory.file("targets.txt")
        try "# two of them\n\(targets[0])\n\n\(targets[2])\n".write(toFile: list, atomically: true, encoding: .utf8)
        result = nrfloader(["upload", "\(mcuboot)/ed25519.bin", "--targets-from", list, "--json"])
        #expect(result.status == 0, "\(result.stderrText)")
        let summary = try #require(result.stdoutText.split(separator: "\n").last)
        #expect(summary.hasPrefix("{\"completed\":2,\"devices\":[{\"adapter\":\"udp:127.0.0.1\""), "\(summary)")
        #expect(summary.contains("\"device\":\"\(targets[2])\""), "\(summary)")
    }

    @Test(
        "UDP fleet lists are checked: Bluetooth and udp: lines mixed, a device twice",
        arguments: [
            ("udp:127.0.0.1:1\nAA:BB:CC:DD:EE:FF\n", "targets.txt:2: udp: devices and Bluetooth devices in one list"),
            ("udp:127.0.0.1:1\nudp:127.0.0.1:1\n", "targets.txt:2: udp:127.0.0.1:1 is listed twice"),
            ("udp:[::1\n", "targets.txt:1: udp target '[::1': '[' without ']'"),
        ])
    func fleetListErrors(text: String, message: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let list = directory.file("targets.txt")
        try text.write(toFile: list, atomically: true, encoding: .utf8)
        let result = nrfloader(["upload", "\(mcuboot)/ed25519.bin", "--targets-from", list])
        #expect(result.status == 64, "\(result.stderrText)")
        #expect(result.stderrText == "Error: \(list.dropLast("targets.txt".count))\(message)\n", "\(result.stderrText)")
    }
}
