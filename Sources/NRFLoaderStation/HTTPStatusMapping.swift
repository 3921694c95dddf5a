import NRFLoaderKit

/// How the command line's exit statuses map to HTTP statuses.
///
/// The mapping serves a request that fails the way a command would (a bad firmware file), and a job's result
/// (`GET /api/jobs/{id}/result`). docs/serve.md has the table.
enum HTTPStatusMapping {
    /// The HTTP status for `status`.
    static func status(for status: ExitStatus) -> Int {
        switch status {
        case .success: 200
        case .usage: 400
        case .dataError: 422
        case .noInput: 404
        case .unavailable: 503
        case .software, .cannotCreate, .ioError: 500
        case .temporaryFailure: 504
        case .protocolError: 502
        case .interrupted: 409
        }
    }
}
