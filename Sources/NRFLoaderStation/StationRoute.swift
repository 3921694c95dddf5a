/// What a path of the station names: a file of the page, or an API resource.
enum StationRoute {
    case asset(name: String, type: String)
    case catalog
    case devices
    case firmware
    case firmwareEntry(String)
    case jobs
    case job(String)
    case cancel(String)
    case events(String)
    case result(String)

    /// The methods the path takes, for a 405's `Allow` header.
    var allowedMethods: String {
        switch self {
        case .asset, .catalog, .devices, .firmwareEntry, .job, .events, .result: "GET"
        case .cancel: "POST"
        case .firmware, .jobs: "GET, POST"
        }
    }

    init?(_ path: String) {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        switch parts.count {
        case 1:
            switch parts[0] {
            case "", "index.html": self = .asset(name: "index.html", type: "text/html; charset=utf-8")
            case "station.css": self = .asset(name: "station.css", type: "text/css; charset=utf-8")
            case "station.js": self = .asset(name: "station.js", type: "text/javascript; charset=utf-8")
            default: return nil
            }
        case 2 where parts[0] == "api":
            switch parts[1] {
            case "openapi.json": self = .asset(name: "openapi.json", type: "application/json")
            case "catalog": self = .catalog
            case "devices": self = .devices
            case "firmware": self = .firmware
            case "jobs": self = .jobs
            default: return nil
            }
        case 3 where parts[0] == "api" && parts[1] == "firmware": self = .firmwareEntry(parts[2])
        case 3 where parts[0] == "api" && parts[1] == "jobs": self = .job(parts[2])
        case 4 where parts[0] == "api" && parts[1] == "jobs":
            switch parts[3] {
            case "cancel": self = .cancel(parts[2])
            case "events": self = .events(parts[2])
            case "result": self = .result(parts[2])
            default: return nil
            }
        default: return nil
        }
    }
}
