import ArgumentParser
import NRFLoaderKit

/// Reports a usage mistake that only `run()` can see (an option combination or value the parser let through) as
/// `Error: MESSAGE`, without ArgumentParser's usage text, and returns the exit code to throw: 64.
///
/// - Parameter message: The message, naming the option.
/// - Returns: The exit code that ends the command.
func usageFailure(_ message: String) -> ExitCode {
    Console.reportError(message, status: ExitStatus.usage.rawValue, json: false)
    return ExitCode(ExitStatus.usage.rawValue)
}
