import Foundation

/// Prints one JSON document on standard output, keys sorted, for scripts.
enum JSONOutput {
    static func print(_ value: some Encodable) throws(CommandFailure) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        do {
            let data = try encoder.encode(value)
            Swift.print(CredentialRedaction.redact(String(decoding: data, as: UTF8.self)))
        } catch {
            throw CommandFailure.io("cannot encode the JSON output: \(error)")
        }
    }

    /// Prints one JSON object whose members come in the given order (Foundation's encoder on
    /// Linux does not keep the order of keys). Each member's value is encoded with sorted keys;
    /// an array prints one element per line.
    static func printObject(_ members: KeyValuePairs<String, any Encodable>) throws(CommandFailure) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        func encoded(_ value: any Encodable) throws(CommandFailure) -> String {
            do {
                return String(decoding: try encoder.encode(value), as: UTF8.self)
            } catch {
                throw CommandFailure.io("cannot encode the JSON output: \(error)")
            }
        }
        var lines: [String] = []
        for (key, value) in members {
            let name = try encoded(key)
            if let array = value as? [any Encodable] {
                let elements = try array.map { (element) throws(CommandFailure) in try encoded(element) }
                lines.append(elements.isEmpty ? "  \(name) : []" : "  \(name) : [\n    " + elements.joined(separator: ",\n    ") + "\n  ]")
            } else {
                lines.append("  \(name) : " + (try encoded(value)))
            }
        }
        Swift.print("{\n" + lines.joined(separator: ",\n") + "\n}")
    }
}
