import NRFLoaderKit
import NRFLoaderSimulator
import NRFLoaderStation
import Testing

@Suite(.serialized)
struct StationTests {
    @Test func servesThePageItsFilesAndTheOpenAPIDocument() async throws {
        let running = try await RunningStation.start()
        defer { Task { try await running.stop() } }
        let page = try running.client.get("/")
        #expect(page.status == 200)
        #expect(page.header("Content-Type") == "text/html; charset=utf-8")
        #expect(page.text.contains("<button id=\"update\" type=\"button\">Update</button>"))
        #expect(page.text.contains("<label for=\"firmware\">Firmware</label>"))
        #expect(page.text.contains("<label for=\"firmware-file\">Firmware file</label>"))
        #expect(try running.client.get("/station.js").text.contains("role: \"progressbar\""))
        let openAPI = try running.client.get("/api/openapi.json")
        #expect(openAPI.status == 200)
        #expect(openAPI.text.hasPrefix("{\n \"openapi\": \"3.0.3\""))
        #expect(try running.client.get("/nothing").status == 404)
        let delete = try running.client.request("DELETE", "/api/jobs")
        #expect(delete.status == 405)
        #expect(delete.header("Allow") == "GET, POST")
        #expect(try running.client.request("GET", "/api/jobs/1/cancel").header("Allow") == "POST")
    }

    @Test func listsTheCatalogAndTheSimulatedDevices() async throws {
        let running = try await RunningStation.start()
        defer { Task { try await running.stop() } }
        let catalog = try running.client.get("/api/catalog")
        #expect(catalog.status == 200)
        let ids = try CatalogItem.all().map(\.id)
        for id in ids { #expect(catalog.text.contains("\"id\":\"\(id)\"")) }
        let devices = try running.client.get("/api/devices")
        #expect(
            devices.text
                == "{\"bluetooth\":{\"message\":null,\"state\":\"off\"},\"devices\":["
                + "{\"id\":\"sim-1\",\"label\":\"sim\",\"name\":\"simulated Secure DFU bootloader\","
                + "\"protocols\":[\"dfu\"],\"rssi\":null,\"transport\":\"simulated\"},"
                + "{\"id\":\"sim-2\",\"label\":\"sim #2\",\"name\":\"simulated Secure DFU bootloader\","
                + "\"protocols\":[\"dfu\"],\"rssi\":null,\"transport\":\"simulated\"},"
                + "{\"id\":\"sim-3\",\"label\":\"sim:smp\",\"name\":\"simulated Zephyr device with MCUboot (SMP)\","
                + "\"protocols\":[\"smp\"],\"rssi\":null,\"transport\":\"simulated\"}],\"schema\":1}\n")
    }

    @Test func updatesTwoDevicesAndStreamsUploadJSONLines() async throws {
        let running = try await RunningStation.start()
        defer { Task { try await running.stop() } }
        let started = try running.client.post(
            "/api/jobs", json: #"{"firmware":"blinky-pca10040","devices":["sim-1","sim-2"]}"#)
        #expect(started.status == 202)
        #expect(started.text.contains("\"id\":1,") && started.text.contains("\"id\":2,"))
        for id in [1, 2] {
            let job = try await running.waitForJob(id)
            #expect(job.contains("\"state\":\"confirmed\""))
            #expect(job.contains("\"exit_status\":0,\"firmware\":\"blinky-pca10040\",\"http_status\":200"))
            #expect(job.contains("confirmed by the device"))
        }
        // The event stream: upload --json's lines, as the library's UpdateJSONLines makes them for the same update.
        let stream = try running.client.get("/api/jobs/1/events")
        #expect(stream.header("Content-Type") == "text/event-stream")
        let lines = stream.text.split(separator: "\n\n").map { frame in
            String(frame.split(separator: "\n")[1].dropFirst("data: ".count))
        }
        let target = try SimulatedTarget(
            .secure,
            options: {
                var options = SimulatedDeviceOptions()
                options.speed = 0
                options.name = "sim"
                return options
            }())
        var expected: [String] = []
        var renderer = UpdateJSONLines()
        let clock = ContinuousClock()
        _ = try await FirmwareUpdate(firmware: try Firmware("blinky-pca10040"), target: target.target).run { event in
            expected += renderer.objects(for: event, at: clock.now).map(\.text)
        }
        // Progress objects are thinned by time, and the result carries the elapsed time: the rest is byte for byte.
        let steady = { (lines: [String]) in
            lines.filter { !$0.contains("\"event\":\"progress\"") && !$0.contains("\"event\":\"result\"") }
        }
        #expect(steady(lines) == steady(expected))
        #expect(lines.last?.contains("\"event\":\"result\"") == true)
        #expect(stream.text.hasPrefix("id: 0\ndata: {"))
        // A reconnection after the end gets 204, which stops an EventSource.
        let again = try running.client.get("/api/jobs/1/events", headers: [("Last-Event-ID", "\(lines.count - 1)")])
        #expect(again.status == 204)
        let result = try running.client.get("/api/jobs/2/result")
        #expect(result.status == 200)
        #expect(result.text.contains("\"event\":\"result\""))
        let history = try running.client.get("/api/jobs")
        #expect(history.text.hasPrefix("{\"jobs\":[{") && history.text.contains("\"id\":2,"))
    }

    @Test func updatesTheSimulatedSMPDevice() async throws {
        let running = try await RunningStation.start()
        defer { Task { try await running.stop() } }
        let started = try running.client.post(
            "/api/jobs", json: #"{"firmware":"selftest-nrf52840dk-mcuboot","devices":["sim-3"]}"#)
        #expect(started.status == 202)
        let job = try await running.waitForJob(1)
        #expect(job.contains("\"state\":\"confirmed\""))
        #expect(job.contains("\"device_label\":\"sim:smp\""))
    }

    @Test func refusesABadFileWithTheCommandLinesMessageAndKeepsServing() async throws {
        let running = try await RunningStation.start()
        defer { Task { try await running.stop() } }
        let corrupt: [UInt8] = Array("PK\u{3}\u{4}not really a zip".utf8)
        let answer = try running.client.post("/api/firmware?name=corrupt.zip", body: corrupt)
        var message = ""
        do {
            // As upload checks it: loaded, then its init packets made and checked.
            _ = try Firmware(bytes: corrupt, name: "corrupt.zip").dfuParts()
        } catch {
            message = error.message
            #expect(error.exitStatus == .dataError)
        }
        #expect(answer.status == 422)
        #expect(
            answer.text
                == UpdateJSONLines.errorObject(message: message, exitStatus: ExitStatus.dataError.rawValue).text + "\n")
        #expect(try running.client.post("/api/firmware", body: [1, 2, 3]).status == 400)
        #expect(try running.client.post("/api/jobs", json: "{not json").status == 400)
        #expect(
            try running.client.post("/api/jobs", json: #"{"firmware":"/etc/passwd","devices":["sim-1"]}"#).status == 404
        )
        #expect(
            try running.client.post("/api/jobs", json: #"{"firmware":"blinky-pca10040","devices":["nope"]}"#).status
                == 404)
        #expect(try running.client.get("/api/jobs/99").status == 404)
        #expect(try running.client.get("/api/catalog").status == 200)
    }

    @Test func takesAGoodFileAndShowsItsInfo() async throws {
        let bytes = try #require(EmbeddedTestFile.blinkyHex)
        // Without --sd-req a HEX file fails as `upload app.hex` does.
        let strict = try await RunningStation.start()
        let refused = try strict.client.post("/api/firmware?name=blinky.hex", body: bytes)
        try await strict.stop()
        #expect(refused.status == 400)
        #expect(refused.text.contains("\"exit_status\":64,\"message\":\"blinky.hex: a Secure DFU init packet names"))
        let running = try await RunningStation.start { $0.firmwareOptions.softDeviceRequirements = [0x0101] }
        defer { Task { try await running.stop() } }
        let answer = try running.client.post("/api/firmware?name=blinky.hex", body: bytes)
        #expect(answer.status == 201)
        #expect(answer.text.contains("\"id\":\"upload-1\",\"name\":\"blinky.hex\""))
        #expect(answer.text.contains("\"parts\":[{\"init_packet_size\":"))
        #expect(try running.client.get("/api/firmware/upload-1").text == answer.text)
        #expect(
            try running.client.get("/api/firmware").text
                == "{\"firmware\":[\(answer.text.dropLast())],\"schema\":1}\n")
        let started = try running.client.post("/api/jobs", json: #"{"firmware":"upload-1","devices":["sim-2"]}"#)
        #expect(started.status == 202)
        #expect(try await running.waitForJob(1).contains("\"state\":\"confirmed\""))
    }

    @Test(arguments: [
        ("Tests/Data/packages/nrfutil617-blinky-signed.zip", "dfu", "\"type\":\"application\""),
        ("Resources/firmware/selftest-nrf52840dk-mcuboot.bin", "smp", "\"mcuboot\":{"),
        ("Tests/Data/mcuboot/ncs/dfu_application.zip", "smp", "\"parts\":[{\"init_packet_size\":0,\"size\":"),
    ])
    func takesEveryKindOfFirmwareFile(path: String, updateProtocol: String, detail: String) async throws {
        let running = try await RunningStation.start()
        defer { Task { try await running.stop() } }
        let bytes = try #require(EmbeddedTestFile.repositoryFile(path))
        let name = String(path.split(separator: "/").last ?? "")
        let answer = try running.client.post("/api/firmware?name=\(name)", body: bytes)
        #expect(answer.status == 201, "\(answer.text)")
        #expect(answer.text.contains("\"protocol\":\"\(updateProtocol)\""))
        #expect(answer.text.contains(detail), "\(answer.text)")
        #expect(answer.text.contains("\"size\":\(bytes.count)"))
        let device = updateProtocol == "smp" ? "sim-3" : "sim-1"
        let started = try running.client.post(
            "/api/jobs", json: #"{"firmware":"upload-1","devices":[""# + device + #""]}"#)
        #expect(started.status == 202)
        #expect(try await running.waitForJob(1).contains("\"state\":\"confirmed\""))
    }

    @Test func keepsTheLastEndedJobs() async throws {
        let running = try await RunningStation.start { $0.keptEndedJobs = 2 }
        defer { Task { try await running.stop() } }
        for id in 1...3 {
            let started = try running.client.post(
                "/api/jobs", json: #"{"firmware":"blinky-pca10040","devices":["sim-1"]}"#)
            #expect(started.status == 202)
            _ = try await running.waitForJob(id)
        }
        #expect(try running.client.get("/api/jobs/1").status == 404)
        #expect(try running.client.get("/api/jobs/2").status == 200)
        let history = try running.client.get("/api/jobs").text
        #expect(history.hasPrefix("{\"jobs\":[{\"device\":\"sim-1\""))
        #expect(history.contains("\"id\":3,") && history.contains("\"id\":2,") && !history.contains("\"id\":1,"))
    }

    @Test func limitsUploads() async throws {
        let running = try await RunningStation.start { $0.maximumUploadBytes = 100 }
        defer { Task { try await running.stop() } }
        let answer = try running.client.post("/api/firmware?name=big.bin", body: [UInt8](repeating: 0, count: 5000))
        #expect(answer.status == 413)
        #expect(answer.text.contains("larger than the station's upload limit of 100 bytes"))
        #expect(try running.client.get("/api/catalog").status == 200)
    }

    @Test func refusesASecondJobOnABusyDeviceAndCancelsLikeControlC() async throws {
        let running = try await RunningStation.start { $0.simulatorOptions.speed = 1 }
        defer { Task { try await running.stop() } }
        let first = try running.client.post("/api/jobs", json: #"{"firmware":"blinky-pca10040","devices":["sim-1"]}"#)
        #expect(first.status == 202)
        let second = try running.client.post(
            "/api/jobs", json: #"{"firmware":"blinky-pca10040","devices":["sim-2","sim-1"]}"#)
        #expect(second.status == 409)
        #expect(second.text.contains("\"message\":\"device sim is busy with job 1\""))
        // All or none: sim-2 got no job.
        #expect(try running.client.get("/api/jobs/2").status == 404)
        let cancel = try running.client.post("/api/jobs/1/cancel")
        #expect(cancel.status == 202)
        let job = try await running.waitForJob(1)
        #expect(job.contains("\"state\":\"cancelled\""))
        #expect(job.contains("\"exit_status\":130"))
        let result = try running.client.get("/api/jobs/1/result")
        #expect(result.status == 409)
        #expect(result.text.contains("\"event\":\"error\",\"exit_status\":130"))
        #expect(try running.client.post("/api/jobs/1/cancel").status == 409)
    }

    @Test func needsItsTokenForEveryRequest() async throws {
        let running = try await RunningStation.start { $0.token = "s3cret" }
        defer { Task { try await running.stop() } }
        for path in ["/", "/station.js", "/api/openapi.json", "/api/catalog", "/api/jobs", "/api/devices"] {
            #expect(try running.client.get(path).status == 401)
            #expect(try running.client.get(path, headers: [("Authorization", "Bearer wrong")]).status == 401)
            #expect(try running.client.get(path, headers: [("Authorization", "Bearer s3cret")]).status == 200)
        }
        #expect(try running.client.post("/api/jobs", json: "{}").status == 401)
        let page = try running.client.get("/?token=s3cret")
        #expect(page.status == 200)
        #expect(page.header("Set-Cookie") == "nrfloader_token=s3cret; Path=/; HttpOnly; SameSite=Strict")
        #expect(try running.client.get("/api/jobs", headers: [("Cookie", "nrfloader_token=s3cret")]).status == 200)
    }

    @Test func refusesToServeOffLoopbackWithoutAToken() throws {
        var configuration = StationConfiguration()
        configuration.host = "0.0.0.0"
        #expect(throws: UpdateError.self) { try Station(configuration: configuration) }
        do {
            _ = try Station(configuration: configuration)
        } catch {
            #expect(error.exitStatus == .usage)
            #expect(error.message.hasPrefix("0.0.0.0 is not a loopback address"))
        }
        configuration.token = "secret"
        configuration.scansBluetooth = false
        #expect(throws: Never.self) { try Station(configuration: configuration) }
        for host in ["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost"] {
            configuration.host = host
            #expect(configuration.isLoopback, "\(host)")
        }
        for host in ["0.0.0.0", "192.168.1.2", "::", "example.com", "127.0.0.256"] {
            configuration.host = host
            #expect(!configuration.isLoopback, "\(host)")
        }
    }

    @Test func refusesStateChangesFromAnotherOrigin() async throws {
        let running = try await RunningStation.start()
        defer { Task { try await running.stop() } }
        let body = #"{"firmware":"blinky-pca10040","devices":["sim-1"]}"#
        let foreign = try running.client.post("/api/jobs", json: body, headers: [("Origin", "http://evil.example")])
        #expect(foreign.status == 403)
        #expect(foreign.text.contains("origin 'http://evil.example' is not this station"))
        let crossSite = try running.client.post("/api/jobs", json: body, headers: [("Sec-Fetch-Site", "cross-site")])
        #expect(crossSite.status == 403)
        // Another name for 127.0.0.1 (DNS rebinding) reaches nothing.
        #expect(try running.client.get("/api/jobs", headers: [("Host", "evil.example:80")]).status == 403)
        #expect(try running.client.get("/api/jobs").text == "{\"jobs\":[],\"schema\":1}\n")
        let own = try running.client.post(
            "/api/jobs", json: body, headers: [("Origin", "http://127.0.0.1:\(running.client.port)")])
        #expect(own.status == 202)
        _ = try await running.waitForJob(1)
    }

    @Test func stopAbortsRunningJobsCleanly() async throws {
        let running = try await RunningStation.start { $0.simulatorOptions.speed = 1 }
        _ = try running.client.post("/api/jobs", json: #"{"firmware":"blinky-pca10040","devices":["sim-1","sim-2"]}"#)
        let job = try running.client.get("/api/jobs/1")
        #expect(job.text.contains("\"state\":\"running\""))
        let aborted = await running.station.stop()
        #expect(aborted == 2)
        try await running.task.value
    }
}
