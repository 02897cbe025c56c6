public import Foundation

extension GeneratorLabels {
    /// Returns the labels as JSON with sorted keys and unescaped slashes, without a trailing newline.
    ///
    /// - Throws: `EncodingError` if encoding fails (it does not for labels the generator made).
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}
