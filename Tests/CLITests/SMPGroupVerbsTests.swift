import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The management-group verbs (`os`, `fs`, `shell`, `stat`, `settings`, `enum`, `storage-erase`) run as a user runs
/// them, against each simulated transport: `--target sim:smp` (a fresh device in process each run),
/// `simulate-serial --protocol smp` (a pseudo-terminal) and `simulate-udp` (a loopback port), whose devices keep
/// their state between invocations.
@Suite(.serialized) struct SMPGroupVerbsTests {
    /// How a test reaches the device, and its name in `--json`'s `target`.
    enum Transport: String, CaseIterable, CustomStringConvertible {
        case simulated
        case serial
        case udp

        var description: String { rawValue }
    }

    /// A running device and the options that reach it.
    struct Device {
        var options: [String]
        var label: String
        var stop: () -> Void

        init(_ transport: Transport, _ arguments: [String] = []) throws {
            switch transport {
            case .simulated:
                options = ["--target", "sim:smp"]
                label = "sim:smp"
                stop = {}
            case .serial:
                let simulator = try SerialSimulator(["--protocol", "smp"] + arguments)
                options = ["--port", simulator.port]
                label = simulator.port
                stop = {
                    _ = simulator.stop()
                    simulator.directory.remove()
                }
            case .udp:
                let simulator = try UDPSimulator(arguments)
                options = ["--target", simulator.target]
                label = simulator.target
                stop = { _ = simulator.stop() }
            }
        }
    }

    static let taskTable = """
        TASK      PRIO  TID  STATE  STKSIZ  STKUSE  RUNTIME
        idle        15    0      0      80      16        0
        logging     14    1      0     192      80        0
        main         0    2      0     512     220        0
        smp_work     7    3      0     528     300        0
        sysworkq    -1    4      0     256      96        0

        """

    static let enumTable = """
        GROUP  NAME               HANDLERS
            0  os mgmt                   9
            1  img mgmt                  6
            2  stat mgmt                 2
            3  settings mgmt             4
            8  fs mgmt                   5
            9  shell mgmt                1
           10  enum mgmt                 4
           63  zephyr basic mgmt         1

        """

    /// Each verb and what it prints against a fresh simulated device, on every transport.
    static let answers: [([String], String)] = [
        (["os", "taskstat"], Self.taskTable),
        (["os", "info"], "Zephyr\n"),
        (["os", "info", "a"], "Zephyr unknown v3.7.0 3.7.0 arm cortex-m4 nrf52840dk/nrf52840 Zephyr\n"),
        (["os", "bootloader-info"], "MCUboot, mode swap-using-scratch (1), tests and reverts\n"),
        (["stat", "list"], "smp_svr_stats\n"),
        (["settings", "read", "app/greeting"], "68656c6c6f\n"),
        (["settings", "read", "app/greeting", "--text", "--max-size", "4"], "hell\n"),
        (["enum"], Self.enumTable),
        (["fs", "status", "/lfs/hello.txt"], "/lfs/hello.txt: 37 bytes\n"),
        (["fs", "hash", "/lfs/hello.txt"], "crc32 0xaeb341a2 (37 bytes of /lfs/hello.txt)\n"),
        (
            ["fs", "hash", "/lfs/hello.txt", "--type", "sha256"],
            "sha256 cf5ad0fc6a2b39de48df6bcc348049ae028c3f39500f568eeaeda26456724317 (37 bytes of /lfs/hello.txt)\n"
        ),
        (["fs", "hash-types"], "TYPE    FORMAT  SIZE\ncrc32   number     4\nsha256  bytes     32\n"),
        (["storage-erase"], "storage partition erased\n"),
    ]

    @Test("each verb answers as Zephyr's handler does, byte for byte", arguments: Transport.allCases)
    func answers(transport: Transport) throws {
        let device = try Device(transport)
        defer { device.stop() }
        let cases = Self.answers
        for (verb, expected) in cases {
            let result = nrfloader(verb + device.options)
            #expect(result.status == 0, "\(verb): \(result.stderrText)")
            #expect(result.stdoutText == expected, "\(verb)")
            #expect(result.stderr.isEmpty, "\(verb): \(result.stderrText)")
        }
        var result = nrfloader(["shell", "exec"] + device.options + ["--", "kernel", "version"])
        #expect(result.status == 0 && result.stdoutText == "Zephyr version 3.7.0\n", "\(result.stderrText)")
        result = nrfloader(["shell", "exec"] + device.options + ["--", "frobnicate", "--now"])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText == "frobnicate: command not found\n")
        #expect(result.stderrText == "the command returned status -8\n")
    }

    @Test("refusals name the group's code and exit 76", arguments: Transport.allCases)
    func refusals(transport: Transport) throws {
        let device = try Device(transport)
        defer { device.stop() }
        let cases: [([String], String)] = [
            (["os", "mpstat"], "os mpstat: rc 8 (MGMT_ERR_ENOTSUP: command not supported)"),
            (["os", "params"], "os params: rc 8 (MGMT_ERR_ENOTSUP: command not supported)"),
            (
                ["os", "info", "x"],
                "os info: rc 2 (OS_MGMT_ERR_INVALID_FORMAT: the provided format value is not valid)"
            ),
            (
                ["stat", "read", "nope"],
                "stat read: rc 3 (STAT_MGMT_ERR_INVALID_STAT_NAME: the provided statistic name was not found; sent "
                    + "as group 63's)"
            ),
            (
                ["settings", "read", "other/x"],
                "settings read: rc 5 (SETTINGS_MGMT_ERR_ROOT_KEY_NOT_FOUND: the provided root key name does not exist)"
            ),
            (
                ["fs", "status", "/lfs/none"],
                "fs status: rc 3 (FS_MGMT_ERR_FILE_NOT_FOUND: the specified file does not exist)"
            ),
            (
                ["fs", "hash", "/lfs/hello.txt", "--type", "md5"],
                "fs hash: rc 13 (FS_MGMT_ERR_CHECKSUM_HASH_NOT_FOUND: the requested checksum or hash type was not "
                    + "found or is not supported by this build)"
            ),
        ]
        for (verb, message) in cases {
            let result = nrfloader(verb + device.options)
            #expect(result.status == 76, "\(verb): \(result.stderrText)")
            #expect(result.stdout.isEmpty)
            #expect(result.stderrText == "Error: device refused \(message)\n", "\(verb)")
            let json = nrfloader(verb + device.options + ["--json"])
            #expect(
                json.stdoutText
                    == "{\"event\":\"error\",\"exit_status\":76,\"message\":\"device refused \(message)\",\"schema\":1}\n",
                "\(verb)")
        }
    }

    @Test("--json: one result object per verb, keys sorted", arguments: Transport.allCases)
    func json(transport: Transport) throws {
        let device = try Device(transport)
        defer { device.stop() }
        let common = "\"attempts\":1"
        let target = "\"target\":\"\(device.label)\""
        let cases: [([String], String)] = [
            (
                ["os", "bootloader-info"],
                "{\(common),\"bootloader\":\"MCUboot\",\"command\":\"os bootloader-info\",\"event\":\"result\","
                    + "\"mode\":1,\"mode_name\":\"swap-using-scratch\",\"no_downgrade\":false,\"schema\":1,\(target),"
                    + "\"test_and_revert\":true}"
            ),
            (
                ["stat", "read", "smp_svr_stats"],
                "{\(common),\"command\":\"stat read\",\"event\":\"result\",\"fields\":[{\"name\":\"ticks\",\"value\":1}],"
                    + "\"group\":\"smp_svr_stats\",\"schema\":1,\(target)}"
            ),
            (
                ["settings", "read", "app/count"],
                "{\(common),\"command\":\"settings read\",\"event\":\"result\",\"name\":\"app/count\",\"schema\":1,"
                    + "\(target),\"value_hex\":\"2a\"}"
            ),
            (
                ["fs", "status", "/lfs/hello.txt"],
                "{\(common),\"command\":\"fs status\",\"event\":\"result\",\"length\":37,\"path\":\"/lfs/hello.txt\","
                    + "\"schema\":1,\(target)}"
            ),
            (
                ["enum"],
                "{\(common),\"command\":\"enum\",\"event\":\"result\",\"groups\":["
                    + [
                        (0, "os mgmt", 9), (1, "img mgmt", 6), (2, "stat mgmt", 2), (3, "settings mgmt", 4),
                        (8, "fs mgmt", 5), (9, "shell mgmt", 1), (10, "enum mgmt", 4), (63, "zephyr basic mgmt", 1),
                    ]
                    .map { "{\"handlers\":\($0.2),\"id\":\($0.0),\"name\":\"\($0.1)\"}" }.joined(separator: ",")
                    + "],\"schema\":1,\(target)}"
            ),
            (
                ["os", "taskstat"],
                "{\(common),\"command\":\"os taskstat\",\"event\":\"result\",\"schema\":1,\(target),\"tasks\":["
                    + [
                        ("idle", 15, 0, 80, 16), ("logging", 14, 1, 192, 80), ("main", 0, 2, 512, 220),
                        ("smp_work", 7, 3, 528, 300), ("sysworkq", -1, 4, 256, 96),
                    ]
                    .map {
                        "{\"id\":\($0.2),\"name\":\"\($0.0)\",\"priority\":\($0.1),\"runtime\":0,\"stack_size\":\($0.3),"
                            + "\"stack_used\":\($0.4),\"state\":0}"
                    }.joined(separator: ",") + "]}"
            ),
        ]
        for (verb, expected) in cases {
            let result = nrfloader(verb + device.options + ["--json"])
            #expect(result.status == 0, "\(verb): \(result.stderrText)")
            #expect(result.stdoutText == expected + "\n", "\(verb)")
        }
        let shell = nrfloader(["shell", "exec"] + device.options + ["--json", "--", "echo", "a\u{1b}b"])
        #expect(
            shell.stdoutText
                == "{\"argv\":[\"echo\",\"a\\u001bb\"],\(common),\"command\":\"shell exec\",\"event\":\"result\","
                + "\"output\":\"a\\u001bb\\r\\n\",\"schema\":1,\"status\":0,\(target)}\n")
    }

    @Test("state that lasts between runs: the clock, settings saved and loaded, the storage erased")
    func stateful() throws {
        for transport in [Transport.serial, .udp] {
            let device = try Device(transport)
            defer { device.stop() }
            func run(_ verb: [String]) -> ProcessResult { nrfloader(verb + device.options) }
            var result = run(["os", "datetime"])
            #expect(result.status == 76)
            #expect(
                result.stderrText
                    == "Error: device refused os datetime: rc 4 (OS_MGMT_ERR_RTC_NOT_SET: RTC is not set)\n")
            result = run(["os", "datetime", "set", "2026-11-27T12:34:56"])
            #expect(result.stdoutText == "device clock set to 2026-11-27T12:34:56\n", "\(result.stderrText)")
            #expect(run(["os", "datetime", "get"]).stdoutText == "2026-11-27T12:34:56\n")
            result = run(["os", "datetime", "set", "2026-13-01T00:00:00"])
            #expect(
                result.stderrText
                    == "Error: device refused os datetime set: rc 3 (MGMT_ERR_EINVAL: error in input value)\n")

            #expect(run(["settings", "write", "app/greeting", "hi"]).stdoutText == "app/greeting set (2 bytes)\n")
            #expect(run(["settings", "read", "app/greeting", "--text"]).stdoutText == "hi\n")
            // load brings back what storage holds; save stores the running value.
            #expect(run(["settings", "load"]).stdoutText == "settings loaded from storage\n")
            #expect(run(["settings", "read", "app/greeting", "--text"]).stdoutText == "hello\n")
            #expect(run(["settings", "write", "app/greeting", "0102ff", "--hex"]).status == 0)
            #expect(run(["settings", "save"]).stdoutText == "settings saved to storage\n")
            #expect(run(["settings", "write", "app/greeting", "x"]).status == 0)
            #expect(run(["settings", "load"]).status == 0)
            #expect(run(["settings", "read", "app/greeting"]).stdoutText == "0102ff\n")
            #expect(run(["settings", "commit"]).stdoutText == "settings committed\n")
            // Erased storage has nothing to load: the running value stays.
            #expect(run(["storage-erase"]).status == 0)
            #expect(run(["settings", "write", "app/greeting", "zz"]).status == 0)
            #expect(run(["settings", "load"]).status == 0)
            #expect(run(["settings", "read", "app/greeting", "--text"]).stdoutText == "zz\n")
            #expect(run(["settings", "delete", "app/greeting"]).stdoutText == "app/greeting deleted\n")
            #expect(run(["stat", "read", "smp_svr_stats"]).stdoutText == "FIELD  VALUE\nticks      1\n")
            #expect(run(["stat", "read", "smp_svr_stats"]).stdoutText == "FIELD  VALUE\nticks      2\n")
        }
    }

    @Test("a device built without a group answers rc 8 for each of its commands, and enum leaves it out")
    func groupLeftOut() throws {
        let device = try Device(.udp, ["--without-group", "2", "--without-group", "63"])
        defer { device.stop() }
        for (verb, request) in [(["stat", "list"], "stat list"), (["storage-erase"], "storage erase")] {
            let result = nrfloader(verb + device.options)
            #expect(result.status == 76, "\(verb)")
            #expect(
                result.stderrText
                    == "Error: device refused \(request): rc 8 (MGMT_ERR_ENOTSUP: command not supported)\n", "\(verb)")
        }
        let groups = nrfloader(["enum"] + device.options)
        #expect(
            groups.stdoutText == """
                GROUP  NAME           HANDLERS
                    0  os mgmt               9
                    1  img mgmt              6
                    3  settings mgmt         4
                    8  fs mgmt               5
                    9  shell mgmt            1
                   10  enum mgmt             4

                """)
    }
}
