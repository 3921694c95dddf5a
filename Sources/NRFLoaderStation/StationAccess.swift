import Hummingbird
import NRFLoaderKit

/// Who may use the station: the token, the origin of state-changing requests, and the Host a request names.
struct StationAccess: Sendable {
    /// The cookie the page carries the token in, once a `?token=` link has set it.
    static let cookieName = "nrfloader_token"

    let token: String?
    let isLoopback: Bool

    /// Why a request is refused, or `nil` to serve it.
    func refusal(of request: Request) -> StationFailure? {
        let host = request.head.authority ?? ""
        if token == nil && !Self.isLoopbackAuthority(host) {
            // A loopback station without a token answers loopback names only: a page of another site that resolves
            // its own name to 127.0.0.1 (DNS rebinding) reaches nothing.
            return StationFailure(
                status: .forbidden, message: "host '\(host)' is not this station's loopback address",
                exitStatus: .usage)
        }
        if let token, !Self.constantTimeEqual(presentedToken(request) ?? "", token) {
            return StationFailure(
                status: .unauthorized,
                message: "this station needs its token: an 'Authorization: Bearer TOKEN' header, or open the page "
                    + "once as /?token=TOKEN",
                exitStatus: .usage)
        }
        if request.method != .get && request.method != .head {
            if request.headers.value(named: "sec-fetch-site") == "cross-site" {
                return StationFailure(
                    status: .forbidden, message: "cross-site request refused", exitStatus: .usage)
            }
            // The page's own origin: http, or https behind a TLS-terminating proxy that keeps the Host.
            if let origin = request.headers[.origin], origin != "http://\(host)", origin != "https://\(host)" {
                return StationFailure(
                    status: .forbidden, message: "origin '\(origin)' is not this station: request refused",
                    exitStatus: .usage)
            }
        }
        return nil
    }

    /// The token a request carries: a bearer token, the cookie, or the `token` query parameter.
    func presentedToken(_ request: Request) -> String? {
        if let authorization = request.headers[.authorization], authorization.hasPrefix("Bearer ") {
            return String(authorization.dropFirst(7))
        }
        for cookie in request.headers[values: .cookie].flatMap({ $0.split(separator: ";") }) {
            let pair = cookie.drop { $0 == " " }
            if pair.hasPrefix(Self.cookieName + "=") { return String(pair.dropFirst(Self.cookieName.count + 1)) }
        }
        return request.uri.queryParameters["token"].map(String.init)
    }

    /// The `Set-Cookie` value that keeps the token for the page's later requests.
    func cookie(for request: Request) -> String? {
        guard let token, request.uri.queryParameters["token"] != nil else { return nil }
        return "\(Self.cookieName)=\(token); Path=/; HttpOnly; SameSite=Strict"
    }

    private static func isLoopbackAuthority(_ authority: String) -> Bool {
        var host = Substring(authority)
        if host.hasPrefix("[") {
            host = host.dropFirst().prefix { $0 != "]" }
        } else if let colon = host.lastIndex(of: ":") {
            host = host[..<colon]
        }
        var configuration = StationConfiguration()
        configuration.host = String(host)
        return configuration.isLoopback
    }

    private static func constantTimeEqual(_ presented: String, _ expected: String) -> Bool {
        let left = Array(presented.utf8)
        let right = Array(expected.utf8)
        var difference = left.count ^ right.count
        for index in 0..<right.count {
            difference |= Int((index < left.count ? left[index] : 0) ^ right[index])
        }
        return difference == 0
    }
}

/// A request the station refuses: the HTTP status, and the message and exit status the command line would give.
struct StationFailure: Error, Sendable {
    let status: HTTPResponse.Status
    let message: String
    let exitStatus: ExitStatus

    /// A failure of the library, at the HTTP status its exit status maps to.
    init(_ error: UpdateError) {
        status = HTTPResponse.Status(code: HTTPStatusMapping.status(for: error.exitStatus))
        message = error.message
        exitStatus = error.exitStatus
    }

    init(status: HTTPResponse.Status, message: String, exitStatus: ExitStatus) {
        self.status = status
        self.message = message
        self.exitStatus = exitStatus
    }

    /// The body: the `error` object `nrfloader --json` ends with.
    var body: JSONValue {
        UpdateJSONLines.errorObject(message: message, exitStatus: exitStatus.rawValue)
    }
}

extension HTTPFields {
    /// The first value of the field named `canonicalName` (lowercase), for names HTTPTypes has no constant for
    /// (`sec-fetch-site`, `last-event-id`).
    func value(named canonicalName: String) -> String? {
        first { $0.name.canonicalName == canonicalName }?.value
    }
}
