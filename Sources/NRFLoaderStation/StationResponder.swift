import FoundationEssentials
import Hummingbird
import NRFLoaderKit

/// Answers every request: the page, its files, the OpenAPI document, and the API (docs/serve.md lists the routes).
struct StationResponder: HTTPResponder {
    typealias Context = BasicRequestContext

    let access: StationAccess
    let devices: DeviceDirectory
    let firmware: FirmwareLibrary
    let jobs: JobBoard
    let updateOptions: UpdateOptions
    let maximumUploadBytes: Int

    func respond(to request: Request, context: Context) async throws -> Response {
        if let refusal = access.refusal(of: request) { return Self.failure(refusal) }
        do {
            var response = try await route(request)
            if let cookie = access.cookie(for: request) { response.headers[.setCookie] = cookie }
            return response
        } catch let failure as StationFailure {
            return Self.failure(failure)
        } catch let error as UpdateError {
            return Self.failure(StationFailure(error))
        } catch {
            // Reading the request failed (the client went away, or sent a malformed body).
            return Self.failure(
                StationFailure(status: .badRequest, message: "cannot read the request: \(error)", exitStatus: .usage))
        }
    }

    private func route(_ request: Request) async throws -> Response {
        guard let route = StationRoute(request.uri.path) else {
            throw StationFailure(status: .notFound, message: "no such page: \(request.uri.path)", exitStatus: .usage)
        }
        switch (request.method, route) {
        case (.get, .asset(let name, let type)): return Self.asset(name, type: type)
        case (.get, .catalog): return Self.json(firmware.catalogJSON)
        case (.get, .devices): return devicesResponse()
        case (.post, .firmware): return try await upload(request)
        case (.get, .firmware):
            return Self.json(
                .object([
                    "schema": .int(JSONValue.schemaVersion),
                    "firmware": .array(firmware.uploadedEntries.map(Self.firmwareJSON)),
                ]))
        case (.get, .firmwareEntry(let id)):
            guard let entry = try firmware.entry(id: id) else { throw Self.unknownFirmware(id) }
            return Self.json(Self.firmwareJSON(entry))
        case (.post, .jobs): return try await startJobs(request)
        case (.get, .jobs):
            let now = jobs.now
            return Self.json(
                .object(["schema": .int(JSONValue.schemaVersion), "jobs": .array(jobs.all().map { $0.json(now: now) })])
            )
        case (.get, .job(let id)): return Self.json(try job(id).json(now: jobs.now))
        case (.post, .cancel(let id)):
            let job = try job(id)
            guard !job.isEnded else {
                throw StationFailure(
                    status: .conflict, message: "job \(job.id) has already ended (\(job.state.rawValue))",
                    exitStatus: .usage)
            }
            _ = jobs.cancel(job.id)
            return Self.json(job.json(now: jobs.now), status: .accepted)
        case (.get, .events(let id)): return try events(of: job(id).id, request: request)
        case (.get, .result(let id)):
            let id = try job(id).id
            await jobs.waitForEnd(id)
            guard let ended = jobs.job(id), let status = ended.exitStatus else { throw Self.unknownJob("\(id)") }
            return Self.jsonText(
                ended.lines.last ?? "{}", status: HTTPResponse.Status(code: HTTPStatusMapping.status(for: status)))
        default:
            var response = Self.failure(
                StationFailure(
                    status: .methodNotAllowed, message: "\(request.method) is not allowed on \(request.uri.path)",
                    exitStatus: .usage))
            response.headers[.allow] = route.allowedMethods
            return response
        }
    }

    // MARK: API

    private func devicesResponse() -> Response {
        Self.json(
            .object([
                "schema": .int(JSONValue.schemaVersion), "devices": .array(devices.devices.map(\.json)),
                "bluetooth": devices.bluetoothJSON,
            ]))
    }

    private func upload(_ request: Request) async throws -> Response {
        let name = request.uri.queryParameters["name"].map(String.init) ?? ""
        guard !name.isEmpty, !name.contains("/") else {
            throw StationFailure(
                status: .badRequest, message: "give the file's name as ?name=FILE (such as app.zip)", exitStatus: .usage
            )
        }
        let tooLarge = StationFailure(
            status: .contentTooLarge,
            message: "'\(name)': larger than the station's upload limit of \(maximumUploadBytes) bytes",
            exitStatus: .dataError)
        if let length = request.headers[.contentLength].flatMap(Int.init), length > maximumUploadBytes {
            throw tooLarge
        }
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: maximumUploadBytes)
        } catch {
            throw tooLarge
        }
        let entry = try firmware.add(Array(buffer.readableBytesView), name: name)
        return Self.json(Self.firmwareJSON(entry), status: .created)
    }

    /// The body of `POST /api/jobs`.
    private struct JobRequest: Decodable {
        var firmware: String
        var devices: [String]
    }

    private func startJobs(_ request: Request) async throws -> Response {
        var request = request
        let body = try await request.collectBody(upTo: 64 << 10)
        let parsed: JobRequest
        do {
            parsed = try JSONDecoder().decode(JobRequest.self, from: Data(body.readableBytesView))
        } catch {
            throw StationFailure(
                status: .badRequest,
                message: "the request is not a JSON object with a \"firmware\" id and a \"devices\" array",
                exitStatus: .usage)
        }
        guard !parsed.devices.isEmpty else {
            throw StationFailure(status: .badRequest, message: "choose at least one device", exitStatus: .usage)
        }
        guard Set(parsed.devices).count == parsed.devices.count else {
            throw StationFailure(status: .badRequest, message: "a device is listed twice", exitStatus: .usage)
        }
        guard let entry = try firmware.entry(id: parsed.firmware) else { throw Self.unknownFirmware(parsed.firmware) }
        var requests: [(device: StationDevice, update: FirmwareUpdate)] = []
        for id in parsed.devices {
            guard let device = devices.device(id: id) else {
                throw StationFailure(
                    status: .notFound, message: "device '\(id)' not found (GET /api/devices lists them)",
                    exitStatus: .unavailable)
            }
            let update = FirmwareUpdate(firmware: entry.firmware, target: try device.target(), options: updateOptions)
            requests.append((device, update))
        }
        do {
            let started = try jobs.start(requests)
            let now = jobs.now
            return Self.json(
                .object(["schema": .int(JSONValue.schemaVersion), "jobs": .array(started.map { $0.json(now: now) })]),
                status: .accepted)
        } catch .busy(let device, let job) {
            throw StationFailure(
                status: .conflict, message: "device \(device) is busy with job \(job)", exitStatus: .unavailable)
        } catch .stopping {
            throw StationFailure(
                status: .serviceUnavailable, message: "the station is shutting down", exitStatus: .interrupted)
        }
    }

    private func job(_ text: String) throws(StationFailure) -> StationJob {
        guard let id = Int(text), let job = jobs.job(id) else { throw Self.unknownJob(text) }
        return job
    }

    // MARK: Responses

    private static func firmwareJSON(_ entry: FirmwareLibrary.Entry) -> JSONValue {
        guard case .object(var members) = entry.info else { return entry.info }
        members["id"] = .string(entry.id)
        return .object(members)
    }

    private static func unknownFirmware(_ id: String) -> StationFailure {
        StationFailure(
            status: .notFound, message: "unknown firmware '\(id)': not a catalog id nor a file sent to this station",
            exitStatus: .usage)
    }

    static func unknownJob(_ id: String) -> StationFailure {
        StationFailure(status: .notFound, message: "no job '\(id)'", exitStatus: .usage)
    }

    private static func asset(_ name: String, type: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.cacheControl] = "no-cache"
        headers[.contentSecurityPolicy] =
            "default-src 'self'; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'"
        headers[.xContentTypeOptions] = "nosniff"
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: StationAssetFiles.all[name] ?? [])))
    }

    private static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        jsonText(value.text, status: status)
    }

    private static func jsonText(_ text: String, status: HTTPResponse.Status) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.cacheControl] = "no-store"
        return Response(
            status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text + "\n")))
    }

    private static func failure(_ failure: StationFailure) -> Response {
        var response = json(failure.body, status: failure.status)
        if failure.status == .unauthorized { response.headers[.wwwAuthenticate] = "Bearer" }
        return response
    }
}
