import BlueZ
import NRFLoaderKit
import PackageBuilder

extension ExitStatus {
    /// The status for an error that reached the top of a command: the library's own mapping, then the command
    /// line's own errors.
    init(for error: any Error) {
        if let status = ExitStatus.of(error) {
            self = status
            return
        }
        switch error {
        case let error as PackageBuilderError: self = error.isUsage ? .usage : .dataError
        case is FleetTargetListError: self = .usage
        case is BlueZError: self = .unavailable
        default: self = .software
        }
    }

}
