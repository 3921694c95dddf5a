import ArgumentParser
import NRFLoaderKit

/// Options every command shares.
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print the result as JSON on stdout (one object; upload prints JSON Lines).")
    var json = false

    @Flag(name: .shortAndLong, help: "Print nothing on stderr but errors.")
    var quiet = false
}
