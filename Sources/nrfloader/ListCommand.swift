import ArgumentParser
import NRFLoaderKit

/// `nrfloader list`: the firmware catalog.
struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the firmware images in the catalog (embedded, plus --catalog FILE).",
        discussion: "Every image is verified against the catalog's size and SHA-256 before it is listed."
    )

    @OptionGroup var catalogOptions: CatalogOptions
    @OptionGroup var outputOptions: OutputOptions

    func run() throws {
        let items = try catalogOptions.load()
        if outputOptions.json {
            Console.json(.object(["schema": .int(JSONValue.schemaVersion), "firmware": .array(items.map(\.json))]))
            return
        }
        let header = ["ID", "TITLE", "VERSION", "BOARD", "TYPE", "PROTOCOL", "SIZE"]
        let rows = items.map { item in
            [
                item.id, item.title, item.version, item.boards.joined(separator: ","), item.imageType,
                item.protocolList, String(item.size),
            ]
        }
        Console.result(table([header] + rows, rightAligned: [6]))
    }
}

/// Rows as columns separated by two spaces, every cell escaped for the terminal; the columns in `rightAligned` are
/// padded on the left.
func table(_ rows: [[String]], rightAligned: Set<Int> = []) -> String {
    guard let columns = rows.first?.count else { return "" }
    // Cells may hold outside text (catalog titles, device names): escaped before their widths are measured.
    let rows = rows.map { $0.map(\.escapedForTerminal) }
    let widths = (0..<columns).map { column in rows.map { $0[column].count }.max() ?? 0 }
    return rows.map { row in
        row.enumerated().map { column, cell in
            rightAligned.contains(column) ? cell.leftPadded(to: widths[column]) : cell.padding(to: widths[column])
        }.joined(separator: "  ").trimmingTrailingSpaces()
    }.joined(separator: "\n")
}

extension String {
    fileprivate func trimmingTrailingSpaces() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
