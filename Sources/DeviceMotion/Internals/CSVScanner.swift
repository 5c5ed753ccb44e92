import FoundationEssentials
import Glibc
import MotionFiles

/// Splits a text file into lines and comma-separated fields, and parses numbers in place with `strtod`.
///
/// The only place in the module that calls a C function. Fields are byte ranges into the file; quoting is
/// not supported (none of the recording formats quote). A UTF-8 byte-order mark, `\r\n` line ends and blank
/// lines are tolerated.
struct CSVScanner {
    let path: String
    /// The file's bytes followed by one NUL, so `strtod` always stops inside the buffer.
    private let bytes: [UInt8]
    private var position: Int
    /// The 1-based number of the current line (0 before the first `nextLine()`).
    private(set) var lineNumber = 0
    private var previousTimestamp = -Double.infinity
    private var starts: [Int] = []
    private var ends: [Int] = []

    /// Reads a whole file.
    /// - Throws: `RecordingError.unreadableFile`.
    init(contentsOf url: URL) throws(RecordingError) {
        let bytes: [UInt8]
        do {
            bytes = try RegularFile.read(atPath: url.path, limit: FileSizeLimit.recording, what: "the recording")
        } catch {
            throw RecordingError(.unreadableFile, error.message, path: url.path)
        }
        self.init(path: url.path, data: Data(bytes))
    }

    init(path: String, data: Data) {
        self.path = path
        var bytes = [UInt8](data)
        bytes.append(0)
        self.bytes = bytes
        position = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    }

    /// Moves to the next non-blank line and splits it into fields.
    /// - Returns: `false` at the end of the file.
    mutating func nextLine() -> Bool {
        let end = bytes.count - 1
        while position < end {
            lineNumber += 1
            let lineStart = position
            var lineEnd = lineStart
            while lineEnd < end && bytes[lineEnd] != 10 { lineEnd += 1 }
            position = lineEnd + 1
            var contentEnd = lineEnd
            if contentEnd > lineStart && bytes[contentEnd - 1] == 13 { contentEnd -= 1 }
            if contentEnd == lineStart { continue }
            starts.removeAll(keepingCapacity: true)
            ends.removeAll(keepingCapacity: true)
            var fieldStart = lineStart
            for i in lineStart..<contentEnd where bytes[i] == 44 {
                starts.append(fieldStart)
                ends.append(i)
                fieldStart = i + 1
            }
            starts.append(fieldStart)
            ends.append(contentEnd)
            return true
        }
        return false
    }

    /// The number of fields on the current line.
    var fieldCount: Int { starts.count }

    /// Field `index` (0-based) of the current line, as text.
    func text(_ index: Int) -> String {
        String(decoding: bytes[starts[index]..<ends[index]], as: UTF8.self)
    }

    /// All fields of the current line, as text.
    var texts: [String] { (0..<fieldCount).map(text) }

    /// Whether field `index` is empty.
    func isEmpty(_ index: Int) -> Bool { starts[index] == ends[index] }

    /// Throws unless the current line has exactly `count` fields.
    func expectFieldCount(_ count: Int, what: String) throws(RecordingError) {
        guard fieldCount != count else { return }
        throw RecordingError(
            .malformedRow,
            "expected \(count) comma-separated fields (\(what)), found \(fieldCount). "
                + "To fix, correct or remove this line",
            path: path, line: lineNumber, column: min(fieldCount, count) + 1)
    }

    /// Field `index` (0-based) as a finite decimal number.
    /// - Parameter name: The column's name, for the error message.
    /// - Throws: `RecordingError.malformedRow` naming the line and the 1-based column.
    func number(_ index: Int, _ name: String) throws(RecordingError) -> Double {
        guard let value = parse(index) else { throw malformed(index, name, expected: "a finite decimal number") }
        return value
    }

    /// Field `index` as a finite decimal number, or `nil` when the field is empty.
    /// - Throws: `RecordingError.malformedRow` when the field is neither empty nor a number.
    func optionalNumber(_ index: Int, _ name: String) throws(RecordingError) -> Double? {
        if isEmpty(index) { return nil }
        guard let value = parse(index) else {
            throw malformed(index, name, expected: "a finite decimal number or an empty field")
        }
        return value
    }

    /// Field `index` as a whole number (digits with an optional sign).
    /// - Throws: `RecordingError.malformedRow`.
    func integer(_ index: Int, _ name: String) throws(RecordingError) -> Int64 {
        guard let value = Int64(text(index)) else { throw malformed(index, name, expected: "a whole number") }
        return value
    }

    /// Checks that `value`, read from field `index`, is not earlier than the timestamp of the line before:
    /// samples are replayed at their timestamps, so a recording that goes back in time is malformed.
    /// - Throws: `RecordingError.malformedRow` naming the line, the column and both times.
    mutating func checkTimestamp(_ value: Double, field index: Int, _ name: String) throws(RecordingError) {
        guard value >= previousTimestamp else {
            throw RecordingError(
                .malformedRow,
                "column \(index + 1) (\(name)): the timestamp \(value) is earlier than \(previousTimestamp) on the line before; "
                    + "timestamps must not go backwards. To fix, sort the rows by time or remove this line",
                path: path, line: lineNumber, column: index + 1)
        }
        previousTimestamp = value
    }

    /// A `malformedRow` error for field `index` of the current line.
    func malformed(_ index: Int, _ name: String, expected: String) -> RecordingError {
        let found = text(index)
        let shown = found.isEmpty ? "an empty field" : "\"\(found.prefix(40))\""
        return RecordingError(
            .malformedRow,
            "column \(index + 1) (\(name)): expected \(expected), found \(shown). To fix, correct or remove this line",
            path: path, line: lineNumber, column: index + 1)
    }

    private func parse(_ index: Int) -> Double? {
        let start = starts[index]
        let end = ends[index]
        guard start < end else { return nil }
        let first = bytes[start]
        // strtod also accepts leading spaces, "nan", "inf" and hex: allow only a plain decimal start.
        guard (48...57).contains(first) || first == 45 || first == 43 || first == 46 else { return nil }
        for i in start..<end where bytes[i] == 120 || bytes[i] == 88 { return nil }  // hexadecimal "0x…"
        return unsafe bytes.withUnsafeBufferPointer { buffer -> Double? in
            guard let base = buffer.baseAddress else { return nil }
            let begin = unsafe UnsafeRawPointer(base + start).assumingMemoryBound(to: CChar.self)
            var stop: UnsafeMutablePointer<CChar>?
            let value = unsafe strtod(begin, &stop)
            guard let stop = unsafe stop, unsafe UnsafeRawPointer(stop) == UnsafeRawPointer(base + end), value.isFinite else { return nil }
            return value
        }
    }
}
