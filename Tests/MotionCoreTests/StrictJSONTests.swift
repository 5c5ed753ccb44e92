import Foundation
import Testing

@testable import MotionCore

@Suite("Strict JSON (RFC 8259)")
struct StrictJSONTests {
    /// The message of the commit error for a transaction's JSON, or `nil` if it decodes.
    func transactionError(_ json: String) -> String? {
        do {
            _ = try Transaction(jsonData: Data(json.utf8))
            return nil
        } catch {
            return error.code == .invalidTransaction ? error.message : "\(error.code): \(error.message)"
        }
    }

    @Test(arguments: [
        (
            #"{"operations": [{"op": "add", "target": "a", "plan": {"type": "Record",}}]}"#,
            "$: invalid JSON at line 1, column 71: trailing comma after the last member of an object"
        ),
        (
            "{\"operations\": [\n  {\"op\": \"removeNamed\", \"target\": \"a\", \"name\": \"n\"},\n]}",
            "$: invalid JSON at line 2, column 52: trailing comma after the last element of an array"
        ),
    ])
    func trailingCommaIsAnErrorAtTheComma(json: String, message: String) {
        #expect(transactionError(json) == message)
    }

    @Test(arguments: [
        (
            "{\"operations\": [],\n \"operations\": [{\"op\": \"removeNamed\", \"target\": \"a\", \"name\": \"n\"}]}",
            "$: invalid JSON at line 2, column 2: duplicate key \"operations\" (first at line 1, column 2). To fix, keep one of them"
        ),
        (
            "{\"operations\": [{\"op\": \"add\", \"target\": \"a\",\n  \"plan\": {\"type\": \"Record\", \"duration\": 1,\n    \"duration\": 3}}]}",
            "$: invalid JSON at line 3, column 5: duplicate key \"duration\" (first at line 2, column 30). To fix, keep one of them"
        ),
    ])
    func duplicateKeyIsAnErrorNamingTheKeyAndBothPlaces(json: String, message: String) {
        #expect(transactionError(json) == message)
    }

    /// The message for a document that the parser refuses, or `nil` if it parses.
    func parseError(_ json: String) -> String? { parseError(bytes: Array(json.utf8)) }

    func parseError(bytes: [UInt8]) -> String? {
        do {
            _ = try JSONParser.parse(bytes)
            return nil
        } catch {
            return error.message
        }
    }

    @Test(arguments: [
        // Strings before the duplicate hold braces and quotes; the nested object is counted apart.
        (
            #"{"a{": "}\"{", "b": {"x": 1, "y": [{"x": 2}], "x": 3}}"#,
            #"invalid JSON at line 1, column 47: duplicate key "x" (first at line 1, column 22). To fix, keep one of them"#
        ),
        ("[01]", "invalid JSON at line 1, column 2: invalid number (a leading zero)"),
        ("[1.]", "invalid JSON at line 1, column 2: invalid number (expected a digit after '.')"),
        ("[-]", "invalid JSON at line 1, column 2: invalid number (expected a digit)"),
        ("[.5]", "invalid JSON at line 1, column 2: invalid value"),
        ("{\"a\": tru}", "invalid JSON at line 1, column 10: invalid value (expected true)"),
        ("[1e400]", "invalid JSON at line 1, column 2: number 1e400 is out of range for a 64-bit float (at most about 1.8e308)"),
        (
            "[18446744073709551616]",
            "invalid JSON at line 1, column 2: number 18446744073709551616 is an integer beyond 64 bits. To fix, write it with an exponent (1.8446744073709552e+19)"
        ),
        ("[\"a\\ud800\"]", "invalid JSON at line 1, column 4: a \\u escape of a high surrogate not followed by a low one"),
        ("[\"a\\x\"]", "invalid JSON at line 1, column 4: invalid escape sequence (expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)"),
        ("[\"a\tb\"]", "invalid JSON at line 1, column 4: unescaped control character U+0009 in a string"),
        ("{\"a\": \"open}", "invalid JSON at line 1, column 7: unterminated string"),
        ("{\"a\" 1}", "invalid JSON at line 1, column 6: expected ':' after the key"),
        ("{a: 1}", "invalid JSON at line 1, column 2: expected a key (a string in double quotes)"),
        ("[1] [2]", "invalid JSON at line 1, column 5: unexpected text after the JSON value"),
        ("[1 2]", "invalid JSON at line 1, column 4: expected ',' or ']' after an array element"),
        ("{\"a\": [1,\n", "invalid JSON at line 2, column 1: unexpected end of file during JSON parse"),
        (" \n ", "invalid JSON at line 2, column 2: unexpected end of file during JSON parse"),
        ("", "invalid JSON: the file is empty"),
        ("// a comment\n{}", "invalid JSON at line 1, column 1: invalid value"),
        (
            String(repeating: "[", count: 1025) + String(repeating: "]", count: 1025),
            "invalid JSON at line 1, column 1025: more than 1024 nested arrays and objects"
        ),
    ])
    func badDocumentIsRefusedAtItsLineAndColumn(json: String, message: String) {
        #expect(parseError(json) == message)
    }

    @Test func invalidUTF8IsRefusedWhereItIs() {
        let bytes = Array("[\"ab".utf8) + [0xC3, 0x28] + Array("\"]".utf8)
        #expect(parseError(bytes: bytes) == "invalid JSON at line 1, column 5: invalid UTF-8 in a string")
    }

    @Test func validDocumentsReadAsWritten() throws {
        #expect(try JSONParser.parse(Array(#""\u00e9\ud83d\ude00\n\"\/""#.utf8)) == .string("é😀\n\"/"))
        #expect(try JSONParser.parse(Array("12345678901234567890".utf8)) == .number(Double(UInt64(12_345_678_901_234_567_890))))
        #expect(try JSONParser.parse(Array("-9223372036854775808".utf8)) == .number(-9_223_372_036_854_775_808))
        #expect(try JSONParser.parse(Array("1e-400".utf8)) == .number(0))
        #expect(try JSONParser.parse(Array(" true ".utf8)) == .bool(true))
        #expect(try JSONParser.parse(Array("null".utf8)) == .null)
        #expect(try JSONParser.parse([0xEF, 0xBB, 0xBF] + Array("[1]".utf8)) == [1])
        #expect(parseError(bytes: [0xEF, 0xBB, 0xBF]) == "invalid JSON: the file is empty")
        let nested = try JSONParser.parse(Array(#"{"a": [1, {"b": null, "c": false}], "": {}, "d": []}"#.utf8))
        #expect(nested == ["a": [1, ["b": nil, "c": false]], "": [:], "d": []])
        let deep = String(repeating: "[", count: 1024) + String(repeating: "]", count: 1024)
        #expect(throws: Never.self) { try JSONParser.parse(Array(deep.utf8)) }
    }
}
