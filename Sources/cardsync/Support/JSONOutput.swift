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
            if let array = value as? EncodedElements {
                lines.append(array.lines.isEmpty ? "  \(name) : []" : "  \(name) : [\n    " + array.lines.joined(separator: ",\n    ") + "\n  ]")
            } else if let array = value as? [any Encodable] {
                let elements = try array.map { (element) throws(CommandFailure) in try encoded(element) }
                lines.append(elements.isEmpty ? "  \(name) : []" : "  \(name) : [\n    " + elements.joined(separator: ",\n    ") + "\n  ]")
            } else {
                lines.append("  \(name) : " + (try encoded(value)))
            }
        }
        Swift.print("{\n" + lines.joined(separator: ",\n") + "\n}")
    }

    /// The elements of a large array encoded on every core, each as one line of JSON (sorted
    /// keys), for ``printObject(_:)``.
    static func encodedInParallel<Element: Encodable & Sendable>(_ elements: [Element]) throws(CommandFailure) -> EncodedElements {
        let chunks = min(max(1, elements.count / 256), 16)
        let results = UnsafeSendableSlots<Result<[String], any Error>>(count: chunks)
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let range = (elements.count * chunk / chunks)..<(elements.count * (chunk + 1) / chunks)
            results.store(Result { try elements[range].map { String(decoding: try encoder.encode($0), as: UTF8.self) } }, at: chunk)
        }
        var lines: [String] = []
        lines.reserveCapacity(elements.count)
        for result in results.values() {
            switch result {
            case .success(let chunk): lines += chunk
            case .failure(let error): throw CommandFailure.io("cannot encode the JSON output: \(error)")
            }
        }
        return EncodedElements(lines: lines)
    }

    /// Array elements already encoded as JSON text, one per line.
    struct EncodedElements: Encodable {
        var lines: [String]

        func encode(to encoder: any Encoder) throws {
            // Printed by ``JSONOutput/printObject(_:)`` as they are; never encoded again.
            throw EncodingError.invalidValue(lines, .init(codingPath: encoder.codingPath, debugDescription: "pre-encoded JSON"))
        }
    }
}

/// Slots each written by exactly one `concurrentPerform` iteration before it returns, which
/// orders those writes before ``values()`` reads them.
private final class UnsafeSendableSlots<Value>: @unchecked Sendable {
    private var slots: [Value?]

    init(count: Int) { slots = Array(repeating: nil, count: count) }

    func store(_ value: Value, at index: Int) {
        slots.withUnsafeMutableBufferPointer { $0[index] = value }
    }

    func values() -> [Value] { slots.map { $0! } }
}
