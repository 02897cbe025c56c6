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
}
