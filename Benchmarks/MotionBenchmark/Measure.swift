import Foundation

/// Runs `body` `runs` times after one warm-up and returns the median wall time in seconds.
func medianSeconds(runs: Int = 7, _ body: () throws -> Void) rethrows -> Double {
    try body()
    var times: [Double] = []
    for _ in 0..<runs {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
    times.sort()
    return times[times.count / 2]
}

/// A table printed with aligned columns.
struct Table {
    var header: [String]
    var rows: [[String]] = []

    mutating func add(_ row: [String]) { rows.append(row) }

    func render() -> String {
        let widths = header.indices.map { i in ([header[i]] + rows.map { $0[i] }).map(\.count).max() ?? 0 }
        func line(_ cells: [String]) -> String {
            "| " + cells.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(separator: " | ") + " |"
        }
        return ([line(header), "|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|"] + rows.map(line))
            .joined(separator: "\n")
    }
}

func format(_ value: Double, _ digits: Int = 0) -> String { String(format: "%.\(digits)f", value) }
