/// Finds named columns in a CSV header.
struct HeaderColumns {
    let header: [String]
    let path: String
    let format: RecordingFormat

    /// The 0-based index of column `name`.
    /// - Throws: `RecordingError.missingColumn` on line 1.
    func index(_ name: String) throws(RecordingError) -> Int {
        guard let index = header.firstIndex(of: name) else {
            throw RecordingError(
                .missingColumn,
                "the header has no column \"\(name)\", which a \(format.summary) needs. "
                    + "To fix, restore the header as the recording app wrote it",
                path: path, line: 1)
        }
        return index
    }

    /// The 0-based indices of columns `names`, in order.
    func indices(_ names: [String]) throws(RecordingError) -> [Int] {
        var result: [Int] = []
        for name in names { result.append(try index(name)) }
        return result
    }

    /// The 0-based index of column `name`, or `nil` when absent.
    func optionalIndex(_ name: String) -> Int? { header.firstIndex(of: name) }
}

/// Standard gravity, m/s² per g (the value Android's Gravity sensor and Sensor Logger use).
let standardGravity = 9.80665
