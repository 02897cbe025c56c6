import CouchClient
import Foundation
import Testing

/// The client's own JSON reader and writer agree with Foundation's on what JSON means.
@Suite struct CouchJSONTextTests {
    @Test(arguments: [
        #"{"a":1,"b":[true,false,null],"c":{"d":"e"},"f":-2.5,"g":1e3}"#,
        #"["caf\u00e9","\ud83d\ude00","line\nbreak","tab\t","quote\"","back\\slash","\/"]"#,
        #"  {"empty":{},"list":[],"s":""}  "#,
        #"{"vcard":"BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Zoë ☎ 名前\r\nEND:VCARD\r\n","n":9007199254740993}"#,
    ])
    func parsesWhatFoundationParses(text: String) throws {
        let ours = try CouchJSON(parsing: Array(text.utf8))
        let foundation = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
        #expect(Self.same(ours, foundation), "\(ours)")
        // Written back and read again: the same value.
        #expect(try CouchJSON(parsing: ours.jsonBytes) == ours)
    }

    @Test(arguments: [#"{"a":}"#, #"[1,2"#, #"{"a":1}x"#, "\"unterminated", #"{"a":"\u12"}"#, "{\"ctl\":\"a\u{01}b\"}", ""])
    func refusesWhatIsNotJSON(text: String) {
        #expect(throws: (any Error).self) { try CouchJSON(parsing: Array(text.utf8)) }
    }

    @Test func writesKeysSortedAndEscapesControlCharacters() {
        let value: CouchJSON = ["b": "x\u{01}\"\\", "a": [1, 2.5, nil, true]]
        #expect(String(decoding: value.jsonBytes, as: UTF8.self) == #"{"a":[1,2.5,null,true],"b":"x\u0001\"\\"}"#)
    }

    static func same(_ value: CouchJSON, _ other: Any) -> Bool {
        switch value {
        case .null: return other is NSNull
        case .bool(let flag): return (other as? Bool) == flag
        case .integer(let number): return (other as? NSNumber)?.int64Value == Int64(number)
        case .number(let number): return (other as? NSNumber)?.doubleValue == number
        case .string(let text): return (other as? String) == text
        case .array(let items):
            guard let list = other as? [Any], list.count == items.count else { return false }
            return zip(items, list).allSatisfy { same($0, $1) }
        case .object(let members):
            guard let dictionary = other as? [String: Any], dictionary.count == members.count else { return false }
            return members.allSatisfy { key, item in dictionary[key].map { same(item, $0) } ?? false }
        }
    }
}
